"""The games as this instance last committed or heard of them, so that a change starts
without reading its game (one database round trip per move, not two).

A copy here may be out of date: another instance may have committed since, and its news not
arrived yet. That is safe because every change is a conditional update on the game's
``seq`` (:meth:`~.db.store.Store.commit_change`): a change decided on an out-of-date copy is
refused and :meth:`~.games.service.GameService.apply` decides it again on a fresh read; and a
refusal or a "nothing to do" decided on a copy is decided again on a fresh read before it is
believed. Nothing sent to a player is ever read from here.

A jieqi game's ``secret`` never travels between instances (:class:`~.hub.local.News`): news from
elsewhere is kept only when this instance already holds that game's secret.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import TypeVar

from ..hub.local import News
from ..records import GameRecord
from ..refusal import GameActionError

State = TypeVar("State")
Decision = TypeVar("Decision")
Stored = TypeVar("Stored")

# Tries of one change before it is refused as "busy": a concurrent change costs one, and
# twenty in a row means the thing is changing faster than anyone can play.
CHANGE_RETRIES = 20

KNOWN_GAMES = 16_384  # 5,000 online games followed on each of two instances


class KnownGames:
    """A bounded, thread-safe map from game id to the newest copy seen (by ``seq``)."""

    def __init__(self, size: int = KNOWN_GAMES) -> None:
        self.size = size
        self._games: OrderedDict[str, GameRecord] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, game_id: str) -> GameRecord | None:
        with self._lock:
            return self._games.get(game_id)

    def remember(self, game: GameRecord) -> None:
        """Keep ``game`` unless a newer copy is already kept."""
        with self._lock:
            known = self._games.get(game.id)
            if known is not None and known.seq > game.seq:
                return
            self._games[game.id] = game
            self._games.move_to_end(game.id)
            while len(self._games) > self.size:
                self._games.popitem(last=False)

    def heard(self, news: News) -> None:
        """News of a committed change (from any instance): its game, with the secret kept
        here when the news withheld it; forgotten when there is none to add."""
        game = news.game
        if news.withheld:
            known = self.get(game.id)
            if known is None or known.secret is None:
                self.forget(game.id)
                return
            game = replace(game, secret=known.secret)
        self.remember(game)

    def forget(self, game_id: str) -> None:
        with self._lock:
            self._games.pop(game_id, None)

    def __len__(self) -> int:
        return len(self._games)


async def decide_and_commit(
    known: Callable[[], State | None],
    read: Callable[[], Awaitable[State | None]],
    decide: Callable[[State], Decision | None],
    commit: Callable[[State, Decision], Awaitable[Stored | None]],
    refusal: type[GameActionError],
    what: str,
) -> tuple[State, Stored | None]:
    """The optimistic change of a game or a room: decide on this instance's copy, commit
    conditionally, and decide again on a fresh read whatever a copy may have got wrong.

    The first try starts from ``known()`` (no read); a refusal (GameActionError) or a
    "nothing to do" (``decide`` returns None) decided on that copy, and a commit the
    database refused as out of date (``commit`` returns None), are decided again on
    ``read()``. Returns the state decided on and what ``commit`` stored (None: nothing to
    do, as decided on a fresh read). Raises ``refusal`` ``not_found`` when ``read`` finds
    nothing, ``decide``'s refusal on a fresh read, and ``refusal`` ``busy`` after
    :data:`CHANGE_RETRIES` tries (``what``, "game" or "room", names the thing in their texts).
    """
    for attempt in range(CHANGE_RETRIES):
        copy = known() if attempt == 0 else None
        state = copy or await read()
        if state is None:
            raise refusal("not_found", f"no such {what}")
        try:
            decision = decide(state)
        except GameActionError:
            if copy is None:
                raise
            continue  # perhaps refused for being out of date: decide on a fresh read
        if decision is None:
            if copy is not None:
                continue
            return state, None
        stored = await commit(state, decision)
        if stored is not None:
            return state, stored
    raise refusal("busy", f"the {what} is changing too fast; retry")
