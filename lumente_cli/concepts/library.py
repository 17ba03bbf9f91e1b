"""Finding and loading concept files: the shipped library, the user's own files
in the config dir, and concepts the Claude mapper built earlier.

A file is validated the first time its bytes are seen; the validated data is
kept in the concept cache (cache.py), with the fields listing needs in a small
index beside it. Listing, finding and naming concepts read that index, the full
data is read when a concept is used, and its pydantic model is built only then
(`ConceptSource.concept`): `lumente concepts`, `memory show` and completion never
read a concept file or load the schema.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lumente_cli.concepts.cache import ConceptCache, head_of, stamp_of
from lumente_cli.errors import ConceptError
from lumente_cli.parts import PARTS
from lumente_cli.text import slug

if TYPE_CHECKING:
    from pydantic import ValidationError

    from lumente_cli.concepts.schema import Concept

MAX_FILE_BYTES = 512 * 1024


@dataclass
class ConceptSource:
    """One concept file: what listing reads (`head`), its validated data once asked
    for, and its model once asked for."""

    head: dict[str, Any]
    path: str
    origin: str  # "library", "user" or "mapped"
    _load: Callable[[], dict[str, Any]] | None = field(default=None, repr=False, compare=False)
    _data: dict[str, Any] | None = field(default=None, repr=False, compare=False)
    _concept: Concept | None = field(default=None, repr=False, compare=False)

    @property
    def data(self) -> dict[str, Any]:
        if self._data is None:
            assert self._load is not None
            self._data = self._load()
        return self._data

    @property
    def id(self) -> str:
        return self.head["id"]

    @property
    def name(self) -> str:
        return self.head["name"]

    @property
    def full_name(self) -> str | None:
        return self.head.get("full_name")

    @property
    def summary(self) -> str:
        return self.head["summary"]

    @property
    def aliases(self) -> list[str]:
        return self.head.get("aliases") or []

    @property
    def area(self) -> str | None:
        return self.head.get("area")

    @property
    def links(self) -> list[str]:
        return self.head.get("links") or []

    @property
    def concept(self) -> Concept:
        if self._concept is None:
            self._concept = _validate(self.data, self.path, self.id)
        return self._concept

    def called(self, want: str) -> bool:
        """Whether `want` (a slug) is this concept's id, name, full name or an alias."""
        return want in {self.id, slug(self.name), slug(self.full_name or "")} | {slug(a) for a in self.aliases}


@dataclass
class Library:
    concepts: dict[str, ConceptSource] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def ids(self) -> list[str]:
        return sorted(self.concepts)

    def resolve(self, name: str) -> Concept:
        """Find a concept by id, name or alias; suggest near names when unknown."""
        return self.resolve_source(name).concept

    def resolve_source(self, name: str) -> ConceptSource:
        """As `resolve`, for callers that need only the id and names, not the model."""
        found = self.find_source(name)
        if found is not None:
            return found
        broken = next((problem for problem in self.problems if f"/{slug(name)}.toml" in problem), None)
        if broken is not None:  # the student's own file for it is there, but could not be read
            raise ConceptError(broken, hint="`lumente concepts check FILE` explains what the file needs.")
        raise ConceptError(f"unknown concept {name!r}.", hint=self.suggestion(name))

    def find(self, name: str) -> Concept | None:
        source = self.find_source(name)
        return source.concept if source is not None else None

    def find_source(self, name: str) -> ConceptSource | None:
        want = slug(name)
        if want in self.concepts:
            return self.concepts[want]
        return next((source for source in self.concepts.values() if source.called(want)), None)

    def name_of(self, concept_id: str) -> str:
        """The display name of a concept id; the id itself for one not (or no longer) here."""
        source = self.concepts.get(concept_id)
        return source.name if source is not None else concept_id

    def close_matches(self, name: str) -> list[str]:
        """Concept ids whose id or alias is close to `name` (a likely typo)."""
        names: dict[str, str] = {}
        for cid, source in self.concepts.items():
            names[cid] = cid
            for alias in source.aliases:
                names.setdefault(slug(alias), cid)
        import difflib  # only on a miss: it costs more to import than a lookup

        close = difflib.get_close_matches(slug(name), list(names), n=3, cutoff=0.6)
        return list(dict.fromkeys(names[c] for c in close))

    def suggestion(self, name: str) -> str:
        close_ids = self.close_matches(name)
        if close_ids:
            return "Did you mean: " + ", ".join(close_ids) + "?  (`lumente concepts` lists them all)"
        return "`lumente concepts` lists the concepts you can practise."


def load_file(path: Path, *, display: str | None = None, cache: ConceptCache | None = None) -> Concept:
    """Parse and validate one file; a problem names the file and the field."""
    return _read_source(path, display or str(path), "user", cache).concept


def parse_concept(raw: bytes, where: str, *, expected_id: str | None = None,
                  cache: ConceptCache | None = None) -> Concept:
    return _source(raw, where, "user", expected_id, cache).concept


def _read_bytes(path: Path, where: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise ConceptError(f"concept file {where}: cannot be read ({exc.strerror or exc}).") from None


def _read_source(path: Path, where: str, origin: str, cache: ConceptCache | None) -> ConceptSource:
    """A file's source: its listing fields from the cache's index when the file is unchanged
    (the file itself is read only when the concept is used), else read and validated."""
    stamp = None
    if cache is not None:
        try:
            stamp = stamp_of(path)
        except OSError:
            pass
    if cache is not None and stamp is not None:
        head = cache.head(where, stamp)
        if head is not None and _listable(head) and head["id"] == path.stem:
            return ConceptSource(head, where, origin,
                                 _load=lambda: _source(_read_bytes(path, where), where, origin, path.stem, cache).data)
    raw = _read_bytes(path, where)
    source = _source(raw, where, origin, path.stem, cache)
    if cache is not None and stamp is not None:
        cache.remember(where, stamp, raw, source.head)
    return source


def _source(raw: bytes, where: str, origin: str, expected_id: str | None,
            cache: ConceptCache | None) -> ConceptSource:
    """A file's source: from the cache when these bytes were validated before, else parsed and validated."""
    data = cache.get(raw) if cache is not None else None
    if data is not None and _listable(data) and expected_id in (None, data["id"]):
        return ConceptSource(head_of(data), where, origin, _data=data)
    concept = _validate(_parse_toml(raw, where), where, expected_id)
    checked = concept.model_dump(mode="json")
    if cache is not None:
        cache.put(raw, checked)
    return ConceptSource(head_of(checked), where, origin, _data=checked, _concept=concept)


def _listable(data: dict[str, Any]) -> bool:
    """Cached data has what listing and finding read without the model (else: parse the file again)."""
    texts = all(isinstance(data.get(k), str) for k in ("id", "name", "summary"))
    aliases = data.get("aliases") or []
    return texts and isinstance(data.get("full_name") or "", str) and isinstance(aliases, list) \
        and all(isinstance(a, str) for a in aliases)


def _parse_toml(raw: bytes, where: str) -> dict:
    import tomllib  # on a cache miss only

    if len(raw) > MAX_FILE_BYTES:
        raise ConceptError(f"concept file {where}: larger than {MAX_FILE_BYTES // 1024} KB.")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        near = _field_at(raw.decode("utf-8", errors="replace"), line)
        raise ConceptError(f"concept file {where}: not UTF-8 text (line {line}{near}).") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        found = _TOML_LINE.search(str(exc))
        near = _field_at(text, int(found.group(1))) if found else ""
        raise ConceptError(f"concept file {where}: not valid TOML ({exc}{near}).") from None
    except RecursionError:
        raise ConceptError(f"concept file {where}: not valid TOML (nested too deeply).") from None
    return data


def _validate(data: dict, where: str, expected_id: str | None) -> Concept:
    from pydantic import ValidationError

    from lumente_cli.concepts.schema import Concept

    try:
        concept = Concept.model_validate(data)
    except ValidationError as exc:
        raise ConceptError(f"concept file {where}: {describe_validation_error(exc)}") from None
    except RecursionError:
        raise ConceptError(f"concept file {where}: values nested too deeply.") from None
    order = [key for key in data if key in PARTS]
    if order != list(PARTS):
        misplaced = next(key for key, want in zip(order, PARTS) if key != want)
        raise ConceptError(
            f"concept file {where}: field {misplaced!r} is out of place; "
            f"the parts must appear in map order: {', '.join(PARTS)}."
        )
    if expected_id is not None and concept.id != expected_id:
        raise ConceptError(f"concept file {where}: field 'id' is {concept.id!r} but the file is named {expected_id!r}.")
    return concept


_TOML_LINE = re.compile(r"at line (\d+)")
_TABLE = re.compile(r"^\s*\[\[?\s*([A-Za-z0-9_.\- ]+?)\s*\]\]?")
_KEY = re.compile(r"^\s*([A-Za-z0-9_\-]+)\s*=")


def _field_at(text: str, line: int) -> str:
    """', field coordinate.question': the key on (or the table around) a line, for error messages."""
    lines = text.splitlines()
    if not 1 <= line <= len(lines):
        return ""
    table = ""
    for previous in lines[:line]:
        header = _TABLE.match(previous)
        if header:
            table = header.group(1).replace(" ", "")
    key = _KEY.match(lines[line - 1])
    name = ".".join(part for part in (table, key.group(1) if key else "") if part)
    return f", field {name}" if name else ""


def describe_validation_error(exc: ValidationError, *, limit: int = 3) -> str:
    """'field coordinate.reference: Field required; field coordinate.notes: unknown field'
    (the first few problems, and a count of the rest): a renamed field shows both ends."""
    errors = exc.errors()
    shown = []
    for error in errors[:limit]:
        loc = ""
        for part in error["loc"]:
            loc += f"[{part}]" if isinstance(part, int) else (f".{part}" if loc else str(part))
        message = "unknown field" if error["type"] == "extra_forbidden" else error["msg"]
        shown.append(f"field {loc or '(top level)'}: {message}")
    more = f" (and {len(errors) - limit} more)" if len(errors) > limit else ""
    return "; ".join(shown) + more


def _library_files() -> list[Path]:
    # A plain path, not importlib.resources (slow to import): the package is always installed as files.
    root = Path(__file__).with_name("library")
    return sorted(entry for entry in root.iterdir() if entry.name.endswith(".toml"))


def load_library(*dirs: tuple[Path, str], cache: ConceptCache | None = None) -> Library:
    """The shipped concepts, then each (dir, origin) in turn; later files override earlier ones.

    A broken shipped file is a bug and raises; a broken user file is reported in
    `problems` so the rest of the library stays usable.
    """
    lib = Library()
    for path in _library_files():
        source = _read_source(path, f"library/{path.name}", "library", cache)
        lib.concepts[source.id] = source
    for directory, origin in dirs:
        if not directory.is_dir():
            continue
        for path in sorted(directory.glob("*.toml")):
            try:
                source = _read_source(path, str(path), origin, cache)
            except ConceptError as exc:
                lib.problems.append(exc.message)
                continue
            lib.concepts[source.id] = source
    if cache is not None:
        cache.save()
    return lib


def load_default() -> Library:
    from lumente_cli import paths

    p = paths.current()
    return load_library((p.mapped_concepts_dir, "mapped"), (p.user_concepts_dir, "user"),
                        cache=ConceptCache(p.concept_cache))
