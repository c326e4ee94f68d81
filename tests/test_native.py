"""The compiled rules core and search (chuhan.native): used when built, never stale.

`make` builds the mypyc modules outside src/; these tests check that a process really runs
them when they match their sources, falls back to the pure-Python modules when a source has
changed or ``CHUHAN_PURE_PYTHON`` is set, and that both builds play the same moves (A1).
"""

from __future__ import annotations

import importlib
import importlib.machinery
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from chuhan import native

PROBE = """
import json, chuhan.native as n
import chuhan.rules.board as board, chuhan.engine.search as search
from chuhan.engine import choose_move
from chuhan.rules import make_board
moves = {}
for variant in ("xiangqi", "janggi"):
    result = choose_move(make_board(variant), "advanced", nodes=3000)
    moves[variant] = [str(result.move), result.score, result.nodes, result.depth]
print(json.dumps({"files": [board.__file__, search.__file__], "reason": n.status().reason,
                  "active": n.status().active, "moves": moves}))
"""


def probe(**env: str) -> dict[str, object]:
    """What a fresh process with ``env`` imports and plays."""
    clean = {k: v for k, v in os.environ.items() if k not in (native.PURE_ENV, native.DIR_ENV)}
    out = subprocess.run(
        [sys.executable, "-c", PROBE],
        env=clean | env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    result: dict[str, object] = json.loads(out.stdout)
    return result


def built() -> bool:
    """Whether `make` compiled the modules here; False only on a machine that cannot."""
    manifest = native.native_dir() / native.MANIFEST
    assert manifest.exists(), f"no native build in {manifest.parent}: run `make install`"
    if json.loads(manifest.read_text())["compiled"]:
        return True
    assert native._no_compiler_reason() is not None, "a compiler is present but nothing was built"
    return False


def test_this_process_runs_the_build_it_was_given() -> None:
    """Compiled when built and up to date; pure Python when CHUHAN_PURE_PYTHON is set."""
    status = native.status()
    modules = [importlib.import_module(name) for name in native.MODULES]
    if os.environ.get(native.PURE_ENV):
        assert not status.active
        assert not any(native.is_compiled(m) for m in modules)
        return
    if built():
        assert status.active, status.reason
        assert all(native.is_compiled(m) for m in modules), [m.__file__ for m in modules]
    else:
        assert not any(native.is_compiled(m) for m in modules)


def test_compiled_and_pure_builds_play_the_same_moves() -> None:
    compiled = probe()
    pure = probe(**{native.PURE_ENV: "1"})
    assert all(str(f).endswith(".py") for f in pure["files"])  # type: ignore[attr-defined]
    assert native.PURE_ENV in str(pure["reason"])
    if built():
        assert compiled["active"], compiled["reason"]
        assert not any(str(f).endswith(".py") for f in compiled["files"])  # type: ignore[attr-defined]
    assert compiled["moves"] == pure["moves"]


def test_a_source_edited_after_the_build_switches_the_whole_group_to_pure_python(
    tmp_path: Path,
) -> None:
    if not built():
        return
    stale = tmp_path / "native"
    shutil.copytree(native.native_dir(), stale)
    manifest = json.loads((stale / native.MANIFEST).read_text())
    manifest["modules"]["chuhan.rules.board"]["sha256"] = "0" * 64  # board.py "edited"
    (stale / native.MANIFEST).write_text(json.dumps(manifest))
    result = probe(**{native.DIR_ENV: str(stale)})
    assert not result["active"]
    assert "board.py" in str(result["reason"])
    assert "changed" in str(result["reason"])
    assert all(str(f).endswith(".py") for f in result["files"])  # type: ignore[attr-defined]


def test_a_missing_or_partial_build_is_not_used(tmp_path: Path) -> None:
    assert "no build" in native.plan(tmp_path).reason
    manifest = {
        "compiled": True,
        "suffix": importlib.machinery.EXTENSION_SUFFIXES[0],
        "modules": {
            m: {"file": f"{m}.so", "sha256": native.source_hash(native.source_path(m))}
            for m in native.MODULES
        },
        "support": {},
    }
    (tmp_path / native.MANIFEST).write_text(json.dumps(manifest))
    status = native.plan(tmp_path)
    assert not status.active
    assert "missing compiled files" in status.reason


def test_a_board_with_moves_played_survives_pickle_and_deepcopy_in_either_build() -> None:
    """A board (its move history included) can be sent to another process or deep-copied, and
    the copy takes back the same moves: the compiled classes keep what the pure ones allow."""
    import copy
    import pickle

    from chuhan.rules import Move, make_board

    for variant in ("xiangqi", "janggi", "jieqi"):
        board = make_board(variant, seed=3) if variant == "jieqi" else make_board(variant)
        start = board.fen()
        for _ in range(4):
            board.push(Move.from_code(board.legal_codes()[3]))
        played = [str(move) for move in board.move_stack]
        for twin in (pickle.loads(pickle.dumps(board)), copy.deepcopy(board)):
            assert twin.fen() == board.fen(), variant
            assert [str(twin.pop()) for _ in range(4)] == played[::-1], variant
            assert twin.fen() == start, variant


def test_a_search_in_a_thread_lets_the_other_threads_of_its_process_run() -> None:
    """The AI worker searches in a thread while its event loop keeps the job's heartbeat and
    its Redis connection alive (server/ai/worker.py): the compiled search, which calls no
    Python code, must still hand the interpreter lock over now and then. Without that, a
    sleeping thread here woke once in the whole search (the shared-queue tests hung)."""
    import threading
    import time

    from chuhan.engine import choose_move
    from chuhan.rules import Move, make_board

    board = make_board("xiangqi")
    for text in ("a1a2", "a10a9"):  # out of the opening book: a real search
        board.push(Move.parse(text))
    done = threading.Event()

    def think() -> None:
        try:
            choose_move(board, "advanced", nodes=400_000)
        finally:
            done.set()

    thinker = threading.Thread(target=think)
    thinker.start()
    wakes = 0
    while not done.is_set():
        time.sleep(0.005)
        wakes += 1
    thinker.join()
    assert wakes >= 20, f"the other thread ran {wakes} times during the search"
