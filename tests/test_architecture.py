"""The shape of the sources: dependencies point one way, the board is used through
its public API.

Both checks read the sources with :mod:`ast`, so they hold for every module, including ones no
other test imports.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
PACKAGE = SRC / "chuhan"
RULES = PACKAGE / "rules"
# The classes whose private members stay inside rules/: the board and its variants.
BOARD_CLASSES = ("Board", "JanggiBoard", "JieqiBoard")

# Today's import cycles in the server, kept to be removed. Listed so that any
# other cycle, or a module joining one of these, fails the test at once; delete an entry when
# its cycle is gone (the test then keeps it gone).
KNOWN_CYCLES: set[frozenset[str]] = set()


def source_files() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def board_private_members() -> set[str]:
    """Names starting with ``_`` (not dunders) defined in the board classes of rules/."""
    names: set[str] = set()
    for path in RULES.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ClassDef) and node.name in BOARD_CLASSES:
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        names.add(item.name)
                    elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                        names.add(item.target.id)
                    elif isinstance(item, ast.Assign):
                        names.update(t.id for t in item.targets if isinstance(t, ast.Name))
                for sub in ast.walk(node):  # instance attributes: self._x = ...
                    if (
                        isinstance(sub, ast.Attribute)
                        and isinstance(sub.value, ast.Name)
                        and sub.value.id == "self"
                        and isinstance(sub.ctx, ast.Store)
                    ):
                        names.add(sub.attr)
    return {n for n in names if n.startswith("_") and not n.endswith("__")}


def own_private_members(tree: ast.Module) -> set[str]:
    """Private names a module's own classes define (``self._search`` of the searcher is its
    own business, not the board's)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    names.add(item.name)
            for sub in ast.walk(node):
                if (
                    isinstance(sub, ast.Attribute)
                    and isinstance(sub.value, ast.Name)
                    and sub.value.id == "self"
                    and isinstance(sub.ctx, ast.Store)
                ):
                    names.add(sub.attr)
    return names


def test_no_private_board_member_used_outside_rules() -> None:
    """The engine, the server and the tools use the board's public move-code
    API; its private members may change without breaking them."""
    private = board_private_members()
    assert private, "no private member found: the scan of rules/ is broken"
    offences: list[str] = []
    for path in source_files():
        if RULES in path.parents:
            continue
        tree = ast.parse(path.read_text(), str(path))
        own = own_private_members(tree)
        offences.extend(
            f"{path.relative_to(SRC)}:{node.lineno} .{node.attr}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and node.attr in private and node.attr not in own
        )
    assert not offences, "private Board members used outside rules/:\n" + "\n".join(offences)


def import_graph() -> dict[str, set[str]]:
    """Module -> the modules of ``chuhan`` it imports, at any level of the file (type-only
    and function-local imports included: each is a dependency a reader must follow)."""
    modules = {module_name(p): p for p in source_files()}
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    anchor = ".".join(parts[: len(parts) - node.level + 1])
                    base = f"{anchor}.{base}" if base else anchor
                # ``from pkg import mod`` depends on pkg.mod; ``from pkg import name`` on pkg.
                targets = [
                    f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                    for alias in node.names
                ]
            for target in targets:
                # The deepest module the name refers to (``from . import x`` may name one).
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name and target.startswith("chuhan"):
                    graph[name].add(target)
    return graph


def strongly_connected(graph: dict[str, set[str]]) -> list[set[str]]:
    """Tarjan's components with more than one module: each is an import cycle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[set[str]] = []
    counter = 0

    def visit(node: str) -> None:
        nonlocal counter
        index[node] = low[node] = counter
        counter += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in graph[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.add(top)
                if top == node:
                    break
            if len(component) > 1:
                out.append(component)

    for node in graph:
        if node not in index:
            visit(node)
    return out


SERVER = "chuhan.server"


def package_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The server's part of the module graph folded to packages: ``chuhan.server.rooms.core``
    counts as ``rooms``, a top-level module such as ``chuhan.server.records`` as ``records``
    (and the package's own ``__init__`` as ``server``). Imports inside one package and imports
    of modules outside the server (the engine, the rules) are left out."""

    def fold(module: str) -> str | None:
        if module == SERVER:
            return "server"
        if not module.startswith(SERVER + "."):
            return None
        return module[len(SERVER) + 1 :].split(".")[0]

    packages: dict[str, set[str]] = {}
    for module, targets in graph.items():
        source = fold(module)
        if source is None:
            continue
        edges = packages.setdefault(source, set())
        edges.update(t for t in map(fold, targets) if t is not None and t != source)
    return packages


def test_no_import_cycle_in_src() -> None:
    """Dependencies point one way (server -> engine -> rules; inside a package, no
    two modules that need each other), except the cycles listed in KNOWN_CYCLES."""
    graph = import_graph()
    assert "chuhan.rules.geometry" in graph["chuhan.rules.board"]  # the graph sees imports
    cycles = [frozenset(c) for c in strongly_connected(graph)]
    unexpected = [sorted(c) for c in cycles if c not in KNOWN_CYCLES]
    assert not unexpected, f"import cycles: {unexpected}"


def test_no_server_package_needs_another_that_needs_it() -> None:
    """The server read as packages (tools/package_cycles.py prints them): no cycle at all, so
    every package has a place in the layers (the import-linter contract in pyproject.toml)."""
    packages = package_graph(import_graph())
    assert "records" in packages
    assert "rooms" in packages["app"]  # the fold sees packages
    cycles = [sorted(c) for c in strongly_connected(packages)]
    assert not cycles, f"server packages that need each other: {cycles}"


def test_dependencies_point_inward() -> None:
    """STYLE: server -> engine -> rules; rules import neither, the engine not the server."""
    graph = import_graph()
    wrong = [
        (module, target)
        for module, targets in graph.items()
        for target in targets
        if (
            module.startswith("chuhan.rules")
            and target.startswith(("chuhan.engine", "chuhan.server"))
        )
        or (module.startswith("chuhan.engine") and target.startswith("chuhan.server"))
    ]
    assert not wrong, f"imports pointing outward: {wrong}"


# native.py chooses the build before anything else runs (CHUHAN_PURE_PYTHON,
# CHUHAN_NATIVE_DIR: the interpreter's own switches, read on ``import chuhan``); everything the
# server, the CLI and the workers need from the environment is a Settings field.
ENVIRONMENT_READERS = {"chuhan/server/settings.py", "chuhan/native.py"}


def test_the_environment_is_read_by_settings_only() -> None:
    """One way to configure: a variable read anywhere else is a setting the
    settings.py does not list and tests cannot override."""
    readers: list[str] = []
    for path in source_files():
        name = str(path.relative_to(SRC))
        readers.extend(
            f"{name}:{node.lineno}"
            for node in ast.walk(ast.parse(path.read_text(), str(path)))
            if (
                isinstance(node, ast.Attribute)
                and node.attr in ("environ", "getenv", "putenv")
                and isinstance(node.value, ast.Name)
                and node.value.id == "os"
                and name not in ENVIRONMENT_READERS
            )
        )
    assert not readers, f"the environment read outside settings.py: {readers}"


def test_the_janggi_setups_are_listed_once() -> None:
    """J3: the four horse/elephant orders are defined in rules/janggi.py
    only (the server's models, the AI, the CLI and the rooms use it); the web client's one
    copy, in screens.js, is the same list in the same order (the first is its default)."""
    from chuhan.rules.janggi import SETUPS

    assert len(SETUPS) == 4
    copies: list[str] = []
    for path in source_files():
        if path == RULES / "janggi.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            items = node.elts if isinstance(node, (ast.Tuple, ast.List)) else []
            named = [i.value for i in items if isinstance(i, ast.Constant) and i.value in SETUPS]
            if len(named) >= 2:
                assert isinstance(node, (ast.Tuple, ast.List))
                copies.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert not copies, f"janggi setups listed again: {copies}"
    screens = (PACKAGE / "web" / "js" / "screens.js").read_text()
    match = re.search(r"export const SETUPS = \[([^\]]*)\]", screens)
    assert match, "screens.js no longer lists the setups"
    assert tuple(re.findall(r'"(\w+)"', match.group(1))) == SETUPS


def test_the_learn_pages_reuse_the_clients_helpers() -> None:
    """U8: the learn pages take languages, placeholders, elements and
    announcements from the web client's i18n.js and ui.js instead of keeping copies."""
    web = PACKAGE / "web"
    shared = set()
    for module in ("i18n.js", "ui.js"):
        text = (web / "js" / module).read_text()
        shared |= set(re.findall(r"export (?:async )?(?:function|const) (\w+)", text))
    assert {"announce", "el", "LANGUAGES", "detectLanguage", "fill"} <= shared
    copies = [
        f"{path.name}: {name}"
        for path in sorted((web / "learn").glob("*.js"))
        for name in re.findall(r"(?:function|const|let) (\w+)", path.read_text())
        if name in shared
    ]
    assert not copies, f"learn pages define the client's helpers again: {copies}"
