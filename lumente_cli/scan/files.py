"""Which files of a project are scanned, and reading them safely.

Inside a git work tree the list is git's own (`git ls-files`), so `.gitignore` is
respected; elsewhere a walk that skips the folders no student wrote. Either way no
symlink is followed (a link out of the project, or a loop, is never entered) and
vendored, built and virtual-env folders are left out.
"""

from __future__ import annotations

import os
import stat
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

# Folders of code the student did not write, or of build output.
SKIPPED_DIRS = frozenset({
    ".git", "node_modules", "__pycache__", "dist", "build", "vendor", "third_party", ".tox", ".venv",
    "site-packages", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".hg", ".svn",
})
# A folder holding this file is a virtual environment.
VENV_MARKER = "pyvenv.cfg"
GIT_TIMEOUT_S = 10.0
BINARY_PROBE = 8192


@dataclass
class Listing:
    paths: list[str]  # relative, '/'-separated
    source: str  # "git" or "walk"
    tracked: frozenset[str] = frozenset()  # committed files (git only): a tracked .env is a risk
    skipped: dict[str, int] = field(default_factory=dict)  # reason -> count
    truncated: bool = False  # stopped at the file cap

    def skip(self, reason: str) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1


def list_files(root: Path, *, max_files: int) -> Listing:
    """The project's files, relative to `root`; at most `max_files` of them."""
    listing = _from_git(root)
    if listing is None:
        listing = Listing([], "walk")
        for rel in _walk(root, "", listing):
            listing.paths.append(rel)
            if len(listing.paths) >= max_files:
                listing.truncated = True
                break
        return listing
    if len(listing.paths) > max_files:
        listing.paths = listing.paths[:max_files]
        listing.truncated = True
    return listing


def _git(root: Path, *args: str) -> list[str] | None:
    try:
        proc = subprocess.run(["git", "-C", str(root), "ls-files", "-z", *args], capture_output=True,
                              timeout=GIT_TIMEOUT_S, check=False)
    except (OSError, subprocess.SubprocessError):  # no git, or it hung: walk instead
        return None
    if proc.returncode != 0:  # not a work tree
        return None
    return [p for p in proc.stdout.decode("utf-8", "surrogateescape").split("\0") if p]


def _from_git(root: Path) -> Listing | None:
    if not _inside_work_tree(root):
        return None
    tracked = _git(root, "--cached")
    untracked = _git(root, "--others", "--exclude-standard")
    if tracked is None or untracked is None:
        return None
    listing = Listing([], "git", frozenset(tracked))
    seen: set[str] = set()
    candidates = sorted(set(tracked) | set(untracked))
    venvs = {p.rsplit("/", 1)[0] + "/" for p in candidates if p.endswith("/" + VENV_MARKER)}
    for rel in candidates:
        if rel in seen:
            continue
        seen.add(rel)
        parts = rel.split("/")
        if any(part in SKIPPED_DIRS for part in parts[:-1]) or any(rel.startswith(v) for v in venvs):
            listing.skip("vendored")
            continue
        listing.paths.append(rel)
    return listing


def _inside_work_tree(root: Path) -> bool:
    try:
        proc = subprocess.run(["git", "-C", str(root), "rev-parse", "--is-inside-work-tree"], capture_output=True,
                              timeout=GIT_TIMEOUT_S, check=False)
    except (OSError, subprocess.SubprocessError):
        return False
    return proc.returncode == 0 and proc.stdout.strip() == b"true"


def _walk(root: Path, prefix: str, listing: Listing) -> Iterator[str]:
    try:
        entries = sorted(os.scandir(root / prefix if prefix else root), key=lambda e: e.name)
    except OSError:
        listing.skip("unreadable")
        return
    if prefix and any(e.name == VENV_MARKER for e in entries):
        listing.skip("vendored")
        return
    for entry in entries:
        rel = f"{prefix}/{entry.name}" if prefix else entry.name
        if entry.is_symlink():
            listing.skip("symlink")
        elif entry.is_dir(follow_symlinks=False):
            if entry.name in SKIPPED_DIRS:
                listing.skip("vendored")
            else:
                yield from _walk(root, rel, listing)
        elif entry.is_file(follow_symlinks=False):
            yield rel


def read_text(root: Path, rel: str, *, max_bytes: int) -> tuple[str | None, str | None]:
    """(text, None), or (None, why it was skipped): a symlink, too large, binary or unreadable."""
    path = os.path.join(root, rel)
    try:
        info = os.lstat(path)
    except OSError:
        return None, "unreadable"
    if stat.S_ISLNK(info.st_mode):
        return None, "symlink"
    if not stat.S_ISREG(info.st_mode):
        return None, "not_a_file"
    if info.st_size > max_bytes:
        return None, "too_large"
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None, "unreadable"
    try:  # raw reads: a file is read whole, once, so no buffer in between
        chunks, size = [], 0
        while size <= max_bytes:
            chunk = os.read(fd, max_bytes + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError:
        return None, "unreadable"
    finally:
        os.close(fd)
    if size > max_bytes:
        return None, "too_large"
    data = chunks[0] if len(chunks) == 1 else b"".join(chunks)
    if b"\0" in data[:BINARY_PROBE]:
        return None, "binary"
    return data.decode("utf-8", "replace"), None
