"""Rendering for people: Rich views over the same data the --json output carries."""
