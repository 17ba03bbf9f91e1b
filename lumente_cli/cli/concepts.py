"""`lumente concepts` and `lumente concepts show CONCEPT`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from lumente_cli.cli.common import command_group, err_console, handle_errors, out_console, out_screen, print_json
from lumente_cli.cli.completion import concept_names
from lumente_cli.exitcodes import ExitCode
from lumente_cli.text import sanitize

app = command_group(help="List the concepts you can practise, or show one concept's map.", no_args_is_help=False)


@app.callback(invoke_without_command=True)
@handle_errors
def list_concepts(
    ctx: typer.Context,
    json_out: Annotated[bool, typer.Option("--json", help="Print the list as JSON.")] = False,
) -> None:
    """List the concepts you can practise."""
    if ctx.invoked_subcommand is not None:
        return
    from lumente_cli.concepts.library import load_default
    from lumente_cli.views.concepts import concept_list

    lib = load_default()
    levels = _levels()
    if json_out:
        print_json({
            "concepts": [
                {"id": s.id, "name": s.name, "full_name": s.full_name, "summary": s.summary, "area": s.area,
                 "links": s.links, "levels": levels.get(s.id), "origin": s.origin, "path": s.path}
                for s in (lib.concepts[i] for i in lib.ids())
            ],
            "problems": lib.problems,
        })
    else:
        out_screen().print(concept_list(lib, levels))
    _report_problems(lib.problems)


def _levels() -> dict[str, dict[str, int]]:
    """This learner's levels per concept, read without creating a file or a secret."""
    from lumente_cli import paths

    p = paths.current()
    if not p.database.exists():  # nothing practised yet: no settings or secret to read
        return {}
    from lumente_cli import settings as settings_mod
    from lumente_cli.errors import LumenteError
    from lumente_cli.memory.pseudonym import existing_pseudonym
    from lumente_cli.store.readonly import practised_levels

    try:
        sign_in = settings_mod.load()["sign_in"]
    except LumenteError:  # a broken config file: list the concepts anyway
        return {}
    return practised_levels(p.database, existing_pseudonym(p.secret, sign_in))


@app.command("show")
@handle_errors
def show(
    concept: Annotated[str, typer.Argument(metavar="CONCEPT", help="The concept to show, e.g. jwt.", autocompletion=concept_names)],
    json_out: Annotated[bool, typer.Option("--json", help="Print the concept as JSON.")] = False,
) -> None:
    """Show a concept's four-part map: the reference answers and key points."""
    from lumente_cli.concepts.library import load_default
    from lumente_cli.views.concepts import concept_map

    lib = load_default()
    found = lib.resolve(concept)
    if json_out:
        print_json(found.model_dump(mode="json"))
    else:
        linked = {link: lib.name_of(link) for link in found.links if link in lib.concepts}
        out_screen().print(concept_map(found, linked))


@app.command("check")
@handle_errors
def check(
    file: Annotated[Path, typer.Argument(metavar="FILE", help="A concept file (TOML) to check.", dir_okay=False)],
    json_out: Annotated[bool, typer.Option("--json", help="Print {file, ok, problems} as JSON.")] = False,
) -> None:
    """Check a concept file against every rule a shipped one keeps: the format, and the rules that keep
    it honest (cues that point, hints from vague to specific, a reference solid by its own rubric...)."""
    from rich.text import Text

    from lumente_cli.concepts import lint
    from lumente_cli.concepts.library import load_default, load_file

    concept = load_file(file)  # a malformed file is one line naming the field, exit 2
    found = lint.problems(concept, load_default().ids(), shipped=False)
    if json_out:
        print_json({"file": str(file), "ok": not found, "problems": found})
    else:
        console = out_console()
        if not found:
            console.print(Text(f"{file}: {concept.id} keeps every rule.", style="green"))
        for problem in found:
            console.print(Text("  · ") + Text(sanitize(problem)), soft_wrap=True)
    if found:
        raise typer.Exit(int(ExitCode.ERROR))


def _report_problems(problems: list[str]) -> None:
    if problems:
        from rich.text import Text

        console = err_console(quiet_ok=False)
        for problem in problems:
            console.print(Text(f"lumente: {sanitize(problem)}", style="red"), soft_wrap=True)
        console.print(Text("`lumente concepts check FILE` explains each rule a file breaks; `man lumente` describes "
                           "the format.", style="dim"), soft_wrap=True)
        raise typer.Exit(int(ExitCode.ERROR))
