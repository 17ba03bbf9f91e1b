"""What a scan finds: each concept with its evidence (file, line, a short snippet,
the reason) and a score to rank by, and the scan's own figures and limits.

A snippet is the evidence line, shortened and sanitised, with anything that looks
like a secret value replaced by ****: a secret in the code is located, never shown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from lumente_cli.text import sanitize

SNIPPET_CHARS = 80
MASK = "****"
# Kinds weigh differently: a dependency or a code structure says more about what a
# project is built on than one import or call, and a line pattern says least.
WEIGHTS = {"dependency": 3.0, "code": 3.0, "import": 2.0, "call": 2.0, "pattern": 1.0}

_SECRET_NAME = r"[\w.-]*(?:key|secret|token|passw(?:or)?d|pwd|credential)[\w.-]*"
# A quoted value given to a secret-like name, in code or config: `API_KEY = "..."`, `"token": '...'`.
_QUOTED_SECRET = re.compile(rf"""(?i)(\b{_SECRET_NAME}["']?\s*(?:=|:|=>)\s*)("[^"\n]*"|'[^'\n]*'|`[^`\n]*`)""")
# In a config file (.env, YAML, INI) any value given to one: `DB_PASSWORD=hunter2`, `token: abc`.
_BARE_SECRET = re.compile(rf"""(?i)(\b{_SECRET_NAME}["']?\s*[=:]\s*)([^\s,;#]+)""")
_QUOTED = re.compile(r"""(["'`])([A-Za-z0-9+/_=-]{20,})\1""")
_TOKEN = re.compile(r"(?<![\w/.-])[A-Za-z0-9+/_=-]{24,}(?![\w/.-])")
_KNOWN = re.compile(r"\b(?:sk-|sk_live_|rk_live_|ghp_|gho_|github_pat_|xox[abp]-|AKIA|AIza|glpat-)[\w-]{6,}")


def _looks_random(value: str) -> bool:
    return bool(re.search(r"[A-Za-z]", value)) and bool(re.search(r"\d", value))


def mask_secrets(line: str, values: tuple[str, ...] = (), *, code: bool = True) -> str:
    """`line` with known secret values, values given to secret-like names, and long
    random-looking tokens replaced by ****. In code only quoted values are masked
    (`token = jwt.encode(...)` stays readable); in config files bare ones too."""
    for value in values:
        if value:
            line = line.replace(value, MASK)
    line = _KNOWN.sub(MASK, line)
    line = _QUOTED_SECRET.sub(lambda m: m.group(1) + m.group(2)[0] + MASK + m.group(2)[-1], line)
    if not code:
        line = _BARE_SECRET.sub(lambda m: m.group(1) + (m.group(2) if m.group(2) == MASK else MASK), line)
    line = _QUOTED.sub(lambda m: m.group(1) + MASK + m.group(1) if _looks_random(m.group(2)) else m.group(), line)
    return _TOKEN.sub(lambda m: MASK if _looks_random(m.group()) else m.group(), line)


def snippet(line: str, values: tuple[str, ...] = (), *, code: bool = True) -> str:
    """The evidence line as shown: masked, sanitised, spaces collapsed, at most SNIPPET_CHARS."""
    text = " ".join(sanitize(mask_secrets(line, values, code=code)).split())
    return text if len(text) <= SNIPPET_CHARS else text[: SNIPPET_CHARS - 1].rstrip() + "…"


@dataclass(frozen=True)
class Evidence:
    path: str  # relative to the scanned folder
    line: int
    kind: str  # the signal's kind: dependency, import, call, pattern, code
    reason: str
    snippet: str
    risky: bool

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "kind": self.kind, "reason": self.reason,
                "snippet": self.snippet, "risky": self.risky}


@dataclass(frozen=True)
class Finding:
    concept: str
    name: str
    score: float
    risky: bool
    reasons: tuple[str, ...]  # each fired signal's reason, the weightiest first
    files: int  # distinct files with evidence
    signals: int  # distinct signals that fired
    occurrences: int  # every piece of evidence found, shown or not
    evidence: tuple[Evidence, ...]  # the first ones, risky first

    def to_json(self) -> dict[str, Any]:
        return {"concept": self.concept, "name": self.name, "score": self.score, "risky": self.risky,
                "reasons": list(self.reasons), "files": self.files, "signals": self.signals,
                "occurrences": self.occurrences, "evidence": [e.to_json() for e in self.evidence]}


@dataclass(frozen=True)
class ScanResult:
    root: str
    listed_by: str  # "git" (git ls-files) or "walk"
    files_listed: int
    files_scanned: int
    skipped: dict[str, int]
    stopped: tuple[str, ...]  # the limits hit: "files", "time"
    seconds: float
    findings: tuple[Finding, ...] = field(default_factory=tuple)

    def to_json(self, limit: int | None = None) -> dict[str, Any]:
        shown = self.findings if limit is None else self.findings[:limit]
        return {"root": self.root, "listed_by": self.listed_by, "files_listed": self.files_listed,
                "files_scanned": self.files_scanned, "skipped": dict(self.skipped), "stopped": list(self.stopped),
                "seconds": round(self.seconds, 3), "found": len(self.findings),
                "findings": [f.to_json() for f in shown]}
