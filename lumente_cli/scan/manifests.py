"""Dependency names from a project's manifests and lockfiles, per ecosystem.

Each reader takes a file's text and returns the names it declares, with the line
each is on when the format makes that cheap (a lockfile names thousands of
packages: the line of a name is looked up only when a concept asks for it).
A file that does not parse declares nothing: the scan goes on without it.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass

from lumente_cli.concepts.detection import Ecosystem

_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_PEP503 = re.compile(r"[-_.]+")


@dataclass(frozen=True)
class Declared:
    ecosystem: Ecosystem
    name: str  # normalised with `normalise`
    line: int | None  # None: look it up with `line_of` if it is ever shown


def normalise(ecosystem: str, name: str) -> str:
    """Names as a registry compares them: PyPI per PEP 503, crates with '-' and '_' alike,
    the others case-insensitively."""
    name = name.strip().lower()
    if ecosystem == "python":
        return _PEP503.sub("-", name)
    if ecosystem == "cargo":
        return name.replace("_", "-")
    return name


def line_of(text: str, name: str) -> int:
    """The first line that names `name` (1 when none does, e.g. a name spelt differently)."""
    pattern = re.compile(r"(?<![\w@/.-])" + re.escape(name).replace(r"\-", "[-_.]") + r"(?![\w-])", re.IGNORECASE)
    m = pattern.search(text)
    return text.count("\n", 0, m.start()) + 1 if m else 1


def reader_for(rel: str) -> Callable[[str], list[Declared]] | None:
    """The reader for a manifest or lockfile path, or None for any other file."""
    name = rel.rsplit("/", 1)[-1]
    if name in _READERS:
        return _READERS[name]
    lower = name.lower()
    if lower.endswith(".txt") and (lower.startswith("requirements") or "/requirements/" in f"/{rel.lower()}"):
        return _requirements
    return None


def _declared(ecosystem: Ecosystem, names: list[str]) -> list[Declared]:
    return [Declared(ecosystem, normalise(ecosystem, n), None) for n in names if n]


def _requirement_name(spec: str) -> str:
    m = _REQUIREMENT.match(spec)
    return m.group(1) if m else ""


def _toml(text: str) -> dict:
    try:
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, UnicodeError):
        return {}


def _table(value: object) -> dict:
    return value if isinstance(value, dict) else {}


def _strings(value: object) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _pyproject(text: str) -> list[Declared]:
    data = _toml(text)
    project = _table(data.get("project"))
    specs = _strings(project.get("dependencies"))
    for extra in _table(project.get("optional-dependencies")).values():
        specs += _strings(extra)
    for group in _table(data.get("dependency-groups")).values():
        specs += _strings(group)
    names = [_requirement_name(s) for s in specs]
    poetry = _table(_table(data.get("tool")).get("poetry"))
    tables = [poetry.get("dependencies"), poetry.get("dev-dependencies")]
    tables += [_table(g).get("dependencies") for g in _table(poetry.get("group")).values()]
    for table in tables:
        names += [n for n in _table(table) if n.lower() != "python"]
    return _declared("python", names)


def _requirements(text: str) -> list[Declared]:
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.split(" #", 1)[0].strip()
        if not line or line.startswith(("#", "-", "git+", "http:", "https:", "file:", ".", "/")):
            continue
        name = _requirement_name(line)
        if name:
            out.append(Declared("python", normalise("python", name), number))
    return out


def _setup_cfg(text: str) -> list[Declared]:
    import configparser

    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return []
    specs: list[str] = []
    if parser.has_option("options", "install_requires"):
        specs += parser.get("options", "install_requires").splitlines()
    if parser.has_section("options.extras_require"):
        for _, value in parser.items("options.extras_require"):
            specs += value.splitlines()
    return _declared("python", [_requirement_name(s) for s in specs if s.strip()])


def _pipfile(text: str) -> list[Declared]:
    data = _toml(text)
    return _declared("python", [*_table(data.get("packages")), *_table(data.get("dev-packages"))])


def _lock_packages(ecosystem: Ecosystem) -> Callable[[str], list[Declared]]:
    def read(text: str) -> list[Declared]:  # poetry.lock, uv.lock, Cargo.lock: [[package]] name = ...
        packages = _toml(text).get("package")
        if not isinstance(packages, list):
            return []
        return _declared(ecosystem, [str(p.get("name", "")) for p in packages if isinstance(p, dict)])

    return read


def _json(text: str) -> dict:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def _package_json(text: str) -> list[Declared]:
    data = _json(text)
    names: list[str] = []
    for key in ("dependencies", "devDependencies", "peerDependencies", "optionalDependencies"):
        names += list(_table(data.get(key)))
    return _declared("npm", names)


def _package_lock(text: str) -> list[Declared]:
    data = _json(text)
    names = [key.rsplit("node_modules/", 1)[-1] for key in _table(data.get("packages")) if "node_modules/" in key]
    names += list(_table(data.get("dependencies")))  # lockfile v1
    return _declared("npm", sorted(set(names)))


# `lodash@^4.17.21:` and `"@babel/core@^7.0.0", "@babel/core@^7.1.0":` (yarn 1), `"lodash@npm:^4":` (berry)
_YARN_ENTRY = re.compile(r'^"?(@?[^@\s"]+)@')


def _yarn_lock(text: str) -> list[Declared]:
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        if line and not line[0].isspace() and not line.startswith("#") and line.rstrip().endswith(":"):
            m = _YARN_ENTRY.match(line)
            if m and m.group(1) != "__metadata":
                out.append(Declared("npm", m.group(1).lower(), number))
    return out


# `  /lodash@4.17.21:` (v6), `  lodash@4.17.21:` (v9), `  '@babel/core@7.0.0':`, `  /lodash/4.17.21:` (v5)
_PNPM_ENTRY = re.compile(r"""^\s{2}['"]?/?(@[^@/\s'"]+/[^@/\s'"]+|[^@/\s'"]+)[@/]\d""")


def _pnpm_lock(text: str) -> list[Declared]:
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        m = _PNPM_ENTRY.match(line)
        if m:
            out.append(Declared("npm", m.group(1).lower(), number))
    return out


_GO_REQUIRE = re.compile(r"^\s*(?:require\s+)?([\w.-]+\.[\w.-]+/[^\s]+)\s+v\d")


def _go_mod(text: str) -> list[Declared]:
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        m = _GO_REQUIRE.match(line.split("//", 1)[0])
        if m:
            out.append(Declared("go", m.group(1).lower(), number))
    return out


def _cargo_toml(text: str) -> list[Declared]:
    data = _toml(text)
    sections = [data, _table(data.get("workspace")), *(_table(t) for t in _table(data.get("target")).values())]
    names: list[str] = []
    for section in sections:
        for key in ("dependencies", "dev-dependencies", "build-dependencies"):
            for name, spec in _table(section.get(key)).items():
                package = _table(spec).get("package")  # `jwt = { package = "jsonwebtoken" }`
                names.append(package if isinstance(package, str) else name)
    return _declared("cargo", names)


_GEM = re.compile(r"""^\s*gem\s+["']([\w.-]+)["']""")


def _gemfile(text: str) -> list[Declared]:
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        m = _GEM.match(line)
        if m:
            out.append(Declared("ruby", m.group(1).lower(), number))
    return out


_READERS: dict[str, Callable[[str], list[Declared]]] = {
    "pyproject.toml": _pyproject,
    "setup.cfg": _setup_cfg,
    "Pipfile": _pipfile,
    "poetry.lock": _lock_packages("python"),
    "uv.lock": _lock_packages("python"),
    "package.json": _package_json,
    "package-lock.json": _package_lock,
    "npm-shrinkwrap.json": _package_lock,
    "yarn.lock": _yarn_lock,
    "pnpm-lock.yaml": _pnpm_lock,
    "go.mod": _go_mod,
    "Cargo.toml": _cargo_toml,
    "Cargo.lock": _lock_packages("cargo"),
    "Gemfile": _gemfile,
}
