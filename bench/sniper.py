"""The sniper of the pairing pool (SPEC Z8, B1): how many pairings a ghost takes from honest
seekers, on the tree before the abort's cost and on this one, in the same run.

One ``chuhan serve`` (SQLite, a fresh data folder, addresses through ``X-Forwarded-For``
from the trusted loopback proxy, as behind nginx) per tree. The sniper is one address with
three cookies: it keeps one seek waiting in the jieqi pool, and when paired it reads the
opponent's name from the room and leaves before its first move unless that is its target
(then it stays: caught). Honest players, each from an address of their own, arrive one
every ``--every`` seconds and seek the same pool; one sniped seeks again once its game is
over; paired with another honest player, both are done. The target arrives after
``--target-after`` seconds. Counted over ``--seconds``: the pairings honest players got, how
many the sniper took, its refusals and longest wait, and when (if) it caught its target.

    git worktree add --detach /tmp/chuhan-before 69877e1^
    cp src/chuhan/server/migrations/versions/0011_seek_aborts.py \\
       /tmp/chuhan-before/src/chuhan/server/migrations/versions/
    .venv/bin/python bench/sniper.py --before /tmp/chuhan-before/src

(69877e1^ names migration 0012 on top of 0011 before 0011 was committed: the copy lets it
start; its code never reads the table.)

Measured figures: bench/RESULTS.md, under "bench/sniper.py".
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

HERE = Path(__file__).resolve().parents[1]
SNIPER = "203.0.113.5"
POOL = {"variant": "jieqi", "options": {}}


@dataclass
class Tally:
    started: float = field(default_factory=time.monotonic)
    honest_paired: int = 0  # honest players paired with another honest player
    taken: int = 0  # pairings the sniper took (and aborted)
    refusals: int = 0
    longest_wait: float = 0.0
    caught_after: float | None = None


class Visitor:
    """A cookie whose requests and sockets come from ``address``."""

    def __init__(self, url: str, address: str) -> None:
        self.url, self.address = url, address
        self.http = httpx.AsyncClient(base_url=url, headers={"X-Forwarded-For": address})
        self.name = ""

    async def arrive(self) -> Visitor:
        self.name = (await self.http.get("/api/me")).raise_for_status().json()["name"]
        return self

    async def socket(self, path: str) -> ClientConnection:
        cookie = f"chuhan_player={self.http.cookies['chuhan_player']}"
        headers = {"Cookie": cookie, "X-Forwarded-For": self.address}
        return await connect(self.url.replace("http", "ws", 1) + path, additional_headers=headers)


async def messages(ws: ClientConnection) -> Any:
    async for frame in ws:
        yield json.loads(frame)


async def seek_until_paired(visitor: Visitor, stop: asyncio.Event) -> dict[str, Any] | None:
    """Seek; the answer that ends the wait: ``paired``, an error, or None (the run ended).
    Pings as often as the server asks ("seeking".heartbeat)."""
    ws = await visitor.socket("/ws/seek")
    pinger: asyncio.Task[None] | None = None

    async def ping(seconds: float) -> None:
        while True:
            await asyncio.sleep(seconds)
            await ws.send(json.dumps({"id": "p", "type": "ping"}))

    async def answer() -> dict[str, Any] | None:
        nonlocal pinger
        await ws.send(json.dumps({"id": "s", "type": "seek", **POOL}))
        async for message in messages(ws):
            if message["type"] == "seeking" and message.get("heartbeat") and pinger is None:
                pinger = asyncio.create_task(ping(message["heartbeat"]))
            if message["type"] == "paired" or (
                message["type"] == "error" and message.get("reply_to") == "s"
            ):
                return dict(message)
        return None

    waiting = asyncio.create_task(answer())
    stopped = asyncio.create_task(stop.wait())
    await asyncio.wait({waiting, stopped}, return_when=asyncio.FIRST_COMPLETED)
    stopped.cancel()
    for task in (waiting, pinger):
        if task is not None and not task.done():
            task.cancel()
    await ws.close()
    return waiting.result() if waiting.done() and not waiting.cancelled() else None


async def opponent_in(visitor: Visitor, room: str) -> tuple[ClientConnection, str]:
    ws = await visitor.socket(f"/ws/rooms/{room}")
    await ws.send(json.dumps({"id": "h", "type": "hello", "device": "bench"}))
    async for message in messages(ws):
        if message["type"] == "room":
            seats = message["room"]["seats"]
            return ws, next((s["name"] for s in seats if not s["you"]), "")
    return ws, ""


async def sniper(url: str, target: str, tally: Tally, stop: asyncio.Event) -> None:
    cookies = [await Visitor(url, SNIPER).arrive() for _ in range(3)]
    turn = 0
    while not stop.is_set():
        cookie = cookies[turn % 3]
        turn += 1
        answer = await seek_until_paired(cookie, stop)
        if answer is None:
            return
        if answer["type"] == "error":
            tally.refusals += 1
            wait = float(answer.get("retry_after", 1))
            tally.longest_wait = max(tally.longest_wait, wait)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=wait)
            continue
        ws, opponent = await opponent_in(cookie, answer["room"])
        if opponent == target:
            tally.caught_after = time.monotonic() - tally.started
            await ws.close()
            return
        tally.taken += 1
        await ws.send(json.dumps({"id": "l", "type": "leave"}))
        await asyncio.sleep(0.05)
        await ws.close()


async def honest(
    url: str, address: str, tally: Tally, stop: asyncio.Event, names: set[str]
) -> None:
    visitor = await Visitor(url, address).arrive()
    names.add(visitor.name)
    while not stop.is_set():
        answer = await seek_until_paired(visitor, stop)
        if answer is None:
            return
        if answer["type"] == "error":
            await asyncio.sleep(float(answer.get("retry_after", 1)))
            continue
        ws, opponent = await opponent_in(visitor, answer["room"])
        if opponent in names:  # another honest player: a game, done
            tally.honest_paired += 1
            await ws.close()
            return
        # The sniper: wait until it has left (the game ends abandoned), then seek again.
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(10):
                async for message in messages(ws):
                    if message["type"] == "end" or message.get("state", {}).get("result"):
                        break
        await ws.close()


async def run_once(url: str, args: argparse.Namespace) -> Tally:
    tally, stop = Tally(), asyncio.Event()
    target = await Visitor(url, "198.51.100.250").arrive()
    names: set[str] = {target.name}
    tasks = [asyncio.create_task(sniper(url, target.name, tally, stop))]
    number = 0
    while time.monotonic() - tally.started < args.seconds:
        number += 1
        address = f"198.51.{number // 250}.{number % 250}"
        tasks.append(asyncio.create_task(honest(url, address, tally, stop, names)))
        if number == round(args.target_after / args.every):
            tasks.append(asyncio.create_task(seek_target(url, target, tally, stop, names)))
        await asyncio.sleep(args.every)
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    return tally


async def seek_target(
    url: str, target: Visitor, tally: Tally, stop: asyncio.Event, names: set[str]
) -> None:
    """The target seeks until paired with an honest player or caught."""
    while not stop.is_set() and tally.caught_after is None:
        answer = await seek_until_paired(target, stop)
        if answer is None or answer["type"] == "error":
            await asyncio.sleep(1)
            continue
        ws, opponent = await opponent_in(target, answer["room"])
        await ws.close()
        if opponent in names:
            tally.honest_paired += 1
            return
        await asyncio.sleep(0.5)  # caught: the sniper stays


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def server(src: Path) -> Any:
    data = Path(tempfile.mkdtemp(prefix="chuhan-sniper-"))
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CHUHAN_", "DATABASE"))}
    env.update(
        PYTHONPATH=str(src),
        CHUHAN_TRUSTED_PROXIES="127.0.0.1",
        CHUHAN_AI_WORKERS="1",
    )
    command = [str(Path(sys.executable).with_name("chuhan")), "serve", "--host", "127.0.0.1"]
    command += ["--port", str(port), "--data-dir", str(data)]
    with open(data / "server.log", "ab") as log:
        process = subprocess.Popen(command, env=env, stdout=log, stderr=log)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                    break
            time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)
        shutil.rmtree(data, ignore_errors=True)


def report(label: str, tally: Tally, seconds: float) -> str:
    total = tally.honest_paired // 2 + tally.taken
    caught = f"after {tally.caught_after:.1f} s" if tally.caught_after is not None else "never"
    return (
        f"{label}: in {seconds:.0f} s honest seekers got {total} pairings, the sniper took "
        f"{tally.taken} ({100 * tally.taken / max(1, total):.0f} %); refused {tally.refusals} "
        f"times, longest wait {tally.longest_wait:.0f} s; target caught {caught}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", type=Path, help="the src folder of the tree before")
    parser.add_argument("--seconds", type=float, default=40.0)
    parser.add_argument("--every", type=float, default=1.2, help="an honest arrival each")
    parser.add_argument("--target-after", type=float, default=20.0)
    args = parser.parse_args()
    trees = [("before", args.before)] if args.before else []
    trees.append(("after", HERE / "src"))
    for label, src in trees:
        with server(src) as url:
            tally = asyncio.run(run_once(url, args))
        print(report(label, tally, args.seconds), flush=True)


if __name__ == "__main__":
    main()
