"""The ``chuhan`` command line (filled in by the rules issue)."""

from __future__ import annotations


def main(argv: list[str] | None = None) -> int:
    print("chuhan: serve | moves | perft | game | uci")
    return 0
