"""The learner pseudonym: HMAC-SHA256 of the sign-in ID under a random local secret.

Memory only ever sees the pseudonym; the secret never leaves the 0600 file.
Every command derives it here: `learner_pseudonym` when it may make the secret,
`existing_pseudonym` when it must not (listing concepts, doctor).
"""

from __future__ import annotations

import getpass
import hashlib
import hmac
import os
import secrets
from pathlib import Path

from lumente_cli.errors import StorageError
from lumente_cli.paths import write_private_file

SECRET_BYTES = 32
# A shorter file is damaged (cut by a crash, or emptied), not a secret Lumente made.
MIN_SECRET_BYTES = 16
PSEUDONYM_HEX = 24


def load_or_create_secret(path: Path) -> bytes:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        data = None
    except OSError as exc:
        raise StorageError(f"cannot read the learner secret {path}: {exc.strerror or exc}.") from None
    if data is not None:
        # An empty file is a damaged secret, not a missing one: making a new one would
        # change the pseudonym and orphan everything memory holds.
        if len(data) < MIN_SECRET_BYTES:
            state = "empty" if not data else "too short to be one Lumente made"
            raise StorageError(
                f"the learner secret {path} is {state}.",
                hint="Restore it from a backup. Without one, delete the file and Lumente makes a new secret: "
                     "a new pseudonym, so earlier memory is no longer yours to read (erase it first with "
                     "`lumente memory forget` while the old secret still works, if you can).",
            )
        if os.stat(path).st_mode & 0o077:
            os.chmod(path, 0o600)
        return data
    try:
        return _publish_once(path, secrets.token_bytes(SECRET_BYTES))
    except OSError as exc:
        raise StorageError(f"cannot create the learner secret {path}: {exc.strerror or exc}.") from None


def _publish_once(path: Path, secret: bytes) -> bytes:
    """Create the secret file whole, unless another process got there first;
    either way return the secret now in the file. Two first runs at the same
    moment must not each keep a secret of their own: one of them would file
    its learner's memory under a pseudonym no later run can derive."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    write_private_file(tmp, secret)
    try:
        os.link(tmp, path)  # atomic, and fails if the file exists
    except FileExistsError:
        data = path.read_bytes()
        if len(data) >= MIN_SECRET_BYTES:
            return data
        os.replace(tmp, path)  # an empty or cut file from a crash: replace it
        return secret
    except OSError:  # no hard links on this file system: last writer wins, as before
        os.replace(tmp, path)
        return path.read_bytes()
    finally:
        tmp.unlink(missing_ok=True)
    return secret


def default_sign_in() -> str:
    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no user name in this environment (e.g. a bare container)
        return "learner"


def sign_in_or_default(sign_in: str) -> str:
    """The ID a pseudonym is derived from: the sign_in setting, or the OS user name when it is empty."""
    return sign_in or default_sign_in()


def pseudonym(secret: bytes, sign_in: str) -> str:
    """The one derivation every caller goes through (an empty `sign_in` is the OS user name)."""
    who = sign_in_or_default(sign_in)
    digest = hmac.new(secret, who.strip().encode("utf-8"), hashlib.sha256).hexdigest()
    return f"p_{digest[:PSEUDONYM_HEX]}"


def learner_pseudonym(secret_path: Path, sign_in: str) -> str:
    """The learner's pseudonym, making the secret on first use."""
    return pseudonym(load_or_create_secret(secret_path), sign_in)


def existing_pseudonym(secret_path: Path, sign_in: str) -> str | None:
    """The pseudonym if the secret already exists (never creates one), else None."""
    try:
        data = secret_path.read_bytes()
    except OSError:
        return None
    return pseudonym(data, sign_in) if len(data) >= MIN_SECRET_BYTES else None


def scope_of(pseudo: str) -> str:
    return f"learner/{pseudo}"
