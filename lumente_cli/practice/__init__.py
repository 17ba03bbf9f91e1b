"""Running a practice session: the student's input, the agents, the engine,
the local store and memory, wired together. The CLI only builds and starts it."""
