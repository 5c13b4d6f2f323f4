"""The house rules, checked: one home per concept, small modules and functions, the layers of
the import contracts, no import circles, imports at the top of their module.

See docs/architecture.md.  Every check is a function of a source root, so the fence tests at the
end can run them on a copy of ``src/komaken`` with one break put in, and see each check fail.
The layers are import-linter contracts (``[tool.importlinter]`` in pyproject.toml), run by
``lint-imports``; the checks here cover what a contract cannot say.

Sizes count code lines only: docstrings, comments and blank lines are free, so a module or
function cannot be brought under a cap by trimming its explanation.  Numba kernels (``@njit``
functions) may be long: splitting a search loop across calls would cost speed.
"""

from __future__ import annotations

import ast
import io
import os
import re
import shutil
import subprocess
import tokenize
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from conftest import needs_program

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "komaken"
#: Code lines (no docstrings, comments or blank lines) a module and a function may have.
MAX_MODULE_LINES = 420
MAX_FUNCTION_LINES = 55
#: Modules allowed over the limit, with the reason.
BIG_MODULES = {"shogi/_kernels.py": "the numba rules kernels: one compilation unit"}
#: Functions allowed over the limit, with the reason; an entry that is no longer over it fails.
LONG_FUNCTIONS = {"shogi/notation.py:parse_japanese": "the Japanese move grammar read in one pass, one branch per mark"}
#: The packages that decide what to do by asking the registries, never by a game's type or name.
CALLERS = ("cli", "lab", "players")
#: Game packages: a game may name itself and its own variants.
GAME_PACKAGES = ("shogi", "chess", "reversi", "tictactoe")
#: Comparisons with a game or variant name outside the game's package, ``file:function`` -> count.
NAME_CHECKS = {
    # CSA, KIF/KI2 and a bare USI move list write the standard start only for standard shogi
    "records/csa.py:_Reader._start": 1,
    "records/_csa_write.py:_position_lines": 1,
    "records/record.py:GameRecord.usi": 1,
    "records/_japanese.py:handicap_name": 1,
    # USI: `setoption name UCI_Variant` is sent for every variant but standard shogi
    "players/usi.py:UsiPlayer.choose": 1,
}
#: ``getattr(x, "attr", default)`` in the callers, ``file:function`` -> count.
DUCK_TYPES = {
    "cli/play.py:PrintObserver.move": 1,  # a player's last search, shown when the player kept one
    "players/usi.py:UsiPlayer.__del__": 1,  # __del__ also runs on an object whose __init__ failed
}
#: Import circles (strongly connected parts of the import graph: imports inside functions and the
#: packages an import runs first included).  A circle not listed here, or one that grew, fails; so
#: does an entry that no longer matches a circle.  The two left are the lab report's, which its
#: rewrite removes.
IMPORT_CIRCLES = [
]
#: Heavy dependencies an import inside a function may defer, with their import time (numpy already
#: loaded, idle 2-core machine; ``python benchmarks/architecture.py --imports``), each needed by
#: few calls.  starlette and uvicorn (0.06 s each) are not heavy: the page imports them at the top.
HEAVY = {
    "matplotlib": "0.14 s, pyplot 0.39 s: only a report's figures draw",
    "scipy": "0.63 s for scipy.stats, 0.33 s for scipy.optimize: only a report's tests and curve fits",
    "statsmodels": "0.86 s (statsmodels.api 1.25 s): only a value fit's regression",
    "distributed": "0.32 s, and an optional extra (cluster): only a run on a Dask cluster",
}
#: Imports inside functions that defer a HEAVY package, ``file:function`` -> the package.  Any
#: other import belongs at the top of its module (order the modules, or split one, to get there).
DEFERRED_IMPORTS = {
    "lab/document.py:pyplot": "matplotlib",
    "lab/results.py:_freeman_halton": "scipy",
    "lab/results.py:_chi2_p": "scipy",
    "lab/stats.py:p_value_even": "scipy",
    "shogi/engine/tune.py:fit_k": "scipy",
    "shogi/engine/tune.py:fit_theta": "scipy",
    "lab/valuestudy/laws.py:saturation_law": "scipy",
    "lab/valuestudy/laws.py:hill_law": "scipy",
    "lab/valuestudy/fit.py:_glm": "statsmodels",
    "lab/runner.py:_Dask.__init__": "distributed",
    "lab/runner.py:_Dask.wait_first": "distributed",
}
#: The contracts' configuration; ``lint-imports`` reads it.
CONTRACTS = ROOT / "pyproject.toml"


@dataclass(frozen=True, eq=False)  # one object per text (see _module): hashed by identity
class Module:
    name: str  # path under the source root: "lab/runner.py"
    text: str
    tree: ast.Module
    code: frozenset[int]  # the line numbers that hold code

    @property
    def dotted(self) -> str:
        return "komaken." + self.name.removesuffix(".py").replace("/", ".").removesuffix(".__init__")

    def code_lines(self, first: int, last: int) -> int:
        return sum(first <= n <= last for n in self.code)


def _docstring_lines(tree: ast.Module) -> set[int]:
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(
                    first.value.value, str):
                out |= set(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return out


def _code_lines(text: str, tree: ast.Module) -> frozenset[int]:
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING,
            tokenize.ENDMARKER}
    lines: set[int] = set()
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type not in skip:
            lines |= set(range(tok.start[0], tok.end[0] + 1))
    return frozenset(lines - _docstring_lines(tree))


@cache
def _module(name: str, text: str) -> Module:
    tree = ast.parse(text)
    return Module(name, text, tree, _code_lines(text, tree))


def modules(root: Path = SRC) -> dict[str, Module]:
    """Every module under ``root``; a file parsed once per text (the fence tests change one file)."""
    return {str(p.relative_to(root)): _module(str(p.relative_to(root)), p.read_text(encoding="utf-8"))
            for p in sorted(root.rglob("*.py"))}


def _functions(node: ast.AST, prefix: str = "") -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Every function under ``node`` with its qualified name (``Class.method``, ``outer.inner``)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
            yield prefix + child.name, child
            yield from _functions(child, f"{prefix}{child.name}.")
        elif isinstance(child, ast.ClassDef):
            yield from _functions(child, f"{prefix}{child.name}.")
        else:
            yield from _functions(child, prefix)


def _owner(module: Module, line: int) -> str:
    """``file:function`` of the innermost function holding ``line`` (``file:<module>`` outside any)."""
    best = "<module>"
    for qual, fn in _functions(module.tree):
        if fn.lineno <= line <= (fn.end_lineno or fn.lineno):
            best = qual  # functions come outer first, so the last hit is the innermost
    return f"{module.name}:{best}"


def _counted(hits: list[tuple[str, str]], allowed: dict[str, int], what: str) -> list[str]:
    """Problems: hits beyond what ``allowed`` lists for their place, and allowances not used up."""
    seen: dict[str, int] = {}
    for where, _ in hits:
        seen[where] = seen.get(where, 0) + 1
    out = [f"{what}: {where}: {text}" for where, text in hits if seen[where] > allowed.get(where, 0)]
    out += [f"stale allowance for {what}: {where} (allowed {n}, found {seen.get(where, 0)})"
            for where, n in allowed.items() if seen.get(where, 0) < n]
    return out


def _game_names(root: Path) -> set[str]:
    """The built-in games (``komaken.games.BUILTIN``) and shogi's built-in variants, read from the source."""
    names, found = set(), modules(root)
    for node in ast.walk(found["games.py"].tree):
        if isinstance(node, ast.AnnAssign | ast.Assign) and "BUILTIN" in ast.unparse(node).split("=")[0]:
            if isinstance(node.value, ast.Dict):
                names |= {s for k in node.value.keys if k is not None for s in _strings(k)}
    for node in ast.walk(found["shogi/variant.py"].tree):  # Variant(name="minishogi", ...)
        if isinstance(node, ast.keyword) and node.arg == "name":
            names |= _strings(node.value)
    return names


def _strings(node: ast.expr) -> set[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return {s for e in node.elts for s in _strings(e)}
    return set()


def _names_a_game(node: ast.expr) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "name") or (
        isinstance(node, ast.Name) and node.id in ("game", "game_name", "variant", "variant_name"))


def name_checks(root: Path = SRC) -> list[str]:
    """``spec.name == "chess"``, ``game != "shogi"``, ``v.name in ("shogi", ...)`` outside the games."""
    games = frozenset(_game_names(root))
    hits = [hit for m in modules(root).values() if m.name.split("/")[0] not in GAME_PACKAGES
            for hit in _name_hits(m, games)]
    return _counted(hits, NAME_CHECKS, "a game-name check (ask the game's spec or variant instead)")


@cache
def _name_hits(module: Module, games: frozenset[str]) -> list[tuple[str, str]]:
    hits = []
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Compare) and all(
                isinstance(op, ast.Eq | ast.NotEq | ast.In | ast.NotIn) for op in node.ops):
            sides = [node.left, *node.comparators]
            if any(_names_a_game(s) for s in sides) and any(_strings(s) & games for s in sides):
                hits.append((_owner(module, node.lineno), ast.unparse(node)))
    return hits


def duck_types(root: Path = SRC) -> list[str]:
    """``hasattr(x, ...)`` and ``getattr(x, "attr", default)`` in the callers."""
    hits = [hit for m in modules(root).values() if m.name.split("/")[0] in CALLERS for hit in _duck_hits(m)]
    return _counted(hits, DUCK_TYPES, "duck typing (use a protocol, a base class or the registry)")


@cache
def _duck_hits(module: Module) -> list[tuple[str, str]]:
    return [(_owner(module, node.lineno), ast.unparse(node)) for node in ast.walk(module.tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and (
                node.func.id == "hasattr" or (node.func.id == "getattr" and len(node.args) == 3))]


#: Game packages whose own positions keep arrays under the same private names (chess's Board has
#: ``_bd``/``_st`` of its own); they are still checked for imports of the shogi kernels.
OWN_KERNEL_STATE = ("chess/",)


def kernel_state_leaks(root: Path = SRC) -> list[str]:
    """The kernel arrays of a position read outside shogi (importing the kernels is the
    ``kernels`` contract's)."""
    state = re.compile(r"\._(bd|hd|st|hh|hist)\b")
    return [f"{name} reaches into the shogi kernels; use Position.kernel_state()"
            for name, module in modules(root).items()
            if not name.startswith(("shogi/", *OWN_KERNEL_STATE)) and state.search(module.text)]


def big_modules(root: Path = SRC) -> list[str]:
    found = modules(root)
    out = [f"{name}: {len(m.code)} code lines (at most {MAX_MODULE_LINES})" for name, m in found.items()
           if len(m.code) > MAX_MODULE_LINES and name not in BIG_MODULES]
    return out + [f"stale BIG_MODULES entry: {name}" for name in BIG_MODULES
                  if name not in found or len(found[name].code) <= MAX_MODULE_LINES]


def _is_kernel(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any("jit" in ast.unparse(d) for d in fn.decorator_list)


def function_sizes(root: Path = SRC) -> dict[str, int]:
    """Code lines of every function but the numba kernels, by ``file:qualified.name``."""
    return {where: n for m in modules(root).values() for where, n in _function_sizes(m)}


@cache
def _function_sizes(module: Module) -> list[tuple[str, int]]:
    return [(f"{module.name}:{qual}", module.code_lines(fn.lineno, fn.end_lineno or fn.lineno))
            for qual, fn in _functions(module.tree) if not _is_kernel(fn)]


def long_functions(root: Path = SRC) -> list[str]:
    sizes = function_sizes(root)
    out = [f"{where}: {n} code lines (at most {MAX_FUNCTION_LINES})" for where, n in sizes.items()
           if n > MAX_FUNCTION_LINES and where not in LONG_FUNCTIONS]
    out += [f"stale LONG_FUNCTIONS entry: {where} has {sizes.get(where, 0)} code lines" for where in LONG_FUNCTIONS
            if sizes.get(where, 0) <= MAX_FUNCTION_LINES]
    return out


class _Imports(ast.NodeVisitor):
    """Every import of a module, inside functions too (``inner``: their lines and modules); not
    the ones under ``if TYPE_CHECKING:``."""

    def __init__(self, module: Module) -> None:
        self.found, self.depth = set[str](), 0
        self.inner: list[tuple[int, str]] = []
        self.package = module.dotted if module.name.endswith("__init__.py") else module.dotted.rpartition(".")[0]

    def visit_If(self, node: ast.If) -> None:
        if "TYPE_CHECKING" not in ast.unparse(node.test):
            self.generic_visit(node)
        else:
            for child in node.orelse:
                self.visit(child)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Import(self, node: ast.Import) -> None:
        self.found |= {a.name for a in node.names}
        self.inner += [(node.lineno, a.name) for a in node.names] if self.depth else []

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = node.module or ""
        if node.level:
            parent = ".".join(self.package.split(".")[: len(self.package.split(".")) - node.level + 1])
            base = f"{parent}.{base}" if base else parent
        self.found |= {base} | {f"{base}.{a.name}" for a in node.names}
        self.inner += [(node.lineno, base)] if self.depth else []


@cache
def _imports(module: Module) -> tuple[set[str], list[tuple[int, str]]]:
    visitor = _Imports(module)
    visitor.visit(module.tree)
    return visitor.found, visitor.inner


@cache
def _inner_imports(module: Module) -> list[tuple[str, str]]:
    """``(file:function, module)`` of every import inside a function."""
    return [(_owner(module, line), name) for line, name in _imports(module)[1]]


def _with_parents(name: str) -> set[str]:
    """``a.b.c`` and the packages Python runs first when it is imported: ``a``, ``a.b``."""
    parts = name.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts) + 1)}


def import_graph(root: Path = SRC) -> tuple[dict[str, set[str]], int]:
    """Which komaken modules each module imports, the packages an import runs first included
    (``from a.b import c`` runs ``a/__init__`` too; a module's own parents left out: they run
    before it whatever they import), and how many imports sit inside functions."""
    graph, inside = {}, 0
    for module in modules(root).values():
        graph[module.dotted], inner = _imports(module)
        inside += sum(name.startswith("komaken") for _, name in inner)
    known = set(graph)
    return {m: {d for dep in deps for d in _with_parents(dep) if d in known and d != m and not m.startswith(d + ".")}
            for m, deps in graph.items()}, inside


def import_circles(root: Path = SRC) -> list[set[str]]:
    """The strongly connected parts (more than one module) of the import graph, by Tarjan."""
    graph, _ = import_graph(root)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[set[str]] = []

    def visit(m: str) -> None:
        index[m] = low[m] = len(index)
        stack.append(m)
        for d in sorted(graph[m]):
            if d not in index:
                visit(d)
                low[m] = min(low[m], low[d])
            elif d in stack:
                low[m] = min(low[m], index[d])
        if low[m] == index[m]:
            part = set()
            while True:
                d = stack.pop()
                part.add(d)
                if d == m:
                    break
            if len(part) > 1:
                out.append(part)

    for m in sorted(graph):
        if m not in index:
            visit(m)
    return sorted(out, key=lambda part: sorted(part))


def new_import_circles(root: Path = SRC) -> list[str]:
    found = import_circles(root)
    out = [f"import circle not in IMPORT_CIRCLES: {sorted(part)}" for part in found if part not in IMPORT_CIRCLES]
    out += [f"stale IMPORT_CIRCLES entry: {sorted(part)}" for part in IMPORT_CIRCLES if part not in found]
    return out


def _is_kind(node: ast.expr) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "kind") or (
        isinstance(node, ast.Name) and node.id == "kind")


def web_game_knowledge(root: Path = SRC) -> list[str]:
    """The web page branches on no game's kind: it shows every game from its GameSpec (that it
    imports no game package is the ``web`` contract's)."""
    games = frozenset(_game_names(root))
    out = []
    for name, module in modules(root).items():
        if not name.startswith("web/"):
            continue
        for node in ast.walk(module.tree):
            sides = [node.left, *node.comparators] if isinstance(node, ast.Compare) else []
            if any(_is_kind(s) for s in sides) and any(_strings(s) & games for s in sides):
                out.append(f"{_owner(module, node.lineno)}: a game-kind branch: {ast.unparse(node)}")
    return out


def inner_imports(root: Path = SRC) -> list[str]:
    """Imports inside functions: only those that defer a HEAVY package, listed in
    DEFERRED_IMPORTS."""
    hits = [hit for m in modules(root).values() for hit in _inner_imports(m)]
    deferred = {(where, name) for where, name in hits
                if name.split(".")[0] in HEAVY and DEFERRED_IMPORTS.get(where) == name.split(".")[0]}
    out = _counted([hit for hit in hits if hit not in deferred], {},
                   "an import inside a function (put it at the top of the module)")
    out += [f"stale DEFERRED_IMPORTS entry: {where} imports no {package} inside it"
            for where, package in DEFERRED_IMPORTS.items()
            if package not in HEAVY or not any(w == where and n.split(".")[0] == package for w, n in deferred)]
    return out


def import_contracts(root: Path = SRC) -> list[str]:
    """The broken import-linter contracts (CONTRACTS) over the package at ``root``, one line per
    illegal import, as ``lint-imports`` reports them."""
    lint = needs_program("lint-imports")
    env = {**os.environ, "PYTHONPATH": str(root.parent)}
    proc = subprocess.run([lint, "--no-cache", "--no-logo", str(CONTRACTS)], cwd=root.parent, env=env,
                          capture_output=True, text=True, timeout=300)
    if proc.returncode == 0:
        return []
    report = proc.stdout + proc.stderr
    return [line.strip() for line in report.splitlines() if "->" in line or "not allowed" in line] or [report]


CHECKS: dict[str, Callable[[Path], list[str]]] = {
    "name_checks": name_checks, "duck_types": duck_types, "kernel_state_leaks": kernel_state_leaks,
    "big_modules": big_modules, "long_functions": long_functions, "new_import_circles": new_import_circles,
    "web_game_knowledge": web_game_knowledge, "inner_imports": inner_imports, "import_contracts": import_contracts,
}


def test_no_game_name_checks() -> None:
    assert not name_checks(), "\n".join(name_checks())


def test_no_duck_typing_in_the_callers() -> None:
    assert not duck_types(), "\n".join(duck_types())


def test_kernel_state_stays_inside_shogi() -> None:
    assert not kernel_state_leaks(), "\n".join(kernel_state_leaks())


def test_modules_are_small() -> None:
    assert not big_modules(), "\n".join(big_modules())


def test_functions_are_small() -> None:
    assert not long_functions(), "\n".join(long_functions())


def test_the_web_page_knows_no_game() -> None:
    assert not web_game_knowledge(), "\n".join(web_game_knowledge())


def test_no_new_import_circles() -> None:
    _, inside = import_graph()
    print(f"{len(import_circles())} import circles allowed, {inside} komaken imports inside functions")
    assert not new_import_circles(), "\n".join(new_import_circles())


def test_imports_inside_functions_only_defer_heavy_packages() -> None:
    assert not inner_imports(), "\n".join(inner_imports())


def test_the_import_contracts_hold() -> None:
    assert not import_contracts(), "\n".join(import_contracts())


# The fence holds: each kind of break, put into a copy of the source, fails its check, and only it.

_LONG_BODY = "".join(f"    x{i} = {i}\n" for i in range(MAX_FUNCTION_LINES + 1))
_BIG_MODULE = "".join(f"def f{i}() -> int:\n    return {i}\n\n\n" for i in range(MAX_MODULE_LINES // 2 + 1))
#: A break: the check that must catch it, the file it is appended to, its text, and a word the
#: check's report must name.
BREAKS = {
    "a game-name check": ("name_checks", "cli/_fence.py", "def pick(spec):\n    return spec.name == 'chess'\n",
                          "_fence"),
    "a duck type": ("duck_types", "lab/_fence.py", "def moves(x):\n    return getattr(x, 'moves', None)\n", "_fence"),
    "kernel arrays read outside shogi": ("kernel_state_leaks", "lab/_fence.py", "def board(p):\n    return p._bd\n",
                                         "_fence"),
    # two modules of one layer that import each other: no contract is broken, a circle is made
    "an import circle": ("new_import_circles", "players/random.py", "\nfrom komaken.players import boardgames\n",
                         "komaken.players.random"),
    "a long function": ("long_functions", "players/_fence.py", f"def long():\n{_LONG_BODY}    return 0\n", "_fence"),
    "a big module": ("big_modules", "records/_fence.py", _BIG_MODULE, "_fence"),
    "a game-kind branch on the page": ("web_game_knowledge", "web/_fence.py",
                                       "def board(info):\n    return info.kind == 'shogi'\n", "_fence"),
    "an import inside a function": ("inner_imports", "records/_fence.py",
                                    "def parse(text):\n    import json\n\n    return json.loads(text)\n", "_fence"),
    "a heavy import at a place not listed": ("inner_imports", "cli/_fence.py",
                                             "def draw():\n    import matplotlib\n\n    return matplotlib\n", "_fence"),
    "a lower layer imports the lab": ("import_contracts", "players/_fence.py", "from komaken.lab import runner\n",
                                      "_fence"),
    "the rules import a player": ("import_contracts", "shogi/_fence.py", "from komaken.players import engine\n",
                                  "_fence"),
    "one game imports another": ("import_contracts", "chess/_fence.py", "from komaken.reversi import engine\n",
                                 "_fence"),
    "the page imports a game": ("import_contracts", "web/_fence.py", "from komaken.shogi import position\n", "_fence"),
    "the game loop imports the USI client": ("import_contracts", "match.py", "\nfrom komaken.usi import client\n",
                                             "komaken.match"),
    "the lab imports the shogi kernels": ("import_contracts", "lab/_fence.py", "from komaken.shogi import _kernels\n",
                                          "_fence"),
}


@pytest.mark.parametrize("name", sorted(BREAKS))
def test_the_fence_holds(name: str, tmp_path: Path) -> None:
    check, file, text, word = BREAKS[name]
    root = tmp_path / "komaken"
    shutil.copytree(SRC, root, ignore=shutil.ignore_patterns("__pycache__"))
    with (root / file).open("a", encoding="utf-8") as f:
        f.write(text)
    problems = CHECKS[check](root)
    assert problems and any(word in p for p in problems), problems
    for other, fn in CHECKS.items():  # the break is this check's alone
        if other != check:
            assert not fn(root), (other, fn(root))


def test_every_check_has_a_break() -> None:
    assert {check for check, *_ in BREAKS.values()} == set(CHECKS)


def test_sizes_count_code_not_docstrings_or_comments(tmp_path: Path) -> None:
    root = tmp_path / "komaken"
    (root / "lab").mkdir(parents=True)
    (root / "games.py").write_text("BUILTIN = {'shogi': 'komaken.shogi'}\n", encoding="utf-8")
    doc = '    """' + "\n" * (2 * MAX_FUNCTION_LINES) + '    """\n'
    notes = "    # why\n\n" * MAX_FUNCTION_LINES
    (root / "lab" / "quiet.py").write_text(f"def f():\n{doc}{notes}    return 1\n", encoding="utf-8")
    assert function_sizes(root) == {"lab/quiet.py:f": 2}
    assert modules(root)["lab/quiet.py"].code == {1, 4 * MAX_FUNCTION_LINES + 3}
