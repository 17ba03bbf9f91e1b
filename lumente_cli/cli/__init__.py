"""The command-line layer: parse options, call the modules below, print."""
