"""Do downloads of all one's games stall the server? (SPEC Z7; the archive's download)

Starts a real ``chuhan serve`` (SQLite in a temporary folder) from ``--src`` (default: this
checkout; give another checkout's ``src`` to measure it the same way), seeds ``--players``
archives of ``--games`` finished one-device games of ``--plies`` half-moves each (the cycling
xiangqi game ``h1g3 h10g8 g3h1 g8h10``, written by that checkout's own store), then:

- asks ``/health`` every 20 ms for ``--alone-seconds`` on the idle server (the anchor: its
  median, and its worst and p99 alone: what the machine's other work costs it);
- has each player download their archive at once, each from an address of its own
  (127.0.0.1, .2, …: one download at a time per address is the rule), while ``/health`` is
  asked every 20 ms;

and prints the downloads' answers and times, ``/health``'s worst and p99 during them, each as
a ratio to the anchor, and the server process's resident memory before, during (peak) and
after.

    .venv/bin/python bench/downloads.py                        # this checkout
    .venv/bin/python bench/downloads.py --src /tmp/old/src     # another one, the same way

Measured on the 2-core machine, 2026-12-07, on a quiet machine (load average 0.5-1.5, nothing
else running), one after the other: the download in a thread (``f325b31``, the tree before the
change, from ``git archive f325b31 src``) and in a process of its own at a lower priority
(``5d7a4ac`` and later; measured at ``6a30f57``):

    before  /health alone: median 2.16 ms (the anchor), worst 5.6 ms, p99 3.2 ms
            4 downloads: 200 in 166-174 s each, 4.3 MB
            /health during: worst 1,277.5 ms (592.5x the anchor), p99 499.5 ms (231.7x)
            server memory: 104 MB before, 812 MB at peak, 821 MB 2 s after
    after   /health alone: median 2.31 ms (the anchor), worst 3.7 ms, p99 3.4 ms
            4 downloads: 200 in 11.0-22.7 s (2 at a time), 4.3 MB
            /health during: worst 19.5 ms (8.4x the anchor), p99 7.0 ms (3.0x)
            server memory: 105 MB before, 108 MB at peak, 108 MB 2 s after

The same day under other sessions' load (load average 10-16, /health alone worst 109-228 ms):
before worst 2,582 ms, p99 1,234 ms, 602 MB kept; after worst 286 ms, p99 62 ms, 107 MB.
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
SEED = """
import sys
from datetime import timedelta
from chuhan.rules import make_board
from chuhan.server.db.store import Store
from chuhan.server.records import GameRecord, utcnow
url, player, games, plies = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
cycle = ["h1g3", "h10g8", "g3h1", "g8h10"]
moves = [cycle[i % 4] for i in range(plies)]
store, start, now = Store(url), make_board("xiangqi").fen(), utcnow()
for number in range(games):
    moment = now - timedelta(minutes=number)
    store.insert_game(GameRecord(
        id=f"g_bench_{player[-8:]}_{number}", kind="local", variant="xiangqi",
        player_id=player, start_fen=start, moves=moves, status="finished",
        result={"winner": None, "reason": "agreement", "points": None},
        created_at=moment, expires_at=moment + timedelta(days=1), updated_at=moment,
    ), [{"type": "start"}], [])
"""


class Server:
    def __init__(self, src: Path, data: Path, port: int) -> None:
        env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
        env["PYTHONPATH"] = str(src)
        self.env = env
        self.url = f"http://127.0.0.1:{port}"
        self.database = f"sqlite:///{data / 'chuhan.sqlite3'}"
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

    def seed(self, player: str, games: int, plies: int) -> None:
        command = [sys.executable, "-c", SEED, self.database, player, str(games), str(plies)]
        subprocess.run(command, env=self.env, check=True)

    def memory_mb(self) -> float:
        """The server process's resident memory (its own, not its workers')."""
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")

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


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[int(share * (len(ordered) - 1))] if ordered else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--src", type=Path, default=ROOT / "src")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--plies", type=int, default=1000)
    parser.add_argument("--alone-seconds", type=float, default=20.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        data, port = Path(folder), free_port()
        server = Server(args.src, data, port)
        clients = []
        for number in range(args.players):
            transport = httpx.HTTPTransport(local_address=f"127.0.0.{number + 1}")
            client = httpx.Client(base_url=server.url, timeout=600, transport=transport)
            player = client.get("/api/me").json()["id"]
            server.seed(player, args.games, args.plies)
            clients.append(client)
        print(f"src {args.src}: {args.players} archives of {args.games} games x {args.plies}")

        stop, alone = threading.Event(), []  # type: ignore[var-annotated]
        watcher = threading.Thread(target=watch_health, args=(server.url, stop, alone))
        watcher.start()
        time.sleep(args.alone_seconds)  # as long a window as the busy machine's noise needs
        stop.set()
        watcher.join()
        anchor = statistics.median(alone)
        print(
            f"/health alone: median {anchor * 1000:.2f} ms (the anchor), worst "
            f"{max(alone) * 1000:.1f} ms ({max(alone) / anchor:.1f}x), p99 "
            f"{percentile(alone, 0.99) * 1000:.1f} ms, {len(alone)} probes"
        )

        before = server.memory_mb()
        peak = [before]
        answers: list[tuple[int, float, int]] = []
        stop, during = threading.Event(), []
        watcher = threading.Thread(target=watch_health, args=(server.url, stop, during))
        watcher.start()
        time.sleep(0.2)

        def download(client: httpx.Client) -> None:
            start = time.perf_counter()
            answer = client.get("/api/archive/records")
            answers.append((answer.status_code, time.perf_counter() - start, len(answer.content)))

        threads = [threading.Thread(target=download, args=(c,)) for c in clients]
        for thread in threads:
            thread.start()
        while any(thread.is_alive() for thread in threads):
            peak.append(server.memory_mb())
            time.sleep(0.1)
        time.sleep(0.2)
        stop.set()
        watcher.join()
        time.sleep(2)
        after = server.memory_mb()
        for status, took, size in sorted(answers, key=lambda a: a[1]):
            print(f"download: {status} in {took:5.2f} s, {size / 1e6:.1f} MB")
        worst, p99 = max(during), percentile(during, 0.99)
        print(
            f"/health during {args.players} downloads: worst {worst * 1000:.1f} ms "
            f"({worst / anchor:.1f}x the anchor), p99 {p99 * 1000:.1f} ms "
            f"({p99 / anchor:.1f}x), {len(during)} probes"
        )
        print(
            f"server memory: {before:.0f} MB before, {max(peak):.0f} MB at peak, "
            f"{after:.0f} MB 2 s after"
        )
        for client in clients:
            client.close()
        server.stop()


if __name__ == "__main__":
    main()
