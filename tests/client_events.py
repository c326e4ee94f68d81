"""The client's own ``applyEvent`` (src/chuhan/web/js/events.js), run by node, for the test
clients: each folds the game events it receives into the state a browser would hold, so the
protocol tests check the real client contract (SPEC P5, Z2), not a copy of it.

One node process serves the whole test session (started on first use, ended at exit).
"""

from __future__ import annotations

import atexit
import json
import subprocess
import threading
from pathlib import Path
from typing import Any

EVENTS_JS = Path(__file__).resolve().parents[1] / "src" / "chuhan" / "web" / "js" / "events.js"
NODE = "/usr/bin/node"
_SCRIPT = """
const fs = require("fs");
const readline = require("readline");
const source = fs.readFileSync(process.argv[1]).toString("base64");
import("data:text/javascript;base64," + source).then(({ applyEvent }) => {
  const lines = readline.createInterface({ input: process.stdin });
  lines.on("line", (line) => {
    const { state, event } = JSON.parse(line);
    process.stdout.write(JSON.stringify({ state: applyEvent(state, event) }) + "\\n");
  });
});
"""


class EventsJS:
    """``applyEvent(state, event)`` of events.js in one node process (thread-safe)."""

    def __init__(self) -> None:
        self._process: subprocess.Popen[str] | None = None
        self._lock = threading.Lock()

    def _node(self) -> subprocess.Popen[str]:
        if self._process is None or self._process.poll() is not None:
            self._process = subprocess.Popen(
                [NODE, "-e", _SCRIPT, str(EVENTS_JS)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                bufsize=1,
            )
            atexit.register(self.close)
        return self._process

    def apply(self, state: dict[str, Any] | None, event: dict[str, Any]) -> dict[str, Any] | None:
        with self._lock:
            node = self._node()
            assert node.stdin is not None
            assert node.stdout is not None
            node.stdin.write(json.dumps({"state": state, "event": event}) + "\n")
            node.stdin.flush()
            answer = node.stdout.readline()
        if not answer:
            raise AssertionError("node (events.js) stopped")
        folded: dict[str, Any] | None = json.loads(answer)["state"]
        return folded

    def fold(self, events: list[dict[str, Any]]) -> dict[str, Any] | None:
        """The state after ``events`` from nothing."""
        state = None
        for event in events:
            state = self.apply(state, event)
        return state

    def close(self) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.stdin.close()  # type: ignore[union-attr]
            self._process.wait(timeout=5)


EVENTS = EventsJS()


def is_game_event(message: dict[str, Any]) -> bool:
    """A message the client folds into its game state: an event (with ``seq``)."""
    return isinstance(message.get("seq"), int)
