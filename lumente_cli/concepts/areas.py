"""The areas the library is grouped by, in the order `lumente concepts` lists them.

Kept apart from the schema so that listing concepts never builds the pydantic models."""

AREA_TITLES: dict[str, str] = {
    "web": "Web and HTTP",
    "security": "Security",
    "data": "Data",
    "concurrency": "Concurrency",
    "language": "Language ideas",
    "tools": "Tools and delivery",
    "ai": "AI and LLMs",
}
