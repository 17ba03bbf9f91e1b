"""`python -m lumente_cli` behaves exactly like the `lumente` command."""

from lumente_cli.cli.main import run

if __name__ == "__main__":
    run()
