"""Engine analysis (N4): how long a 100-ply xiangqi game takes to analyse, and how much
running analyses delay a live game's AI reply.

1. In this process, the same 101 positions of one 100-ply game (engine self-play, seeded)
   evaluated at the server's node budget per position (``--nodes``, default 8000) with our
   engine and with Debian's Fairy-Stockfish (``/usr/games/fairy-stockfish``) through the
   same UCI client the server uses: seconds per game and the ratio.
2. A real ``chuhan serve`` (SQLite, ``--workers`` AI workers): a beginner AI game played
   move after move over HTTP, the AI's reply timed from sending the move to its ``move``
   event on the game socket. First alone (the anchor), then while ``--analyses`` analyses
   of imported 100-ply games run (through ``POST /api/games/{id}/analysis``). Printed: p50
   and p95 of both and their ratio (goal: the beginner's p95 under 0.3 s while two run), and
   how far the analyses got meanwhile.

    .venv/bin/python bench/analysis.py [--nodes 8000] [--replies 30] [--analyses 2]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

import httpx
from websockets.sync.client import connect

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from chuhan.engine import choose_move
from chuhan.engine.analysis import evaluate
from chuhan.rules import make_board
from chuhan.rules.record import write_record
from rooms_client import running_server

FAIRY_STOCKFISH = "/usr/games/fairy-stockfish"


def hundred_ply_game(seed: int = 1) -> list[str]:
    """100 plies of seeded self-play (beginner against intermediate, a fixed node budget);
    a move that would end the game is replaced by the first legal one that does not."""
    board = make_board("xiangqi")
    moves: list[str] = []
    while len(moves) < 100:
        level = "intermediate" if len(moves) % 2 else "beginner"
        chosen = str(choose_move(board, level, seed=seed * 1000 + len(moves), nodes=1500).move)
        for move in [chosen, *sorted(str(m) for m in board.legal_moves)]:
            board.push(move)
            if board.outcome() is None and board.legal_moves:
                break
            board.pop()
        else:
            raise RuntimeError(f"every move ends the game after {len(moves)} plies")
        moves.append(move)
    return moves


def time_engine(moves: list[str], nodes: int, engine: str | None) -> tuple[float, str]:
    board = make_board("xiangqi")
    started = time.perf_counter()
    name = ""
    for index in range(len(moves) + 1):
        name = evaluate(board, nodes, engine).engine
        if index < len(moves):
            board.push(moves[index])
    return time.perf_counter() - started, name


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def replies(url: str, count: int, seed: int) -> list[float]:
    """Seconds from sending a move to the AI's reply, ``count`` times (beginner AI games)."""
    rng = random.Random(seed)
    client = httpx.Client(base_url=url, timeout=30)
    client.get("/api/me")
    cookie = "; ".join(f"{k}={v}" for k, v in client.cookies.items())
    times: list[float] = []
    while len(times) < count:
        body = {"kind": "ai", "variant": "xiangqi", "level": "beginner", "color": "red"}
        state = client.post("/api/games", json={**body, "abandon_pending": True}).json()
        ws_url = url.replace("http", "ws") + f"/ws/games/{state['id']}"
        with connect(ws_url, additional_headers={"Cookie": cookie}) as ws:
            ws.send(json.dumps({"id": "h", "type": "hello", "last_seq": None}))
            while state["status"] == "ongoing" and len(times) < count:
                move = rng.choice(sorted(state["legal_moves"]))
                ply = state["ply"]
                started = time.perf_counter()
                sent = client.post(
                    f"/api/games/{state['id']}/moves", json={"ply": ply, "move": move}
                )
                state = sent.json()["state"]
                if state["status"] != "ongoing":
                    break
                while True:
                    event = json.loads(ws.recv(timeout=30))
                    if event.get("type") not in ("move", "end"):
                        continue
                    if event.get("type") == "move" and event.get("ply", -1) == ply + 1:
                        times.append(time.perf_counter() - started)
                        break
                    if event.get("type") == "end":
                        break
                state = client.get(f"/api/games/{state['id']}").json()  # not timed
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=8_000)
    parser.add_argument("--replies", type=int, default=30)
    parser.add_argument("--analyses", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.2f}")

    moves = hundred_ply_game()
    ours, _ = time_engine(moves, args.nodes, None)
    fairy, name = time_engine(moves, args.nodes, FAIRY_STOCKFISH)
    print(f"\n1. a 100-ply xiangqi game, 101 positions at {args.nodes} nodes each")
    print(f"   our engine        {ours:7.2f} s  ({ours / 101 * 1000:.0f} ms per position)")
    print(f"   {name:<17} {fairy:7.2f} s  ({fairy / 101 * 1000:.0f} ms per position)")
    print(f"   ours / Fairy-Stockfish: {ours / fairy:.1f}x")

    record = write_record(_played(moves), "iccs", result="1/2-1/2", termination="agreement")
    with tempfile.TemporaryDirectory() as data:
        env = {"CHUHAN_AI_WORKERS": str(args.workers), "CHUHAN_ANALYSIS_NODES": str(args.nodes)}
        with running_server(Path(data), **env) as url:
            replies(url, 3, seed=99)  # warm the workers up
            alone = replies(url, args.replies, seed=1)
            analyst = httpx.Client(base_url=url, timeout=30)
            analyst.get("/api/me").raise_for_status()  # the first visit: its identity (Z6)
            games = [
                analyst.post("/api/records", content=record.encode()).json()["id"]
                for _ in range(args.analyses)
            ]
            started = time.perf_counter()
            for game in games:
                analyst.post(f"/api/games/{game}/analysis")
            loaded = replies(url, args.replies, seed=1)
            during = time.perf_counter() - started
            progress = [analyst.get(f"/api/games/{g}/analysis").json()["progress"] for g in games]
            while any(
                analyst.get(f"/api/games/{g}/analysis").json()["status"] != "done" for g in games
            ):
                time.sleep(0.5)
            total = time.perf_counter() - started
    print(f"\n2. beginner AI replies on a server with {args.workers} AI workers")
    for label, values in (("alone", alone), (f"with {args.analyses} analyses", loaded)):
        print(
            f"   {label:<18} p50 {percentile(values, 0.5):.3f} s   "
            f"p95 {percentile(values, 0.95):.3f} s   ({len(values)} replies)"
        )
    ratio = percentile(loaded, 0.95) / percentile(alone, 0.95)
    print(f"   p95 with analyses / alone: {ratio:.2f}x")
    shown = ", ".join(f"{p:.0%}" for p in progress)
    print(f"   the analyses reached {shown} during the {during:.1f} s of replies")
    print(f"   and were done after {total:.1f} s ({args.analyses} x 101 positions)")
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


def _played(moves: list[str]):  # type: ignore[no-untyped-def]
    board = make_board("xiangqi")
    board.push_many(moves)
    return board


if __name__ == "__main__":
    main()
