"""The server's plain records: players, games, events, rooms and seeks as the database keeps
them, the change an action makes, the errors of a stale read, and the clock.

Nothing here knows SQLAlchemy: the pure modules (``games``, ``views``, ``hub``,
``rooms/rules``…) take and return these records, and only :mod:`.db` turns them into rows.
Time comes from a :class:`Clock` handed in, so a test moves it instead of sleeping.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import UTC, datetime, timedelta
from typing import Any, Literal, Protocol, TypedDict

from .glicko2 import Rating

# ---------------------------------------------------------------------------------- time


def utcnow() -> datetime:
    """The moment now, in UTC (what :data:`SYSTEM_CLOCK` says)."""
    return datetime.now(UTC)


def aware(moment: datetime) -> datetime:
    """SQLite hands back naive datetimes; every stored moment is UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def parse_iso(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


class Clock(Protocol):
    """Where the server reads the time of day (deadlines, heartbeats, ages)."""

    def now(self) -> datetime: ...


class SystemClock:
    """The real clock."""

    def now(self) -> datetime:
        return utcnow()


SYSTEM_CLOCK: Clock = SystemClock()


class ManualClock:
    """A clock that only moves when told to: a test advances it past a deadline instead of
    sleeping real seconds. Starts at the real time (stored moments stay plausible)."""

    def __init__(self, start: datetime | None = None) -> None:
        self.moment = start or utcnow()

    def now(self) -> datetime:
        return self.moment

    def advance(self, seconds: float) -> datetime:
        self.moment += timedelta(seconds=seconds)
        return self.moment


# ---------------------------------------------------------------------------------- errors


class StaleGameError(Exception):
    """The game changed since it was read; re-read it and decide again."""


class StaleRoomError(Exception):
    """The room changed since it was read; read it again and decide again."""


class PasswordTakenError(Exception):
    """Another open room already has this password."""


# ---------------------------------------------------------------------------------- kinds

GameKind = Literal["ai", "local", "online", "imported"]  # against the AI, one device, a room's
GameStatus = Literal["ongoing", "finished"]
RoomStatus = Literal["open", "closed"]
SeekStatus = Literal["waiting", "paired"]
AttemptStatus = Literal["playing", "solved", "failed"]  # a puzzle attempt (B9)
AnalysisStatus = Literal["queued", "running", "done", "failed"]  # a game's analysis (N4)
AwardKind = Literal["ai", "online"]
# What a game's log holds (each one of protocol.messages.EVENTS, all but the unlogged "state").
EventType = Literal[
    "start",
    "move",
    "thinking",
    "undo",
    "draw_declined",
    "end",
    "draw_offered",
    "draw_rejected",
    "paused",
    "resumed",
    "outage",
    "rated",
]


class JanggiSetups(TypedDict):
    """Each side's janggi setup (J3): ``"HEEH"``, ``"EHHE"``, ``"HEHE"`` or ``"EHEH"``."""

    cho: str
    han: str


class GameOptions(TypedDict, total=False):
    """A game's public options, stored as this JSON object (the ``games.options`` column):
    each key only where it applies.

    - ``rules`` (xiangqi, jieqi): how repetitions are judged, ``casual`` or ``wxf`` (E1);
    - ``bikjang``, ``setup`` (janggi): the bikjang rule and both setups (J3); no ``setup``:
      the game starts from its FEN (a puzzle's, B9);
    - ``view``, ``reveals`` (an analysed jieqi puzzle, B9): what the solver saw;
    - ``record_tags``, ``rules_end`` (an imported record): its tags, and where our rules
      would have ended it;
    - ``clock``, ``draw``, ``unscored``, ``paired``, ``rated`` (a room's game, R4-R6, B1,
      B2): its clock, the draw offers, the rule withholding its points, made by pairing, the
      rating verdict shown once it is rated.
    """

    rules: str
    bikjang: str
    setup: JanggiSetups
    view: dict[str, Any]
    reveals: list[Any]
    record_tags: dict[str, str]
    rules_end: dict[str, object]
    clock: dict[str, Any]
    draw: dict[str, Any]
    unscored: str
    paired: bool
    rated: dict[str, Any]


class RoomOptions(TypedDict, total=False):
    """A room's options, stored as this JSON object (the ``rooms.options`` column): ``rules``
    (xiangqi, jieqi, E1) or ``bikjang`` (janggi), ``clock`` (a game clock's name, B7; none:
    R4's turn clock), ``paired`` (made by pairing, B1). A paired room's come from its seek."""

    rules: str
    bikjang: str
    clock: str
    paired: bool


# ---------------------------------------------------------------------------------- records


@dataclass(frozen=True)
class Player:
    id: str
    name: str | None  # B7: the default name (names.py) until one is chosen
    ai_points: int
    online_points: int
    created_at: datetime
    name_chosen: bool = False  # B7: asked once before the first paired game


@dataclass(frozen=True, kw_only=True)
class GameRecord:
    """A stored game. ``secret`` (jieqi arrangement) never leaves the server. The defaults are
    those of a game that has just started."""

    id: str
    kind: GameKind
    variant: str
    start_fen: str
    created_at: datetime
    expires_at: datetime
    level: str | None = None
    player_id: str | None = None
    human_side: int | None = None
    options: GameOptions = field(default_factory=lambda: GameOptions())
    secret: dict[str, Any] | None = None
    moves: list[str] = field(default_factory=list)
    status: GameStatus = "ongoing"
    result: dict[str, Any] | None = None
    practice: bool = False
    points_awarded: int = 0
    seq: int = 1
    updated_at: datetime = field(default_factory=utcnow)

    @property
    def ply(self) -> int:
        return len(self.moves)

    @property
    def ongoing(self) -> bool:
        return self.status == "ongoing"


GAME_FIELDS = [f.name for f in fields(GameRecord)]
_MOMENTS = ("created_at", "expires_at", "updated_at")


@dataclass(frozen=True)
class StoredEvent:
    game_id: str
    seq: int
    type: str  # an EventType, as read back from the log or the hub
    payload: dict[str, Any]


@dataclass(frozen=True)
class PlayedGame:
    """An online game as one of its players played it (SPEC S1)."""

    game: GameRecord
    side: int
    opponent_name: str | None


@dataclass(frozen=True)
class Award:
    """Points to add to a player's total in the same transaction as the game's end."""

    player_id: str
    kind: AwardKind
    points: int


@dataclass(frozen=True)
class Change:
    """What an action does: the game after it, the events to log, points to award."""

    before: GameRecord
    after: GameRecord
    events: list[dict[str, Any]]
    award: Award | None = None


def game_to_json(game: GameRecord) -> dict[str, Any]:
    """The game as JSON values (moments as ISO text), to travel between instances."""
    values = {name: getattr(game, name) for name in GAME_FIELDS}
    for name in _MOMENTS:
        values[name] = values[name].isoformat()
    return values


def game_from_json(values: dict[str, Any]) -> GameRecord:
    """The inverse of :func:`game_to_json`. Raises KeyError, TypeError or ValueError."""
    values = {name: values[name] for name in GAME_FIELDS}
    for name in _MOMENTS:
        values[name] = aware(datetime.fromisoformat(values[name]))
    values["moves"] = [str(move) for move in values["moves"]]
    return GameRecord(**values)


@dataclass(frozen=True)
class RoomRecord:
    """A stored room.

    ``seats`` holds up to two ``{"player", "ready", "device", "connected"}`` objects;
    ``device`` is the connection that holds the seat (R7). ``sides`` lists the player ids
    of side 0 and side 1 of the current game; ``setup`` is the janggi setup choice in
    progress (J3, R4) or None.
    """

    id: str
    invite: str | None
    password: str | None
    open_password: str | None
    variant: str
    options: RoomOptions
    status: RoomStatus
    seats: list[dict[str, Any]]
    sides: list[str] | None
    setup: dict[str, Any] | None
    game_id: str | None
    version: int
    created_at: datetime
    updated_at: datetime = field(default_factory=utcnow)

    @property
    def is_open(self) -> bool:
        return self.status == "open"

    def seat_of(self, player_id: str) -> int | None:
        for index, seat in enumerate(self.seats):
            if seat["player"] == player_id:
                return index
        return None

    def side_of(self, player_id: str) -> int | None:
        if self.sides is None or player_id not in self.sides:
            return None
        return self.sides.index(player_id)


ROOM_FIELDS = [f.name for f in fields(RoomRecord)]


@dataclass(frozen=True)
class Seek:
    """A waiting player: who, for which pool, their rating in the variant, since when (the
    pairing rules, :mod:`.pairing.rules`, pair these)."""

    player_id: str
    pool: str
    rating: float
    since: datetime


@dataclass(frozen=True)
class SeekState:
    """A player's seek as stored: ``waiting`` since ``since``, or ``paired`` in ``room_id``."""

    status: SeekStatus
    variant: str
    options: dict[str, Any]
    since: datetime
    room_id: str | None = None


@dataclass(frozen=True)
class Pairing:
    """Two seeks paired, and the room made for them (stored with the claim)."""

    first: Seek
    second: Seek
    room: RoomRecord


@dataclass(frozen=True)
class Instance:
    """A server instance as its row says (SPEC Z4, R7): started, last heartbeat, stopped,
    and what it last said of its hub (``{"checked_until", "outages"}``)."""

    id: str
    started_at: datetime
    alive_at: datetime
    stopped: bool
    hub: dict[str, Any] | None = None

    def is_dead(self, now: datetime, dead_after: float) -> bool:
        """True once it stopped, or its last heartbeat is ``dead_after`` seconds old."""
        return self.stopped or (now - self.alive_at).total_seconds() >= dead_after

    def last_word(self) -> datetime:
        """The last moment its news was seen to cross (its last echo, as its last heartbeat
        said; that heartbeat if it said none): what it committed later may never have left."""
        checked = (self.hub or {}).get("checked_until")
        return min(parse_iso(checked), self.alive_at) if checked else self.alive_at


PROVISIONAL_DEVIATION = 110.0  # a rating is shown with "?" above this (as lichess does)


@dataclass(frozen=True)
class PlayerRating:
    """A player's rating in one variant, and how many rated games it rests on."""

    rating: Rating
    games: int

    @property
    def provisional(self) -> bool:
        return is_provisional(self.rating)

    def to_json(self) -> dict[str, Any]:
        return {
            "rating": round(self.rating.rating),
            "deviation": round(self.rating.deviation),
            "provisional": self.provisional,
            "games": self.games,
        }


NEWCOMER = PlayerRating(Rating(), 0)


def is_provisional(rating: Rating) -> bool:
    """Shown with \"?\": the rating is still uncertain (SPEC B2)."""
    return rating.deviation > PROVISIONAL_DEVIATION


@dataclass(frozen=True)
class ArchivedGame:
    """One game of the archive as its player played it: their side (None on one device or
    in an imported record) and the online opponent's display name."""

    game: GameRecord
    side: int | None
    opponent: str | None


@dataclass(frozen=True)
class StoredAnalysis:
    """A game's engine analysis as stored (N4): one evaluation per evaluated view."""

    game_id: str
    status: AnalysisStatus
    engine: str
    nodes: int
    positions: int
    evaluations: list[dict[str, Any]]
    updated_at: datetime
