"""Generate Lumente's shell files and reference docs from the live command tree.

    python scripts/generate_docs.py           # (re)write every generated file
    python scripts/generate_docs.py --check   # list stale files and exit 1, write nothing

It writes:

* completions/lumente.bash, completions/_lumente, completions/lumente.fish:
  typer's own scripts, asked for the way a user would
  (`_LUMENTE_COMPLETE=source_<shell> lumente`); they call `lumente` back for
  every completion, so commands, concept names and parts come from the
  installed program.
* man/lumente.1: every command, option and argument with its help, the
  environment (from settings.SETTINGS), files (from paths), exit statuses
  (from exitcodes) and examples. Reproducible: a fixed date and symbolic paths.
* docs/cli-reference.md, docs/configuration.md, docs/exit-codes.md.

Tests import this file (tests/test_generated_docs.py) and fail when a
generated file differs from a fresh generation.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROG = "lumente"
# The man page's date. Fixed so the output is reproducible; bump it when the
# page changes in substance (the version beside it comes from the package).
MAN_DATE = "2026-11-30"
# Linux defaults, shown instead of this machine's paths.
SHOWN_CONFIG_DIR = "~/.config/lumente"
SHOWN_DATA_DIR = "~/.local/share/lumente"

COMPLETIONS = {"bash": "completions/lumente.bash", "zsh": "completions/_lumente", "fish": "completions/lumente.fish"}

EXAMPLES: tuple[tuple[str, str], ...] = (
    ("Practise JWT; you are asked for your prediction first:", "lumente practice jwt"),
    ("A scripted session: the prediction, then one answer per line, events as NDJSON:",
     "printf '4\\nA kind of token\\n?\\n...\\n' | lumente practice jwt --json"),
    ("Judge an AI's explanation of JWT, scripted: the prediction, the wrong claims' numbers, a reason for each:",
     "printf '5\\n3 7\\nIt is only encoded...\\nOAuth is a...\\n' | lumente check jwt --json"),
    ("What Lumente remembers about you, and how one part's level changed:",
     "lumente memory show\nlumente memory history jwt --part coordinate --json | jq '.chains[0].rows'"),
    ("Check the installation, then use a remote memory service:",
     "lumente doctor\nlumente config set memory_url https://abc123.spectron.cloud\nlumente config set memory_api_key"),
    ("Work offline for one run, without colour:", "NO_COLOR=1 LUMENTE_PROVIDER=offline lumente practice jwt"),
)


# ------------------------------------------------------------------ the tree


@dataclass
class ParamDoc:
    kind: str  # "option" or "argument"
    name: str  # the parameter's Python name
    label: str  # e.g. "-y, --yes" or "--provider <offline|claude>" or "concept <str>"
    help: str
    required: bool = False


@dataclass
class CommandDoc:
    path: tuple[str, ...]  # ("lumente", "memory", "show")
    usage: str  # "lumente memory show [OPTIONS] [concept]"
    help: str
    params: list[ParamDoc] = field(default_factory=list)
    subcommands: list[CommandDoc] = field(default_factory=list)

    @property
    def name(self) -> str:
        return " ".join(self.path)

    @property
    def summary(self) -> str:
        return first_sentence(self.help)

    @property
    def is_group(self) -> bool:
        return bool(self.subcommands)


def first_sentence(text: str) -> str:
    para = text.strip().split("\n\n")[0]
    return " ".join(para.split())


def command_tree() -> CommandDoc:
    """Walk the real click command tree that `lumente` runs."""
    import typer

    from lumente_cli.cli.main import app

    root = typer.main.get_command(app)
    return _walk(root, typer.Context(root, info_name=PROG, **root.context_settings))


def _walk(cmd, ctx) -> CommandDoc:  # noqa: ANN001 - click objects
    import typer

    usage = " ".join([ctx.command_path, *cmd.collect_usage_pieces(ctx)])
    doc = CommandDoc(tuple(ctx.command_path.split()), usage, (cmd.help or "").strip())
    for param in cmd.get_params(ctx):
        record = param.get_help_record(ctx)
        if record is None:  # hidden
            continue
        label, help_text = record
        doc.params.append(ParamDoc(param.param_type_name, param.name or "", label, " ".join(help_text.split()),
                                   bool(getattr(param, "required", False))))
    if hasattr(cmd, "list_commands"):
        for name in cmd.list_commands(ctx):
            sub = cmd.get_command(ctx, name)
            if sub is None or sub.hidden:
                continue
            doc.subcommands.append(_walk(sub, typer.Context(sub, info_name=name, parent=ctx, **sub.context_settings)))
    return doc


def every_command(doc: CommandDoc) -> Iterator[CommandDoc]:
    yield doc
    for sub in doc.subcommands:
        yield from every_command(sub)


# ------------------------------------------------------------------ completions


def render_completion(shell: str) -> str:
    """typer's script for `shell`, exactly as `_LUMENTE_COMPLETE=source_<shell> lumente` prints it."""
    from typer.testing import CliRunner

    from lumente_cli.cli.main import app

    result = CliRunner().invoke(app, [], env={"_LUMENTE_COMPLETE": f"source_{shell}"}, prog_name=PROG)
    if result.exit_code != 0 or not result.stdout.strip():
        raise RuntimeError(f"no {shell} completion script (exit {result.exit_code}): {result.output}")
    # typer's templates start with an empty line; zsh's compinit only finds
    # `#compdef lumente` on the first line, so that line goes.
    return result.stdout.lstrip("\n")


# ------------------------------------------------------------------ shared facts


def shown_entries() -> list:  # list[paths.Entry], with the Linux default folders
    from lumente_cli.paths import Paths

    return Paths(config_dir=Path(SHOWN_CONFIG_DIR), data_dir=Path(SHOWN_DATA_DIR)).entries()


def environment() -> list[tuple[str, str]]:
    """(variable, what it does) for every variable Lumente reads."""
    from lumente_cli.settings import OTHER_ENVIRONMENT, SETTINGS

    rows = []
    for s in SETTINGS:
        if s.env:
            default = f' Default: "{s.default}".' if s.default else ""
            secret = " A secret: never printed in full (config show redacts it)." if s.secret else ""
            rows.append((s.env, f"{s.help} Overrides the setting {s.key} in the config file.{default}{secret}"))
    rows.extend(OTHER_ENVIRONMENT)
    return rows


def exit_codes() -> list[tuple[int, str, str]]:
    from lumente_cli.exitcodes import ExitCode, descriptions

    docs = descriptions()
    return [(int(code), code.name, docs.get(code, "")) for code in ExitCode]


def version() -> str:
    from lumente_cli import __version__

    return __version__


# ------------------------------------------------------------------ man page


def roff_text(text: str) -> str:
    """Escape running text for roff: backslashes, hyphens, and any non-ASCII character."""
    out = []
    for ch in text:
        if ch == "\\":
            out.append("\\e")
        elif ch == "-":
            out.append("\\-")
        elif ord(ch) > 126:
            out.append(f"\\[u{ord(ch):04X}]")
        else:
            out.append(ch)
    line = "".join(out)
    return "\\&" + line if line.startswith((".", "'")) else line


def roff_lines(text: str) -> list[str]:
    """Paragraphs of help text as roff lines, with .PP between paragraphs."""
    lines: list[str] = []
    for i, para in enumerate(p for p in text.strip().split("\n\n") if p.strip()):
        if i:
            lines.append(".PP")
        lines.append(roff_text(" ".join(para.split())))
    return lines


def _label_roff(label: str) -> str:
    """'-y, --yes' or '--provider <offline|claude>': option names bold, the value italic."""
    names: list[str] = []
    values: list[str] = []
    for token in label.split():
        (names if token.startswith("-") else values).append(token)
    bold = ", ".join(f"\\fB{roff_text(n.rstrip(','))}\\fR" for n in names)
    return bold + (f" \\fI{roff_text(' '.join(values))}\\fR" if values else "")


def _param_roff(p: ParamDoc) -> list[str]:
    if p.kind == "argument":
        name, _, kind = p.label.partition(" ")
        label = f"\\fI{roff_text(name)}\\fR" + (f" {roff_text(kind)}" if kind else "")
    else:
        label = _label_roff(p.label)
    return [".TP", label, *roff_lines(p.help)]


def render_man(tree: CommandDoc | None = None) -> str:
    tree = tree or command_tree()
    out: list[str] = [
        '.\\" Generated by scripts/generate_docs.py from the lumente command tree. Do not edit.',
        f'.TH LUMENTE 1 "{MAN_DATE}" "lumente {version()}" "User Commands"',
        ".nh",
        ".ad l",
        ".SH NAME",
        f"lumente \\- {roff_text(first_sentence(tree.help).split(': ', 1)[-1].rstrip('.'))}",
        ".SH SYNOPSIS",
    ]
    leaves = [c for c in every_command(tree) if c is not tree and (not c.is_group or c.params)]
    for i, cmd in enumerate(leaves):
        if i:
            out.append(".br")
        words = cmd.usage.split()
        out.append(f"\\fB{roff_text(' '.join(cmd.path))}\\fR " + roff_text(" ".join(words[len(cmd.path):])))
    out += [
        ".SH DESCRIPTION",
        *roff_lines(tree.help),
        ".PP",
        roff_text("A concept is worked out along a four-part map, always in this order: its category (the bigger "
                  "group it belongs to), similar concepts and how it differs from them, its defining features, and its "
                  "classification (kinds and examples). Before a session you predict your score (0 to 8); after it you "
                  "see what you proved, the reference map, and a coach's note. Help fades as you improve: each part "
                  "has a help level from 1 (a worked example) to 5 (on your own, asking your own question)."),
        ".PP",
        roff_text("Human output goes to the terminal with colour; prompts and spinners go to standard error, so "
                  "standard output stays clean for pipes. Read commands take --json and print one JSON document; "
                  "practice --json and check --json print one JSON event per line. Errors are one line on standard error, "
                  "\"lumente: <message>\", followed by a hint."),
        ".SH OPTIONS",
        roff_text("These options go before the command, e.g. lumente -q memory show. Every command also takes "
                  "-h, --help."),
    ]
    for p in tree.params:
        out += _param_roff(p)
    out.append(".SH COMMANDS")
    for cmd in every_command(tree):
        if cmd is tree:
            continue
        out.append(f'.SS "{roff_text(cmd.usage)}"')
        out += roff_lines(cmd.help)
        params = [p for p in cmd.params if p.name != "help"]
        if params:
            out += [".PP", "Arguments and options:" if any(p.kind == "argument" for p in params) else "Options:",
                    ".RS 4"]
            for p in params:
                out += _param_roff(p)
            out.append(".RE")
        if cmd.subcommands:
            out += [".PP", roff_text("Commands: " + ", ".join(s.path[-1] for s in cmd.subcommands) + ".")]
    out.append(".SH ENVIRONMENT")
    for name, text in environment():
        out += [".TP", f"\\fB{roff_text(name)}\\fR", roff_text(text)]
    out += [
        ".SH FILES",
        roff_text(f"Paths shown are the Linux defaults: {SHOWN_CONFIG_DIR} follows XDG_CONFIG_HOME and "
                  f"{SHOWN_DATA_DIR} follows XDG_DATA_HOME; with LUMENTE_HOME set they are $LUMENTE_HOME/config and "
                  "$LUMENTE_HOME/data. Other systems use their own folders: lumente path lists the real ones."),
    ]
    for entry in shown_entries():
        where = str(entry.path) + ("/" if entry.kind == "dir" else "")
        if entry.kind == "table":
            where = f"{entry.path} (table {entry.table})"
        out += [".TP", f"\\fI{roff_text(where)}\\fR", roff_text(entry.description)]
    out.append(".SH EXIT STATUS")
    for code, name, text in exit_codes():
        out += [".TP", f"\\fB{code}\\fR", roff_text(f"{name}: {text}")]
    out += [".PP", roff_text("lumente doctor exits 1 when any check fails; warnings alone exit 0.")]
    out.append(".SH EXAMPLES")
    for text, command in EXAMPLES:
        out += [".PP", roff_text(text), ".PP", ".RS 4", ".nf"]
        out += [roff_text(line) for line in command.splitlines()]
        out += [".fi", ".RE"]
    out += [
        ".SH SEE ALSO",
        roff_text("lumente doctor checks an installation. The project's docs folder has cli-reference.md, "
                  "configuration.md, exit-codes.md, json.md (every --json document), shell.md (completions and "
                  "this page), concept-format.md (writing your own concept files) and scoring.md."),
    ]
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------ Markdown


def md_text(text: str) -> str:
    """Escape Markdown outside `code spans`: angle brackets and table pipes."""
    pieces = text.split("`")
    for i in range(0, len(pieces), 2):
        pieces[i] = pieces[i].replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|").replace("*", "\\*")
    for i in range(1, len(pieces), 2):
        pieces[i] = pieces[i].replace("|", "\\|")
    return "`".join(pieces)


def md_code(text: str) -> str:
    return "`" + text.replace("|", "\\|") + "`"


def render_reference(tree: CommandDoc | None = None) -> str:
    tree = tree or command_tree()
    out = [
        "# Command reference",
        "",
        "<!-- Generated by scripts/generate_docs.py from the command tree. Do not edit by hand. -->",
        "",
        md_text(" ".join(tree.help.split())),
        "",
        "Global options go before the command (`lumente -q memory show`); every command also takes `-h`, `--help`.",
        "Exit statuses are listed in [exit-codes.md](exit-codes.md); settings and environment variables in",
        "[configuration.md](configuration.md); the `--json` documents in [json.md](json.md).",
        "",
        "| command | what it does |",
        "| --- | --- |",
    ]
    for cmd in every_command(tree):
        if cmd is not tree:
            anchor = "-".join(cmd.path)
            out.append(f"| [{md_code(' '.join(cmd.path))}](#{anchor}) | {md_text(cmd.summary)} |")
    out.append("")
    for cmd in every_command(tree):
        level = "#" * min(len(cmd.path) + 1, 4)
        out += [f"{level} {' '.join(cmd.path)}", "", "```", cmd.usage, "```", ""]
        for para in cmd.help.split("\n\n"):
            if para.strip():
                out += [md_text(" ".join(para.split())), ""]
        params = [p for p in cmd.params if p.name != "help"]
        if params:
            out += ["| argument or option | description |", "| --- | --- |"]
            for p in params:
                out.append(f"| {md_code(p.label)} | {md_text(p.help)} |")
            out.append("")
        if cmd.subcommands:
            out += ["Commands: " + ", ".join(f"[`{s.path[-1]}`](#{'-'.join(s.path)})" for s in cmd.subcommands) + ".",
                    ""]
    return "\n".join(out).rstrip("\n") + "\n"


def render_configuration() -> str:
    from lumente_cli.settings import SETTINGS

    entries = {e.name: e for e in shown_entries()}
    out = [
        "# Configuration",
        "",
        "<!-- Generated by scripts/generate_docs.py from lumente_cli/settings.py. Do not edit by hand. -->",
        "",
        "Each setting comes from, in rising order of precedence: its **default**, the **config file**, and its",
        "**environment variable**. `lumente config show` prints every setting with its value, where that value",
        "came from (`default`, `config` or `env`) and the variable that overrides it; secrets are redacted.",
        "",
        "```sh",
        "lumente config show                     # --json for scripts",
        "lumente config set provider offline     # checked before it is saved",
        "lumente config set memory_api_key       # a secret: typed without echo, or piped on stdin",
        "lumente config unset provider           # back to the default",
        "lumente config path                     # where the file is",
        "```",
        "",
        f"The config file is TOML, `{entries['config'].path}` on Linux (`lumente config path` prints",
        "yours), written with mode 0600 because it can hold API keys. An unknown key, a value that is not one of a",
        "setting's choices, or a file that is not valid TOML is an error (exit status 2) naming the file and the",
        "key; `lumente doctor` reports it too.",
        "",
        "```toml",
        "# Lumente settings. `lumente config show` explains each one.",
        'provider = "offline"',
        'memory_url = "https://abc123.spectron.cloud"',
        "```",
        "",
        "## Settings",
        "",
        "| setting | environment variable | default | what it does |",
        "| --- | --- | --- | --- |",
    ]
    for s in SETTINGS:
        what = md_text(s.help)
        if s.choices:
            what += " One of: " + ", ".join(f"`{c}`" for c in s.choices) + "."
        if s.secret:
            what += " **Secret**: never printed in full; `config show` shows only its first 4 and last 2 characters (a short one: `****`)."
        default = md_code(s.default) if s.default else "(empty)"
        out.append(f"| `{s.key}` | `{s.env}` | {default} | {what} |")
    out += [
        "",
        "## Other environment variables",
        "",
        "| variable | what it does |",
        "| --- | --- |",
    ]
    from lumente_cli.settings import OTHER_ENVIRONMENT

    for name, text in OTHER_ENVIRONMENT:
        out.append(f"| `{name}` | {md_text(text)} |")
    out += claude_section()
    out += [
        "",
        "## Files",
        "",
        f"Linux defaults: the config folder `{SHOWN_CONFIG_DIR}` follows `XDG_CONFIG_HOME` and the data folder",
        f"`{SHOWN_DATA_DIR}` follows `XDG_DATA_HOME`; with `LUMENTE_HOME` set they are `$LUMENTE_HOME/config` and",
        "`$LUMENTE_HOME/data`. `lumente path` lists the real paths on your machine and whether each exists.",
        "",
        "| name | path | what it holds |",
        "| --- | --- | --- |",
    ]
    for e in shown_entries():
        where = f"`{e.path}`" + (f" (table `{e.table}`)" if e.table else "")
        out.append(f"| `{e.name}` | {where} | {md_text(e.description)} |")
    return "\n".join(out) + "\n"


def claude_section() -> list[str]:
    """The model Lumente uses, the models the installed SDK knows, and what each agent asks for."""
    from typing import get_args

    from anthropic.resources.messages import DEPRECATED_MODELS
    from anthropic.types.model_param import ModelParam

    from lumente_cli.agents.claude.client import DEFAULT_MODEL, DEFAULT_TIMEOUT_SECONDS
    from lumente_cli.agents.claude.mapper import EFFORT as MAPPER_EFFORT
    from lumente_cli.agents.claude.mapper import MAX_TOKENS as MAPPER_MAX_TOKENS
    from lumente_cli.agents.claude.agents import EFFORT, MAX_TOKENS

    known = [m for m in get_args(get_args(ModelParam)[0])]
    current = [m for m in known if m not in DEPRECATED_MODELS]
    out = [
        "",
        "## Claude",
        "",
        f"The default model is `{DEFAULT_MODEL}`; set `model` (or `LUMENTE_MODEL`) to use another. The installed",
        "`anthropic` SDK knows these model ids (Lumente warns once, with the end-of-life date, about one the SDK marks",
        "deprecated):",
        "",
        ", ".join(f"`{m}`" for m in current) + ".",
        "",
        "Deprecated: " + (", ".join(f"`{m}` (end of life {d})" for m, d in DEPRECATED_MODELS.items()) or "none") + ".",
        "",
        "Each agent asks for an **effort** (how hard the model thinks before it answers; current models think",
        "adaptively, and thinking counts toward `max_tokens`) and caps its reply with `max_tokens`, which is only a",
        "ceiling: tokens are billed as used. No sampling parameters (`temperature`, `top_p`) are sent.",
        "",
        "| agent | effort | max_tokens |",
        "| --- | --- | ---: |",
    ]
    for role, effort in EFFORT.items():
        out.append(f"| {role.replace('_', ' ')} | {effort} | {MAX_TOKENS[role]:,} |")
    out += [
        f"| concept mapper | {MAPPER_EFFORT} | {MAPPER_MAX_TOKENS:,} |",
        "",
        "A session makes nine requests (four questions, four verdicts, one coach note) plus one per hint and per own",
        "question. Each sends a few thousand input tokens (the system prompt, the part's material) and gets a few",
        "hundred output tokens back, more when the model thinks; `lumente -v practice` prints the session's calls and",
        "tokens, and `--json` puts them in `session_finished.usage`. Price them with your model's per-token price.",
        "",
        f"A request that gets no answer within {DEFAULT_TIMEOUT_SECONDS:g} s is not retried: Claude is switched off for",
        "the rest of that session and the offline agents answer. A dropped connection, a 5xx or a 529 is retried once;",
        "the same rejected request (a 4xx) twice also switches Claude off, and the server's own message is shown.",
        "`lumente doctor --online` checks the key and the model with one small request.",
    ]
    return out


def render_exit_codes() -> str:
    out = [
        "# Exit statuses",
        "",
        "<!-- Generated by scripts/generate_docs.py from lumente_cli/exitcodes.py. Do not edit by hand. -->",
        "",
        "Every `lumente` command ends with one of these statuses (the `ExitCode` enum).",
        "",
        "| status | name | meaning |",
        "| --- | --- | --- |",
    ]
    for code, name, text in exit_codes():
        out.append(f"| {code} | `{name}` | {md_text(text)} |")
    out += [
        "",
        "Errors print one line on standard error, `lumente: <message>`, usually followed by a hint line.",
        "Usage errors (an unknown option, a missing argument, a bad value) exit 2; so does",
        "`--provider claude` without an API key, since nothing was tried (5 is for a call to Claude that",
        "was needed and failed).",
        "`lumente doctor` exits 1 when any check fails; warnings alone exit 0.",
        "`lumente practice` exits 3 when scripted input ends before the session does (it is saved as paused)",
        "and 130 on Ctrl-C (saved too).",
        "`lumente check` exits 3 and 130 in the same cases, but a round is saved only when it ends, so a round",
        "stopped early leaves nothing behind and the next `lumente check` starts a new one.",
    ]
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------ all of it


def render_all() -> dict[str, str]:
    """Every generated file: path relative to the repository -> content."""
    tree = command_tree()
    files = {path: render_completion(shell) for shell, path in COMPLETIONS.items()}
    files["man/lumente.1"] = render_man(tree)
    files["docs/cli-reference.md"] = render_reference(tree)
    files["docs/configuration.md"] = render_configuration()
    files["docs/exit-codes.md"] = render_exit_codes()
    return files


def stale(root: Path = ROOT) -> list[str]:
    """The generated files that are missing or differ from a fresh generation."""
    return [rel for rel, text in render_all().items()
            if not (root / rel).exists() or (root / rel).read_text("utf-8") != text]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Generate completions, the man page and reference docs.")
    parser.add_argument("--check", action="store_true", help="only report stale files; exit 1 if any")
    args = parser.parse_args(argv)
    if args.check:
        out_of_date = stale()
        for rel in out_of_date:
            print(f"stale: {rel}", file=sys.stderr)
        if out_of_date:
            print("Run: python scripts/generate_docs.py", file=sys.stderr)
        return 1 if out_of_date else 0
    for rel, text in render_all().items():
        path = ROOT / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        old = path.read_text("utf-8") if path.exists() else None
        if old != text:
            path.write_text(text, "utf-8")
            print(f"wrote {rel}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
