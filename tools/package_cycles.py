#!/usr/bin/env python3
"""The server's import graph read as packages: which packages need each other.

tests/test_architecture.py's module graph (every ``chuhan`` import, type-only and
function-local ones included) folded so that ``chuhan.server.rooms.core`` counts as ``rooms``
and a top-level module such as ``chuhan.server.records`` as ``records``. Prints each strongly
connected component of more than one package (a package cycle) and the size of the largest:

    .venv/bin/python tools/package_cycles.py          # components, then "largest: N"
    .venv/bin/python tools/package_cycles.py --edges  # also each package's imports
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from test_architecture import import_graph, package_graph, strongly_connected


def main(argv: list[str]) -> int:
    packages = package_graph(import_graph())
    cycles = sorted(strongly_connected(packages), key=len, reverse=True)
    if "--edges" in argv:
        for package in sorted(packages):
            print(f"{package} -> {' '.join(sorted(packages[package])) or '-'}")
    for component in cycles:
        print(f"cycle of {len(component)}: {' '.join(sorted(component))}")
    print(f"server packages: {len(packages)}; largest cycle: {max(map(len, cycles), default=0)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
