"""`lumente login ID` and `lumente whoami`."""

from __future__ import annotations

from typing import Annotated

import typer

from lumente_cli.cli.common import handle_errors, out_console, print_json
from lumente_cli.errors import UsageError

MAX_SIGN_IN = 200


@handle_errors
def login(
    sign_in: Annotated[str, typer.Argument(metavar="ID", help="Your sign-in ID (a user name or an email); it stays on this machine.")],
) -> None:
    """Set the sign-in ID your learner pseudonym is derived from."""
    from lumente_cli.memory.pseudonym import learner_pseudonym
    from lumente_cli.paths import current
    from lumente_cli.settings import write_setting
    from lumente_cli.views.account import show_signed_in

    text = sign_in.strip()
    if not text or len(text) > MAX_SIGN_IN or any(ord(c) < 32 for c in text):
        raise UsageError(f"a sign-in ID must be 1 to {MAX_SIGN_IN} printable characters.")
    write_setting("sign_in", text)
    show_signed_in(out_console(), learner_pseudonym(current().secret, text))


@handle_errors
def whoami(
    json_out: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """Show your learner pseudonym and memory scope (never the secret)."""
    from lumente_cli.views.account import show_identity
    from lumente_cli.workspace import Workspace

    ws = Workspace()
    backend = ws.memory_backend()
    info = {
        "sign_in": ws.sign_in,
        "sign_in_source": ws.settings.values["sign_in"].source if ws.settings["sign_in"] else "os user",
        "pseudonym": ws.pseudonym,
        "scope": ws.scope,
        "memory": backend.kind,
        "memory_where": backend.where,
    }
    if json_out:
        print_json(info)
    else:
        show_identity(out_console(), info)
