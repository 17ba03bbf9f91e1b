"""`lumente scan`: which of the library's concepts a project on disk relies on, each
with the files and lines that show it. Local and offline; nothing here prints, and
nothing here talks to memory or to a model.

`files` lists and reads the project, `manifests` reads the dependency files,
`python_source` and `javascript_source` read the code, `detectors` compiles the
concept files' `[detection]` sections, `engine` runs them and ranks the findings.
"""
