"""``chuhan puzzles load`` (SPEC B9): the data files into a fresh SQLite database by the
server's own loading path, the counts per variant printed; loading again adds nothing."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from chuhan.cli import main
from chuhan.server.db.puzzle_store import PuzzleStore
from chuhan.server.db.store import Store

FIXTURES = Path(__file__).parent / "data" / "puzzles"
LINE = re.compile(r"(\w+): (\d+) in the files, (\d+) added, (\d+) in the table")


def counts(text: str) -> dict[str, tuple[int, int, int]]:
    """``{variant: (in the files, added, in the table)}`` from the command's output."""
    found = {m[1]: (int(m[2]), int(m[3]), int(m[4])) for m in LINE.finditer(text)}
    assert len(text.strip().splitlines()) == len(found), text
    return found


def test_puzzles_load_fills_a_fresh_database_and_prints_the_counts_B9(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("DATABASE_URL", "CHUHAN_DB_SCHEMA", "CHUHAN_PUZZLES_DIR"):
        monkeypatch.delenv(name, raising=False)
    folder = tmp_path / "puzzles"
    shutil.copytree(FIXTURES, folder)
    with (folder / "xiangqi.jsonl").open("a") as extra:
        extra.write('{"id": "xiangqi-broken", "variant": "xiangqi"}\n')  # left out, said so
    expected = {
        variant: sum(1 for line in (FIXTURES / f"{variant}.jsonl").open() if line.strip())
        for variant in ("xiangqi", "janggi", "jieqi")
    }
    data = tmp_path / "data"
    argv = ["puzzles", "load", "--dir", str(folder), "--data-dir", str(data)]
    assert main(argv) == 0
    first = counts(capsys.readouterr().out)
    assert first == {v: (n, n, n) for v, n in expected.items()}
    store = Store(f"sqlite:///{data / 'chuhan.sqlite3'}")
    try:
        assert PuzzleStore(store).counts() == expected  # what the server then serves
    finally:
        store.dispose()
    assert main(argv) == 0  # again: every puzzle is there already
    again = counts(capsys.readouterr().out)
    assert again == {v: (n, 0, n) for v, n in expected.items()}


def test_puzzles_load_refuses_a_missing_folder_B9(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nowhere"
    argv = ["puzzles", "load", "--dir", str(missing), "--data-dir", str(tmp_path / "data")]
    assert main(argv) == 2
    assert f"no folder {missing}" in capsys.readouterr().err
    assert not (tmp_path / "data").exists()  # no database made for nothing
