"""What a Python file imports and calls, and the built-in `code` checks, read from its
syntax tree (`ast`): a name in a comment or a string is never an import or a call.

Calls are resolved through the file's imports: `import jwt as j; j.encode(...)` and
`from jwt import encode; encode(...)` are both `jwt.encode`. A call whose first name
no import binds (a local variable, a builtin) is not resolved and not reported.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

SQL_WORDS = re.compile(r"(?i)\b(select|insert|update|delete|create|drop|alter|replace|with|merge)\b")
EXECUTES = frozenset({"execute", "executemany", "executescript", "raw"})
LOCKS = frozenset({
    "threading.Lock", "threading.RLock", "threading.Semaphore", "threading.BoundedSemaphore", "threading.Condition",
    "asyncio.Lock", "asyncio.Semaphore", "asyncio.BoundedSemaphore", "asyncio.Condition",
    "multiprocessing.Lock", "multiprocessing.RLock", "multiprocessing.Semaphore",
})
MEMOIZE = frozenset({"functools.lru_cache", "functools.cache", "functools.cached_property"})
WORKERS = frozenset({
    "threading.Thread", "multiprocessing.Process", "multiprocessing.Pool",
    "concurrent.futures.ThreadPoolExecutor", "concurrent.futures.ProcessPoolExecutor",
})
ENV_CALLS = frozenset({"os.environ.get", "os.getenv", "os.environ.setdefault", "dotenv.load_dotenv",
                        "dotenv.dotenv_values"})
JWT_DECODE = frozenset({"jwt.decode", "jose.jwt.decode"})
# Names a secret is assigned to: *_KEY, *SECRET*, *TOKEN*, password.
SECRET_NAME = re.compile(r"(?i)(^|_)key$|api_?key|secret|token|passw(or)?d|^pwd$")
_PLACEHOLDER = re.compile(r"(?i)^(x+|\*+|\.+|changeme|change[-_]me|example|dummy|test|secret|password|your[-_ ].*|"
                          r"<.*>|\$\{.*\}|\{\{.*\}\}|%\(.*\)s|none|null|todo|fixme)$")
_KNOWN_PREFIX = re.compile(r"^(sk-|sk_live_|rk_live_|pk_live_|ghp_|gho_|github_pat_|xox[abp]-|AKIA|AIza|glpat-)")


@dataclass
class PythonFacts:
    imports: list[tuple[str, int]] = field(default_factory=list)  # (module, line)
    calls: list[tuple[str, int]] = field(default_factory=list)  # (resolved dotted name, line)
    checks: dict[str, list[int]] = field(default_factory=dict)  # code check -> lines
    secret_values: dict[int, list[str]] = field(default_factory=dict)  # line -> literal values to mask

    def found(self, check: str, line: int) -> None:
        self.checks.setdefault(check, []).append(line)


def analyse(text: str) -> PythonFacts | None:
    """The file's imports, calls and code checks; None when it does not parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    facts = PythonFacts()
    _Reader(facts, _imports(tree.body, facts)).read(tree)
    return facts


def _imports(body: list[ast.stmt], facts: PythonFacts) -> dict[str, str]:
    """Every absolute import at module level (and in its if/try blocks), and the local name each
    binds -> the dotted name it stands for. Imports inside functions are found by the reader."""
    aliases: dict[str, str] = {}
    stack = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            _bind(node, aliases, facts)
        elif isinstance(node, ast.If | ast.Try | ast.With):
            stack.extend(node.body)
            stack.extend(getattr(node, "orelse", ()))
            stack.extend(getattr(node, "finalbody", ()))
            for handler in getattr(node, "handlers", ()):
                stack.extend(handler.body)
    return aliases


def _bind(node: ast.Import | ast.ImportFrom, aliases: dict[str, str], facts: PythonFacts | None) -> None:
    if isinstance(node, ast.Import):
        for alias in node.names:
            if facts is not None:
                facts.imports.append((alias.name, node.lineno))
            if alias.asname:
                aliases[alias.asname] = alias.name
            else:
                top = alias.name.split(".", 1)[0]
                aliases[top] = top
    elif node.level == 0 and node.module:
        if facts is not None:
            facts.imports.append((node.module, node.lineno))
        for alias in node.names:
            if alias.name == "*":
                continue
            if facts is not None:
                facts.imports.append((f"{node.module}.{alias.name}", node.lineno))
            aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"


def dotted(node: ast.AST, aliases: dict[str, str]) -> str | None:
    """`a.b.c` for a name or attribute chain whose first name an import binds."""
    attrs: list[str] = []
    while isinstance(node, ast.Attribute):
        attrs.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in aliases:
        return None
    return ".".join([aliases[node.id], *reversed(attrs)])


def _string_parts(node: ast.AST) -> str:
    """The literal text of a string expression (for telling SQL apart)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
    if isinstance(node, ast.BinOp):
        return _string_parts(node.left) + " " + _string_parts(node.right)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return _string_parts(node.func.value)
    return ""


def built_sql(node: ast.AST) -> bool:
    """SQL put together from pieces: an f-string with a value in it, `%`, `+` or `.format`."""
    if isinstance(node, ast.JoinedStr):
        built = any(isinstance(v, ast.FormattedValue) for v in node.values)
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod | ast.Add):
        built = True
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        built = isinstance(node.func.value, ast.Constant | ast.JoinedStr)
    else:
        return False
    return built and bool(SQL_WORDS.search(_string_parts(node)))


def looks_secret(name: str, value: str) -> bool:
    if not SECRET_NAME.search(name) or _PLACEHOLDER.match(value) or any(c.isspace() for c in value):
        return False
    if _KNOWN_PREFIX.match(value):
        return len(value) >= 12
    if re.fullmatch(r"[A-Z0-9_]+", value) or "/" in value or value.startswith(("http:", "https:")):
        return False  # an environment variable's name, a path, a URL
    if re.search(r"(?i)passw(or)?d|^pwd$", name):
        return len(value) >= 6
    return len(value) >= 12 and bool(re.search(r"[A-Za-z]", value)) and bool(re.search(r"\d", value))


class _Function:
    """What the reader keeps of one function while it reads the file."""

    __slots__ = ("node", "parent", "bound", "read", "built")

    def __init__(self, node: ast.AST, parent: _Function | None) -> None:
        self.node, self.parent = node, parent
        args = node.args  # type: ignore[attr-defined]
        self.bound = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
        self.bound |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
        self.read: set[str] = set()
        self.built: set[str] = set()  # names assigned SQL built from pieces


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
# Fields that hold only leaves the reader never looks at: Load/Store, operators, constants.
_LEAF_FIELDS = frozenset({"ctx", "op", "ops", "type_comment", "kind"})
_FIELDS: dict[type, tuple[str, ...]] = {}


def _children(node: ast.AST, kind: type) -> list[ast.AST]:
    """`ast.iter_child_nodes(node)`, in its order, less the leaves that cannot matter."""
    fields = _FIELDS.get(kind)
    if fields is None:
        fields = _FIELDS[kind] = tuple(f for f in kind._fields if f not in _LEAF_FIELDS)  # type: ignore[attr-defined]
    children: list[ast.AST] = []
    for name in fields:
        value = getattr(node, name, None)
        if type(value) is list:
            children += [v for v in value if isinstance(v, ast.AST) and type(v) is not ast.Constant]
        elif isinstance(value, ast.AST) and type(value) is not ast.Constant:
            children.append(value)
    return children


class _Reader:
    """One pass over the tree, with the enclosing function of every node at hand."""

    def __init__(self, facts: PythonFacts, aliases: dict[str, str]) -> None:
        self.facts, self.aliases = facts, aliases
        self.module_built: set[str] = set()

    def read(self, tree: ast.Module) -> None:
        functions: list[_Function] = []
        stack: list[tuple[ast.AST, _Function | None]] = [(tree, None)]
        while stack:
            node, scope = stack.pop()
            kind = type(node)
            if kind is ast.Name:
                if scope is not None:
                    (scope.bound if isinstance(node.ctx, ast.Store) else scope.read).add(node.id)  # type: ignore[attr-defined]
                continue
            if kind in _FUNCTIONS:
                if scope is not None and kind is not ast.Lambda:
                    scope.bound.add(node.name)  # type: ignore[attr-defined]
                self._function(node, scope)
                inner = _Function(node, scope)
                functions.append(inner)
                # Pushed in reverse, so that they are read in the order of the source.
                body = [node.body] if kind is ast.Lambda else node.body  # type: ignore[attr-defined]
                stack.extend((child, inner) for child in reversed(body))  # type: ignore[arg-type]
                args = node.args  # type: ignore[attr-defined]
                outside = [*getattr(node, "decorator_list", ()), *args.defaults,
                           *(d for d in args.kw_defaults if d is not None)]
                stack.extend((child, scope) for child in reversed(outside))
                continue
            if kind is ast.Call:
                self._call(node, scope)  # type: ignore[arg-type]
            elif kind is ast.Assign:
                for target in node.targets:  # type: ignore[attr-defined]
                    self._assigned(target, node.value, node.lineno, scope)  # type: ignore[attr-defined]
            elif kind is ast.AnnAssign and node.value is not None:  # type: ignore[attr-defined]
                self._assigned(node.target, node.value, node.lineno, scope)  # type: ignore[attr-defined]
            elif kind is ast.Dict:
                for key, value in zip(node.keys, node.values):  # type: ignore[attr-defined]
                    if isinstance(key, ast.Constant) and isinstance(key.value, str):
                        self._secret(key.value, value, value.lineno)
            elif kind is ast.Subscript:
                if dotted(node.value, self.aliases) == "os.environ":  # type: ignore[attr-defined]
                    self.facts.found("env_read", node.lineno)  # type: ignore[attr-defined]
            elif kind is ast.ClassDef:
                if any(dotted(base, self.aliases) in WORKERS for base in node.bases):  # type: ignore[attr-defined]
                    self.facts.found("thread_or_process", node.lineno)  # type: ignore[attr-defined]
            elif kind is ast.Import or kind is ast.ImportFrom:
                if scope is not None:  # an import inside a function binds for the whole file here
                    _bind(node, self.aliases, self.facts)  # type: ignore[arg-type]
                continue
            stack.extend((child, scope) for child in reversed(_children(node, kind)))
        for function in functions:
            parent = function.parent
            if parent is not None and (function.read - function.bound) & parent.bound:
                self.facts.found("nested_capture", function.node.lineno)  # type: ignore[attr-defined]

    def _function(self, node: ast.AST, scope: _Function | None) -> None:
        if type(node) is ast.AsyncFunctionDef:
            self.facts.found("async_def", node.lineno)
        for decorator in getattr(node, "decorator_list", ()):
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            if dotted(target, self.aliases) in MEMOIZE:
                self.facts.found("memoize_decorator", decorator.lineno)

    def _assigned(self, target: ast.AST, value: ast.AST, line: int, scope: _Function | None) -> None:
        name = target.id if isinstance(target, ast.Name) else target.attr if isinstance(target, ast.Attribute) else None
        if name is None:
            return
        if built_sql(value):
            (scope.built if scope is not None else self.module_built).add(name)
        self._secret(name, value, line)

    def _secret(self, name: str, value: ast.AST, line: int) -> None:
        if isinstance(value, ast.Constant) and isinstance(value.value, str) and looks_secret(name, value.value):
            self.facts.found("hardcoded_secret", line)
            self.facts.secret_values.setdefault(line, []).append(value.value)

    def _call(self, node: ast.Call, scope: _Function | None) -> None:
        func = node.func
        name = dotted(func, self.aliases)
        if name is not None:
            self.facts.calls.append((name, node.lineno))
            if name in LOCKS:
                self.facts.found("lock_use", node.lineno)
            elif name in WORKERS or (name.startswith("concurrent.futures.") and name.endswith("Executor")):
                self.facts.found("thread_or_process", node.lineno)
            elif name in ENV_CALLS:
                self.facts.found("env_read", node.lineno)
            elif name in JWT_DECODE and _unverified(node):
                self.facts.found("jwt_decode_unverified", node.lineno)
        if scope is not None:
            own = scope.node
            if (type(func) is ast.Name and func.id == getattr(own, "name", None)) or (
                    type(func) is ast.Attribute and func.attr == getattr(own, "name", None)
                    and type(func.value) is ast.Name and func.value.id in ("self", "cls")):
                self.facts.found("self_call", node.lineno)
        if self._executes_built_sql(node, name, scope):
            self.facts.found("sql_string_execute", node.lineno)
        for keyword in node.keywords:
            if keyword.arg:
                self._secret(keyword.arg, keyword.value, keyword.value.lineno)

    def _executes_built_sql(self, node: ast.Call, name: str | None, scope: _Function | None) -> bool:
        runs_sql = (isinstance(node.func, ast.Attribute) and node.func.attr in EXECUTES) or (
            name is not None and name.startswith("sqlalchemy") and name.endswith(".text"))
        if not runs_sql or not node.args:
            return False
        query = node.args[0]
        if isinstance(query, ast.Name):
            return query.id in self.module_built or (scope is not None and query.id in scope.built)
        return built_sql(query)


def _unverified(call: ast.Call) -> bool:
    for keyword in call.keywords:
        value = keyword.value
        if keyword.arg == "verify" and isinstance(value, ast.Constant) and value.value is False:
            return True
        if keyword.arg == "options" and isinstance(value, ast.Dict):
            for key, item in zip(value.keys, value.values):
                if isinstance(key, ast.Constant) and key.value == "verify_signature" and \
                        isinstance(item, ast.Constant) and item.value is False:
                    return True
        if keyword.arg == "algorithms" and isinstance(value, ast.List | ast.Tuple):
            if any(isinstance(e, ast.Constant) and str(e.value).lower() == "none" for e in value.elts):
                return True
    return False
