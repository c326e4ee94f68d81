"""The messages of the WebSockets, typed: what a client sends to ``/ws/games/{id}``,
``/ws/rooms/{id}`` and ``/ws/seek`` (B1), and what the server answers (SPEC Z5, P5;
docs/protocol.md). The one module that defines them.

Client messages are pydantic models in discriminated unions (:data:`GameMessage`,
:data:`RoomMessage`, :data:`SeekMessage`) that share one base (an ``id`` and a ``type``);
:func:`parse` reads a frame into one of them or raises :class:`ProtocolError`. Server
messages are the models of :data:`REPLIES`, :data:`NOTICES` and :data:`EVENTS`, each named
by the ``type`` in its class line (every socket builds what it sends from them,
e.g. ``PongReply(reply_to=…).wire()``; :func:`error_reply` and
:func:`state_event` are the short forms of the two sent from outside the sockets too), from
which the message tables of docs/protocol.md are generated (:mod:`.docs`). Nothing here
touches a game.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from typing import Annotated, Any, ClassVar, Generic, Literal, TypeVar, overload

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, TypeAdapter, ValidationError

from ...rules.janggi import SetupChoice

MAX_ID_LENGTH = 64
MAX_MOVE_LENGTH = 16
MAX_NUMBER = 100_000

MessageId = Annotated[str, StringConstraints(strict=True, min_length=1, max_length=MAX_ID_LENGTH)]
Count = Annotated[int, Field(strict=True, ge=0, le=MAX_NUMBER)]
MoveText = Annotated[str, StringConstraints(strict=True, min_length=1, max_length=MAX_MOVE_LENGTH)]
DeviceId = Annotated[
    str, StringConstraints(strict=True, min_length=1, max_length=40, pattern=r"^[A-Za-z0-9_-]+$")
]
GameId = Annotated[str, StringConstraints(strict=True, max_length=32)]


class ProtocolError(Exception):
    """A client message that cannot be read: ``code`` for the error reply, ``reply_to`` the
    message's id when it could be read (None otherwise)."""

    def __init__(self, code: str, message: str, reply_to: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.reply_to = reply_to


# ---------------------------------------------------------------------- client → server


class ClientMessage(BaseModel):
    """Every client message: a client-chosen ``id`` (echoed as ``reply_to``) and a ``type``.
    Unknown fields are ignored."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    id: MessageId


class Hello(ClientMessage):
    """Say it first, and again to resync (SPEC P5). ``last_seq`` null: the server answers
    with a full ``state`` event. A number: the events after it, then an ``ack`` with
    ``last_seq`` (a full ``state`` instead when more than 200 were missed, the number is
    ahead of the server, or the log does not lead to the game)."""

    type: Literal["hello"]
    last_seq: Count | None = Field(None, description="the seq of the last event the client holds")


class RoomHello(Hello):
    """Open the room (R7): a device that already held the seat takes it back at once (a
    dropped socket reconnecting); the server answers ``room``, then the missed events of the
    room's game and an ``ack`` with ``last_seq``, as the game socket does (``last_seq``
    counts only when ``game_id`` names the current game), or a full ``state`` and a plain
    ``ack``."""

    device: DeviceId | None = Field(None, description="this tab's id, 1–40 letters or digits")
    game_id: GameId | None = Field(None, description="the game ``last_seq`` belongs to")


class Move(ClientMessage):
    """Play a move (SPEC Z1, P5). A repeat of an accepted move (same ``ply``, same text) is
    acknowledged again, never applied twice. In a room, refused with ``time_out`` once the
    turn's deadline has passed (the server flags instead)."""

    type: Literal["move"]
    ply: Count = Field(description="the ply it applies to: the number of moves already played")
    move: MoveText = Field(description="canonical text (``h3e3``), ``pass`` in janggi")


class Undo(ClientMessage):
    """SPEC P3. AI game: takes back your last move and the AI's reply (or only your move
    while the AI thinks); if you play second the AI's opening move stays; the game becomes
    practice for good. Local game: takes back the last half-move."""

    type: Literal["undo"]


class Hint(ClientMessage):
    """SPEC A4: on your turn (local: the side to move); answered by a ``hint`` reply."""

    type: Literal["hint"]


class DrawOffer(ClientMessage):
    """AI game (A5): the engine accepts (``end``, reason ``agreement``) or declines
    (``draw_declined``). Local game: both people agreed, the game ends drawn. Room (R5): on
    your own turn, at least 10 half-moves after your previous offer; the clock runs on."""

    type: Literal["draw_offer"]


class Resign(ClientMessage):
    """SPEC E4: you lose (local game: the side to move loses)."""

    type: Literal["resign"]


class Ping(ClientMessage):
    """Keep-alive; answered by ``pong``."""

    type: Literal["ping"]


class TakeSeat(ClientMessage):
    """ "Continue on this device" (R7): the seat moves here; the other device gets
    ``detached`` and its socket closes (code 4409)."""

    type: Literal["take_seat"]


class Ready(ClientMessage):
    """R3; when both are ready, colours are drawn at random and the game (janggi: the setup
    choice) starts."""

    type: Literal["ready"]


class Setup(ClientMessage):
    """Janggi (J3, R4): Han chooses first, then Cho, who sees Han's choice; each has one
    turn's time, then gets ``HEHE``."""

    type: Literal["setup"]
    setup: SetupChoice = Field(description="the horse/elephant order")


class DrawAccept(ClientMessage):
    """R5: by the recipient, on their turn, while the offer is open."""

    type: Literal["draw_accept"]


class Leave(ClientMessage):
    """R8: give up the seat (a game in progress is resigned); acknowledged, then ``left``."""

    type: Literal["leave"]


class Rematch(ClientMessage):
    """B4, after a room game: ``offer`` a rematch (accepting the opponent's open offer),
    ``accept`` or ``decline`` the opponent's, ``cancel`` your own. Both players see the offer
    at once in the seats of the ``room`` notice (``rematch``: ``offered`` or ``declined``);
    on acceptance the next game begins with the colours swapped."""

    type: Literal["rematch"]
    action: Literal["offer", "accept", "decline", "cancel"]


class Probe(ClientMessage):
    """The answer to the server's ``probe``: its round trip measures the lag allowance (R4)."""

    type: Literal["probe"]
    n: Count | None = Field(None, description="the number of the server's probe")


# B8: the quick messages, the only words players send each other, as ids: each is shown in
# the recipient's own language (the front end's ``quick.<id>``); no free text between strangers.
QuickMessageId = Literal["good_luck", "good_game", "thanks", "well_played", "oops"]
QUICK_MESSAGES: tuple[str, ...] = QuickMessageId.__args__  # type: ignore[attr-defined]


class Say(ClientMessage):
    """B8: a quick message to the room, by its id (an unknown one is refused with
    ``bad_request`` and the list). Both seats' sockets get ``said``; a seat may say 5 at once,
    then one every 4 s (``too_many_messages`` with ``retry_after``). Nothing is stored."""

    type: Literal["say"]
    phrase: QuickMessageId = Field(description="one of " + ", ".join(QUICK_MESSAGES))


ShortText = Annotated[str, StringConstraints(strict=True, max_length=16)]


class SeekRequest(ClientMessage):
    """Play a stranger (B1): wait for the first compatible player, nearest in rating.
    Sent again (another tab, another choice) it replaces the player's one seek. Answered by
    ``seeking`` (or at once ``paired``); a seek the server cannot take is refused with
    ``bad_seek``, ``already_playing`` (``room``: that game's room) or ``too_many_seeks``
    (``retry_after`` seconds). Closing the socket withdraws it."""

    type: Literal["seek"]
    variant: ShortText = Field(description="xiangqi, janggi or jieqi")
    options: dict[ShortText, ShortText] = Field(
        default_factory=dict,
        max_length=4,
        description="janggi: `bikjang` off/points; xiangqi and jieqi: `rules` casual/wxf; "
        "any: `clock`, a game clock, B7",
    )


class CancelSeek(ClientMessage):
    """Stop waiting (B1); answered by ``cancelled``, or ``paired`` when it came too late."""

    type: Literal["cancel"]


# The unions as the type checker reads them (Annotated[X, ...] is X to it): a socket's
# dispatch matches its message against every member, and mypy proves the match exhaustive.
GameMessage = Annotated[
    Hello | Move | Undo | Hint | DrawOffer | Resign | Ping, Field(discriminator="type")
]
RoomMessage = Annotated[
    RoomHello
    | TakeSeat
    | Ready
    | Setup
    | Move
    | DrawOffer
    | DrawAccept
    | Resign
    | Leave
    | Rematch
    | Say
    | Ping
    | Probe,
    Field(discriminator="type"),
]


M = TypeVar("M", bound=ClientMessage)


@dataclass(frozen=True)
class MessageSet(Generic[M]):
    """The messages one socket understands (``M``: their union)."""

    name: str
    models: tuple[type[ClientMessage], ...]
    adapter: TypeAdapter[M]

    @cached_property
    def types(self) -> tuple[str, ...]:
        """Known once: every message of every socket is checked against them."""
        return tuple(type_of(model) for model in self.models)


def type_of(model: type[BaseModel]) -> str:
    if issubclass(model, ServerModel):
        return model.message_type
    return str(model.model_fields["type"].annotation.__args__[0])  # type: ignore[union-attr]


def _models(union: Any) -> tuple[type[ClientMessage], ...]:
    return tuple(union.__origin__.__args__)


SeekMessage = Annotated[SeekRequest | CancelSeek | Ping, Field(discriminator="type")]
GAME_MESSAGES: MessageSet[GameMessage] = MessageSet(
    "game", _models(GameMessage), TypeAdapter(GameMessage)
)
SEEK_MESSAGES: MessageSet[SeekMessage] = MessageSet(
    "seek", _models(SeekMessage), TypeAdapter(SeekMessage)
)
ROOM_MESSAGES: MessageSet[RoomMessage] = MessageSet(
    "room", _models(RoomMessage), TypeAdapter(RoomMessage)
)
_ENVELOPE = TypeAdapter(MessageId)


@overload
def parse(raw: str | bytes, max_bytes: int) -> GameMessage: ...
@overload
def parse(raw: str | bytes, max_bytes: int, messages: MessageSet[M]) -> M: ...
def parse(
    raw: str | bytes, max_bytes: int, messages: MessageSet[Any] = GAME_MESSAGES
) -> ClientMessage:
    """Read one client message of ``messages``. Raises ProtocolError (SPEC Z5):
    ``too_large``, ``malformed`` (not one JSON object), ``bad_request`` (no usable id, or
    missing or wrong fields) or ``unknown_type``; ``reply_to`` is None when the id could not
    be read."""
    size = len(raw.encode("utf-8")) if isinstance(raw, str) else len(raw)
    if size > max_bytes:
        raise ProtocolError("too_large", f"messages are at most {max_bytes} bytes")
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        raise ProtocolError("malformed", "a message is one JSON object") from None
    if not isinstance(data, dict):
        raise ProtocolError("malformed", "a message is one JSON object")
    try:
        message_id: str = _ENVELOPE.validate_python(data.get("id"))
    except ValidationError:
        raise ProtocolError(
            "bad_request", f"every message needs an 'id': a string of 1 to {MAX_ID_LENGTH} chars"
        ) from None
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in messages.types:
        raise ProtocolError(
            "unknown_type",
            f"unknown message type {str(kind)[:32]!r}; known: {', '.join(messages.types)}",
            message_id,
        )
    try:
        message: ClientMessage = messages.adapter.validate_python(data)
        return message
    except ValidationError as exc:
        raise ProtocolError("bad_request", _problems(exc), message_id) from None


def _problems(exc: ValidationError) -> str:
    """A pydantic error as one line a client developer can act on."""
    parts = []
    for error in exc.errors(include_url=False):
        field = ".".join(str(p) for p in error["loc"][1:]) or "message"
        parts.append(f"'{field}': {error['msg'].lower()}")
    return "; ".join(parts)


# ---------------------------------------------------------------------- server → client


def encode(message: dict[str, Any]) -> str:
    """A server message as one text frame: compact JSON in UTF-8 (every byte counts: a move
    goes to every socket that follows the game)."""
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"))


def error_reply(
    code: str, message: str, reply_to: str | None = None, **fields: Any
) -> dict[str, Any]:
    """The one error reply of every socket (``fields``: the game socket's ``state``, the
    seek socket's ``room`` or ``retry_after``)."""
    return ErrorReply(reply_to=reply_to, code=code, message=message, **fields).wire()


def state_event(seq: int, state: dict[str, Any], **fields: Any) -> dict[str, Any]:
    """The full state for one viewer, as an event (``reply_to`` when it answers a hello,
    ``game_id`` on the room socket)."""
    return StateEvent(seq=seq, state=state, **fields).wire()


class ServerModel(BaseModel):
    """A message the server sends: every socket builds it from its model, which names its
    ``type`` once, in its class line (``class PongReply(Reply, type="pong")``), and sends
    :meth:`wire`."""

    model_config = ConfigDict(extra="forbid")
    message_type: ClassVar[str]

    def __init_subclass__(cls, type: str | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if type is not None:
            cls.message_type = type

    def wire(self) -> dict[str, Any]:
        """As sent: the ``type``, then the fields given (an optional field not given stays
        out: a plain ``ack`` is ``{"type", "reply_to"}``; one given as null is sent)."""
        return {"type": self.message_type, **self.model_dump(exclude_unset=True)}


class Reply(ServerModel):
    """The answer to one client message: ``reply_to`` is its ``id``."""

    reply_to: str


class AckReply(Reply, type="ack"):
    """A request was done: for a move, only after it is committed to the database (Z4)."""

    ply: int | None = Field(default=None, description="the move's ply (move)")
    last_seq: int | None = Field(default=None, description="the last event replayed (hello)")


class ErrorReply(ServerModel, type="error"):
    """A request refused, or a message that could not be read (Z5); the game goes on."""

    reply_to: str | None = Field(description="null when the id could not be read")
    code: str
    message: str = Field(description="for developers; clients show a text per code")
    state: dict[str, Any] | None = Field(default=None, description="game socket: the current state")
    room: str | None = Field(default=None, description="seek socket, `already_playing`: that room")
    retry_after: float | None = Field(default=None, description="seek socket: when to try again")


class PongReply(Reply, type="pong"):
    """The answer to ``ping``."""


class HintReply(Reply, type="hint"):
    """The answer to ``hint``."""

    move: str


class _TextNotice(ServerModel):
    """A notice that tells its news in English too (clients show a text of their own)."""

    message: str


class BusyNotice(_TextNotice, type="busy"):
    """Every AI worker is busy; the server retries the AI's move by itself."""

    retry_in: float


class RoomNotice(ServerModel, type="room"):
    """The room as this player sees it (after every change of the room): its seats with
    their names, readiness, sides, connection and rematch offer (B4)."""

    room: dict[str, Any]


class ElsewhereNotice(_TextNotice, type="elsewhere"):
    """The seat is held by another connected device: offer "Continue on this device"."""


class DetachedNotice(_TextNotice, type="detached"):
    """The seat moved to another device; this socket closes (4409)."""


class LeftNotice(ServerModel, type="left"):
    """This player left the room; the socket closes."""


class SeekingNotice(ServerModel, type="seeking"):
    """B1: this player waits for a stranger (``waited``: seconds since the seek began), sent
    to every tab of the player when the seek begins or changes. ``heartbeat``: the page
    pings at least this often, else its seek is withdrawn (a silent page is not paired)."""

    variant: str
    options: dict[str, str]
    waited: float
    heartbeat: float


class WaitingNotice(ServerModel, type="waiting"):
    """B1: how many players wait for each variant, site-wide (every few seconds), and in
    ``pools`` for each game asked for (``variant``, ``options`` with the rule option and
    clock, ``waiting``); never counting the player's own seek."""

    counts: dict[str, int]
    pools: list[dict[str, Any]] = Field(default_factory=list)


class PairedNotice(ServerModel, type="paired"):
    """B1: paired; the game is on in ``room`` (open ``/room/<room>``)."""

    room: str


class CancelledNotice(ServerModel, type="cancelled"):
    """B1: the seek was withdrawn; nobody is waiting for this player any more."""


class ProbeNotice(ServerModel, type="probe"):
    """Answer with a ``probe`` of the same ``n`` (lag measurement, R4)."""

    n: int


class SaidNotice(ServerModel, type="said"):
    """B8: a quick message said in the room, by its id (the client shows it in its own
    language); ``you``: this player said it (echoed to their own sockets too)."""

    phrase: str
    you: bool


class GameEvent(ServerModel, type="state"):
    """A logged game event: ``seq`` counts the game's events; in a room also ``game_id``.
    It carries either the viewer's whole ``state`` after it, or only the change: ``set``."""

    seq: int
    game_id: str | None = Field(
        default=None, description="room socket: the game the event belongs to"
    )
    state: dict[str, Any] | None = Field(
        default=None, description="the viewer's whole state after it"
    )
    set: dict[str, Any] | None = Field(
        default=None, description="the state fields the event replaces whole (all but the lists)"
    )
    legal: str | None = Field(
        default=None, description='with `set`: `legal_moves` in short, `"h3:h4h5e3 b3:b4 pass"`'
    )


class StateEvent(GameEvent):
    """The full state (the answer to ``hello``, or a resync)."""

    reply_to: str | None = Field(default=None, description="the hello it answers")
    state: dict[str, Any]


class StartEvent(GameEvent, type="start"):
    """The game was created (seq 1)."""


class MoveEvent(GameEvent, type="move"):
    """A move was played. With ``set``, it also appends one entry to each of the state's
    lists: ``move`` to ``moves``, ``notation`` to ``notation``, ``record`` to ``records``."""

    ply: int = Field(description="the ply it applied to")
    move: str
    by: str = Field(description="the mover's side name")
    notation: dict[str, str] | None = Field(
        default=None, description="the move in each of the state's notations"
    )
    record: dict[str, Any] | None = Field(
        default=None, description="jieqi: the move's record as the viewer may know it (Q5)"
    )
    known: list[tuple[int, str | None]] | None = Field(
        default=None,
        description="jieqi on one device: `[index, captured]` of the records now shown "
        "otherwise (the side to move's knowledge)",
    )


class _PlyEvent(GameEvent):
    """An event about the game's ``ply`` (the number of moves played)."""

    ply: int


class ThinkingEvent(_PlyEvent, type="thinking"):
    """The AI started computing its move."""


class UndoEvent(_PlyEvent, type="undo"):
    """The game went back to ``ply`` moves."""


class DrawDeclinedEvent(GameEvent, type="draw_declined"):
    """The AI declined a draw offer."""


class EndEvent(GameEvent, type="end"):
    """The game ended."""

    result: dict[str, Any]
    points_awarded: int


class DrawOfferedEvent(GameEvent, type="draw_offered"):
    """Room: a draw is offered (R5)."""

    by: str


class DrawRejectedEvent(GameEvent, type="draw_rejected"):
    """Room: the recipient moved instead of accepting (R5)."""

    by: str


class PausedEvent(GameEvent, type="paused"):
    """Room: both players are away; the turn waits on the shared budget (R7)."""


class ResumedEvent(GameEvent, type="resumed"):
    """Room: a player is back; the turn goes on (R7)."""


class OutageEvent(GameEvent, type="outage"):
    """Room: no server was alive for ``seconds``; the clock moved by as much (Z4)."""

    seconds: float


class RatedEvent(GameEvent, type="rated"):
    """Paired game (B2): the finished game changed its players' ratings (also in the state's
    ``options.rated``)."""

    rated: dict[str, Any] = Field(
        description="per side: `before`, `after`, `delta`, `provisional` (and `capped`: true "
        "when the hour's gain limit cut it, Z8); `counted` (false: nothing changed, `reason` "
        "`pair_limit`, `same_network`, `new_player` (with `ai_games_first`) or "
        "`new_opponent_limit`, Z8)"
    )


REPLIES = (AckReply, ErrorReply, PongReply, HintReply)
NOTICES = (
    BusyNotice,
    RoomNotice,
    ElsewhereNotice,
    DetachedNotice,
    LeftNotice,
    ProbeNotice,
    SaidNotice,
    SeekingNotice,
    WaitingNotice,
    PairedNotice,
    CancelledNotice,
)
EVENTS = (
    StateEvent,
    StartEvent,
    MoveEvent,
    ThinkingEvent,
    UndoEvent,
    DrawDeclinedEvent,
    EndEvent,
    DrawOfferedEvent,
    DrawRejectedEvent,
    PausedEvent,
    ResumedEvent,
    OutageEvent,
    RatedEvent,
)
_SERVER_MODELS = {model.message_type: model for model in (*REPLIES, *NOTICES, *EVENTS)}


def check_server_message(message: dict[str, Any]) -> ServerModel:
    """Validate one message the server sent (tests): a known ``type`` with the fields of its
    model. Raises ValueError (a pydantic ValidationError for the fields)."""
    fields = dict(message)
    kind = fields.pop("type", None)
    if kind not in _SERVER_MODELS:
        raise ValueError(f"no server message has the type {kind!r}")
    return _SERVER_MODELS[kind].model_validate(fields)
