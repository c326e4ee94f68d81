"""Does one record import freeze the server? (SPEC Z7)

Starts a real ``chuhan serve`` (SQLite in a temporary folder) from ``--src`` (default: this
checkout; give another checkout's ``src`` to measure it the same way), then, for each record
size, imports one cycling xiangqi record (``h1g3 h10g8 g3h1 g8h10`` over and over, the audit's
attack) while another client asks ``/health`` every 20 ms; then reads the imported game back
cold (the server restarted, so nothing is cached). Prints, per size, the import's answer and
time, the cold read's time, and ``/health``'s worst and p99 latency during both, each also as a
ratio to ``/health``'s median on the idle server (the anchor, measured in the same run).

    .venv/bin/python bench/import_freeze.py                      # this checkout
    .venv/bin/python bench/import_freeze.py --src /work/wt/old/src --plies 1000 2000

Measured figures: bench/RESULTS.md, under "bench/import_freeze.py".
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
CYCLE = ["h1g3", "h10g8", "g3h1", "g8h10"]


def cycling_record(plies: int) -> str:
    moves = [CYCLE[i % 4] for i in range(plies)]
    lines = [" ".join(moves[n : n + 2]) for n in range(0, plies, 2)]
    numbered = [f"{i + 1}. {line}" for i, line in enumerate(lines)]
    return '[Game "Chinese Chess"]\n[Result "1/2-1/2"]\n\n' + "\n".join(numbered) + "\n"


class Server:
    def __init__(self, src: Path, data: Path, port: int) -> None:
        env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
        env["PYTHONPATH"] = str(src)
        self.url = f"http://127.0.0.1:{port}"
        command = [sys.executable, "-m", "chuhan.cli", "serve", "--host", "127.0.0.1"]
        command += ["--port", str(port), "--data-dir", str(data)]
        self.log = open(data / "server.log", "ab")  # noqa: SIM115
        self.process = subprocess.Popen(command, env=env, stdout=self.log, stderr=self.log)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.url}/health", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.1)
        raise SystemExit("the server did not start: see " + str(data / "server.log"))

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(30)
        self.log.close()


def watch_health(url: str, stop: threading.Event, out: list[float]) -> None:
    with httpx.Client(timeout=120) as client:
        while not stop.is_set():
            start = time.perf_counter()
            client.get(f"{url}/health")
            out.append(time.perf_counter() - start)
            time.sleep(0.02)


def during(url: str, work: object) -> tuple[object, float, list[float]]:
    stop, latencies = threading.Event(), []  # type: ignore[var-annotated]
    watcher = threading.Thread(target=watch_health, args=(url, stop, latencies))
    watcher.start()
    time.sleep(0.1)
    start = time.perf_counter()
    answer = work()  # type: ignore[operator]
    took = time.perf_counter() - start
    time.sleep(0.05)
    stop.set()
    watcher.join()
    return answer, took, latencies


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--src", type=Path, default=ROOT / "src")
    parser.add_argument("--plies", type=int, nargs="+", default=[400, 1000, 1002])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        data, port = Path(folder), free_port()
        server = Server(args.src, data, port)
        idle: list[float] = []
        with httpx.Client(timeout=5) as client:
            for _ in range(50):
                start = time.perf_counter()
                client.get(f"{server.url}/health")
                idle.append(time.perf_counter() - start)
                time.sleep(0.01)
        anchor = statistics.median(idle)
        print(f"src {args.src}: /health idle median {anchor * 1000:.2f} ms (the anchor)")
        player = httpx.Client(base_url=server.url, timeout=600)
        player.get("/api/me")
        imported: list[tuple[int, str]] = []
        for plies in args.plies:
            text = cycling_record(plies).encode()
            answer, took, lat = during(
                server.url, lambda text=text: player.post("/api/records", content=text)
            )
            assert isinstance(answer, httpx.Response)
            if answer.status_code == 201:
                imported.append((plies, answer.json()["id"]))
            report(f"import {plies:5d} plies: {answer.status_code}", took, lat, anchor)
        cookies = dict(player.cookies)
        player.close()
        server.stop()
        server = Server(args.src, data, port)  # cold: nothing of those games cached
        player = httpx.Client(base_url=server.url, timeout=600, cookies=cookies)
        for plies, game_id in imported:
            answer, took, lat = during(server.url, lambda g=game_id: player.get(f"/api/games/{g}"))
            assert isinstance(answer, httpx.Response)
            report(f"cold read {plies:5d} plies: {answer.status_code}", took, lat, anchor)
        player.close()
        server.stop()


def report(what: str, took: float, latencies: list[float], anchor: float) -> None:
    worst = max(latencies) if latencies else float("nan")
    p99 = sorted(latencies)[int(0.99 * (len(latencies) - 1))] if latencies else float("nan")
    print(
        f"{what:34s} in {took:6.2f} s; /health worst {worst * 1000:8.1f} ms "
        f"({worst / anchor:7.1f}x idle), p99 {p99 * 1000:7.1f} ms ({p99 / anchor:6.1f}x), "
        f"{len(latencies)} probes"
    )


if __name__ == "__main__":
    main()
