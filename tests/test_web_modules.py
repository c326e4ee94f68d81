"""The web client's modules (src/chuhan/web/js) import one another in one direction: no module
needs, through any chain of imports, a module that needs it (the home screen and its seek
card, the play view and the archive screen used to)."""

from __future__ import annotations

import re
from pathlib import Path

WEB_JS = Path(__file__).resolve().parent.parent / "src" / "chuhan" / "web" / "js"
IMPORT = re.compile(r'^import [^;]*? from "\./([\w]+\.js)";', re.MULTILINE)


def imports() -> dict[str, set[str]]:
    return {path.name: set(IMPORT.findall(path.read_text("utf-8"))) for path in WEB_JS.glob("*.js")}


def test_every_import_names_a_module_of_the_client() -> None:
    graph = imports()
    missing = sorted(
        f"{name} -> {target}"
        for name, targets in graph.items()
        for target in targets
        if target not in graph
    )
    assert not missing


def test_the_client_modules_have_no_import_cycle() -> None:
    graph = imports()
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        for target in sorted(graph.get(name, ())):
            if state.get(target) == 1:
                cycles.append([*path[path.index(target) :], target])
            elif target not in state:
                visit(target, [*path, target])
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    assert not cycles, f"import cycles among the web client's modules: {cycles}"
