"""SPEC U8: our Spanish and Portuguese texts are our own words, not the seed pages'.

Needs the seed pages, which live outside the repository (``../shared/seeds`` in CI), so
``.ci/run`` runs it and the test suite does not. Exits 1 naming the first copied run of
50 characters (case and spacing ignored).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

LEARN = Path(__file__).resolve().parents[1] / "src" / "chuhan" / "web" / "learn"
WINDOW = 50


def texts_of(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for value in node.values():
            yield from texts_of(value)
    elif isinstance(node, list):
        for value in node:
            yield from texts_of(value)
    elif isinstance(node, str):
        yield node


def flat(text: str) -> str:
    return " ".join(text.lower().split())


def main(seeds: Path) -> int:
    pages = sorted(seeds.glob("*.txt"))
    if not pages:
        print(f"no seed pages in {seeds}: cannot check the texts are our own", file=sys.stderr)
        return 1
    seen: set[str] = set()
    for page in pages:
        text = flat(page.read_text())
        seen.update(text[i : i + WINDOW] for i in range(len(text) - WINDOW + 1))
    ours = [LEARN / "text" / "es.json", LEARN / "text" / "pt.json", LEARN / "lessons.json"]
    for path in ours:
        for text in texts_of(json.loads(path.read_text())):
            line = flat(text)
            for i in range(len(line) - WINDOW + 1):
                if line[i : i + WINDOW] in seen:
                    print(f"{path.name} copies a seed page: {line[i : i + WINDOW]!r}")
                    return 1
    print(f"own words: {len(ours)} files checked against {len(pages)} seed pages")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
