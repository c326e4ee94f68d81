"""The Chu-Han server: players, games against the AI, on one device and online, rooms,
pairing, ratings and puzzles.

``create_app(settings)`` gives the ASGI app; ``chuhan serve`` runs it under uvicorn.

Its layers, top to bottom: a module imports the layers below its own, never one above, and
packages on one line do not import each other (``lint-imports`` checks it in ``make test``,
with no exception: the contract in ``pyproject.toml`` ignores no import):

- ``run`` (``chuhan serve``) and ``app`` (``create_app``, which wires everything);
- ``http``: the guard, the one refusal's answer, the game routes, the front end;
- ``pairing``, ``puzzles``: strangers paired into rooms; puzzles and their ratings;
- ``rooms``: online rooms, their sockets, clocks and rules;
- ``sockets``: the socket base and the game socket;
- ``players``, ``ops``: players, archive, devices, leaderboard, live and the rating service;
  metrics, retention, stalls;
- ``games``: a game's changes (pure), what each player may see of it (``games/views.py``,
  Z2), the game service and the review;
- ``ai``, ``hub``, ``limits``: the AI pool and queue, the news between instances, budgets;
- ``db``: the tables and the stores that read and write them (the rules they run, the pairing's
  and the ratings', are handed to them or live below them: storage stores, the rules decide);
- ``settings``, ``rating_rules``: what the server is told; the rating rules (B2, Z8), pure;
- ``rules_config``: the rule records settings holds (clocks, budgets, rating limits), plain
  numbers the packages above import;
- ``identity``: who is asking (the player cookie), for every router and socket;
- the core: ``records``, ``names``, ``addresses``, ``logs``, ``origins``, ``budget``; ``refusal``,
  ``glicko2``, ``background``; ``protocol``.
"""

from .app import create_app
from .settings import Settings

__all__ = ["Settings", "create_app"]
