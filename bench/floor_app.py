"""The floor for Lumente's stack: a minimal one-command typer app.

Start-up benchmarks compare every `lumente` command with this, run the same
way in the same run: `python bench/floor_app.py` (runs its one command)."""

import typer

app = typer.Typer()


@app.command()
def main(name: str = "world") -> None:
    """Greet someone."""
    print(f"hello {name}")


if __name__ == "__main__":
    app()
