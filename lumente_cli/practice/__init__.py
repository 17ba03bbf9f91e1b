"""Running a practice session: the student's input, the agents, the engine,
the local store and memory, wired together (`wiring`), the session opened or
resumed (`opening`) and played (`runner`). The CLI calls `wiring` and renders."""
