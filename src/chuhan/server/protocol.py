"""The messages of the WebSockets, typed: what a client sends to ``/ws/games/{id}``,
``/ws/rooms/{id}`` and ``/ws/seek`` (B1), and what the server answers (SPEC Z5, P5;
docs/protocol.md).

Client messages are pydantic models in discriminated unions (:data:`GameMessage`,
:data:`RoomMessage`, :data:`SeekMessage`) that share one base (an ``id`` and a ``type``);
:func:`parse` reads a frame into one of them or raises :class:`ProtocolError`. Server
messages are the models of :data:`REPLIES`, :data:`NOTICES` and :data:`EVENTS`, each named
by the ``type`` in its class line (every socket builds what it sends from them,
e.g. ``PongReply(reply_to=…).wire()``; :func:`error_reply` and
:func:`state_event` are the short forms of the two sent from outside the sockets too), from
which the message tables of docs/protocol.md are generated (``python -m
chuhan.server.protocol --write``; a test checks that the file matches). The HTTP API's
request bodies are here too, and its errors: the status of each code of the one refusal,
:class:`.refusal.GameActionError` (:data:`HTTP_ERRORS`, the docs' HTTP errors table), and the
one answer (:func:`error_body`). Nothing here touches a game.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, TypeAdapter, ValidationError

from ..rules.janggi import SetupChoice

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


@dataclass(frozen=True)
class MessageSet:
    """The messages one socket understands."""

    name: str
    models: tuple[type[ClientMessage], ...]
    adapter: TypeAdapter[Any]

    @cached_property
    def types(self) -> tuple[str, ...]:
        """Known once: every message of every socket is checked against them."""
        return tuple(_type_of(model) for model in self.models)


def _type_of(model: type[BaseModel]) -> str:
    if issubclass(model, ServerModel):
        return model.message_type
    return str(model.model_fields["type"].annotation.__args__[0])  # type: ignore[union-attr]


def _models(union: Any) -> tuple[type[ClientMessage], ...]:
    return tuple(union.__origin__.__args__)


SeekMessage = Annotated[SeekRequest | CancelSeek | Ping, Field(discriminator="type")]
GAME_MESSAGES = MessageSet("game", _models(GameMessage), TypeAdapter(GameMessage))
SEEK_MESSAGES = MessageSet("seek", _models(SeekMessage), TypeAdapter(SeekMessage))
ROOM_MESSAGES = MessageSet("room", _models(RoomMessage), TypeAdapter(RoomMessage))
_ENVELOPE = TypeAdapter(MessageId)


def parse(raw: str | bytes, max_bytes: int, messages: MessageSet = GAME_MESSAGES) -> Any:
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
        return messages.adapter.validate_python(data)
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


def error_body(code: str, message: str, **fields: Any) -> dict[str, Any]:
    """The HTTP API's one error answer: ``{"error": {"code", "message", …fields}}`` (the
    fields of the socket's error reply, inside ``error``; docs/protocol.md, HTTP errors)."""
    return {"error": {"code": code, "message": message, **fields}}


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


# ---------------------------------------------------------------------- HTTP request bodies
# What the HTTP API's routes read (docs/protocol.md, HTTP JSON API and Rooms); a body that
# does not fit is refused 422 ``invalid_request``.


class CreateGameBody(BaseModel):
    """``POST /api/games`` (SPEC P1, P2, P6)."""

    kind: Literal["ai", "local"] = "ai"
    variant: Literal["xiangqi", "janggi", "jieqi"] = "xiangqi"
    level: Literal["beginner", "intermediate", "advanced"] | None = None
    color: Literal["red", "black", "cho", "han", "random"] = "random"
    setup: SetupChoice | None = None
    setup_other: SetupChoice | None = None
    bikjang: Literal["off", "points"] = "off"
    rules: Literal["casual", "wxf"] = "casual"  # how repetitions are judged (E1)
    abandon_pending: bool = False


class MoveBody(BaseModel):
    """``POST /api/games/{id}/moves``: the socket's ``move`` over HTTP."""

    ply: int = Field(ge=0, le=MAX_NUMBER)
    move: str = Field(min_length=1, max_length=MAX_MOVE_LENGTH)
    id: str | None = Field(default=None, max_length=MAX_ID_LENGTH)


class ProfileBody(BaseModel):
    """``PATCH /api/me`` (S1)."""

    name: str | None = Field(default=None, max_length=40)


class AnalysisBody(BaseModel):
    """``POST /api/analysis/moves``: a position for the learn pages."""

    variant: Literal["xiangqi", "janggi", "jieqi"] = "xiangqi"
    fen: str | None = Field(default=None, max_length=200)
    setup: str | None = Field(default=None, max_length=9)


class CreateRoomBody(BaseModel):
    """``POST /api/rooms`` (R1, R2)."""

    variant: Literal["xiangqi", "janggi", "jieqi"] = "xiangqi"
    bikjang: Literal["off", "points"] = "off"
    rules: Literal["casual", "wxf"] = "casual"  # how repetitions are judged (E1)
    password: str | None = Field(default=None, max_length=40)
    # B7: a game clock (``5+3``, janggi ``5m+3x30s``…), or ``turn``/none for R4's 90 s a move
    clock: str | None = Field(default=None, max_length=16)


class JoinBody(BaseModel):
    """``POST /api/rooms/join`` (R2, Z3)."""

    password: str = Field(max_length=40)


class SignInBody(BaseModel):
    """``POST /api/devices/sign-in`` (B6): a device link's code or a recovery code."""

    link: str | None = Field(default=None, max_length=64)
    recovery: str | None = Field(default=None, max_length=64)


# ---------------------------------------------------------------------- HTTP errors


@dataclass(frozen=True)
class HttpError:
    """One error code of the HTTP API: its status, the fields it carries inside ``error``
    besides ``code`` and ``message``, and when it is answered."""

    status: int
    meaning: str
    fields: tuple[str, ...] = ()


REFUSED = 409  # any code not listed: an action the game or room refuses now
# Every status of the HTTP API's refusals is here: a refusal names its code, and
# the code its status. Listed: every code whose status is not 409, or with fields of its own.
HTTP_ERRORS: dict[str, HttpError] = {
    "bad_request": HttpError(
        400,
        'fits the schema but not the game: `color: "cho"` in xiangqi, no `level` for an AI '
        "game, a notation the variant does not use, a move not legal now, a cursor the server "
        "did not give",
    ),
    "bad_name": HttpError(
        400,
        "a name a reader could be fooled by; `reason`: `invisible`, `marks`, "
        "`no_letter`, `reserved`, `length`",
        ("reason",),
    ),
    "bad_password": HttpError(
        400,
        "a room password that breaks a rule; `reason`: which (length, letters and digits only, "
        "one repeated digit, consecutive digits)",
        ("reason",),
    ),
    "bad_record": HttpError(
        400,
        "a record that cannot be read or kept; `line`: the line to blame, null when none is",
        ("line",),
    ),
    "empty_record": HttpError(400, "a record with nothing in it but blanks (N4)"),
    "no_player": HttpError(401, "an unsafe request without a known player cookie (Z6)"),
    "foreign_origin": HttpError(403, "an unsafe request from a page of another site (Z6)"),
    "not_found": HttpError(404, "no such page, game or room, or someone else's (Z2)"),
    "bad_code": HttpError(
        404, "a device link or recovery code that is unknown, used, expired or revoked (B6)"
    ),
    "wrong_password": HttpError(
        404, "no open room has this password (Z3); `tries_left`", ("tries_left",)
    ),
    "pending_game": HttpError(
        409,
        "an AI game is pending (P2); `pending`: its state; confirm with `abandon_pending`",
        ("pending",),
    ),
    "room_closed": HttpError(410, "the invite's room is closed"),
    "too_large": HttpError(413, "the body is over `CHUHAN_MAX_BODY_BYTES`"),
    "too_many_moves": HttpError(413, "a record with too many moves; `line`", ("line",)),
    "form_body": HttpError(415, "a form's body type without the `X-Chuhan-Client` header (Z6)"),
    "invalid_request": HttpError(
        422, "the body or query does not fit the schema: unknown variant, malformed JSON…"
    ),
    "too_many_players": HttpError(
        429, "the address block made too many players", ("retry_after",)
    ),
    "too_many_games": HttpError(429, "too many games started", ("retry_after",)),
    "too_many_imports": HttpError(429, "too many records imported", ("retry_after",)),
    "too_many_analyses": HttpError(429, "too many analyses asked for", ("retry_after",)),
    "too_many_downloads": HttpError(429, "too many downloads of one's games", ("retry_after",)),
    "download_running": HttpError(
        429, "a download of one's games is being written (Z7)", ("retry_after",)
    ),
    "analysis_queue_full": HttpError(
        429, "the asker has their share of analyses queued already", ("retry_after",)
    ),
    "too_many_attempts": HttpError(
        429, "too many password attempts (Z3)", ("tries_left", "retry_after")
    ),
    "too_many_rooms": HttpError(429, "the player has the most open rooms already"),
    "too_many_seeks": HttpError(429, "seek socket: too many seeks", ("retry_after",)),
    "too_many_puzzles": HttpError(
        429, "too many puzzles begun or puzzle moves made (B9)", ("retry_after",)
    ),
    "abort_cooldown": HttpError(
        429, "seek socket: paired games left unbegun; wait (Z8)", ("retry_after",)
    ),
    "too_many_rematches": HttpError(
        429, "room socket: too many rematch offers and cancels (B4)", ("retry_after",)
    ),
    "too_many_messages": HttpError(
        429, "room socket: too many quick messages from one seat (B8)", ("retry_after",)
    ),
    "too_many_device_codes": HttpError(
        429, "too many device links or recovery codes issued (B6)", ("retry_after",)
    ),
    "too_many_sign_ins": HttpError(
        429, "too many device sign-ins from the address block (B6)", ("retry_after",)
    ),
    "too_many_connections": HttpError(429, "a socket over its address's count"),
    "busy": HttpError(503, "the game or room is changing too fast, or the AI is busy; retry"),
}


def http_status(code: str) -> int:
    """The HTTP status of a refusal with this code."""
    known = HTTP_ERRORS.get(code)
    return known.status if known is not None else REFUSED


# ---------------------------------------------------------------------- docs/protocol.md

DOCS = Path(__file__).resolve().parents[3] / "docs" / "protocol.md"
BEGIN = "<!-- generated by `python -m chuhan.server.protocol --write`: do not edit -->"
END = "<!-- end of generated tables -->"
HTTP_BEGIN = "<!-- HTTP errors, generated by `python -m chuhan.server.protocol --write` -->"
HTTP_END = "<!-- end of the HTTP errors -->"


def _one_line(text: str | None) -> str:
    return " ".join((text or "").split()).replace("``", "`").replace("|", "\\|")


def _field_text(model: type[BaseModel], skip: tuple[str, ...]) -> str:
    parts = []
    for name, info in model.model_fields.items():
        if name in skip:
            continue
        text = f"`{name}`"
        if info.description:
            text += f" ({_one_line(info.description)})"
        parts.append(text)
    return ", ".join(parts)


def _table(title: str, models: tuple[type[BaseModel], ...], skip: tuple[str, ...]) -> list[str]:
    lines = [f"#### {title}", "", "| type | fields | meaning |", "| --- | --- | --- |"]
    for model in models:
        lines.append(
            f"| `{_type_of(model)}` | {_field_text(model, skip)} | {_one_line(model.__doc__)} |"
        )
    return [*lines, ""]


def generated_tables() -> str:
    """The message tables of docs/protocol.md, from the models of this module."""
    skip = ("id", "type")
    lines = [BEGIN, ""]
    lines += _table("Game socket `/ws/games/{id}`: client → server", GAME_MESSAGES.models, skip)
    lines += _table("Room socket `/ws/rooms/{id}`: client → server", ROOM_MESSAGES.models, skip)
    lines += _table("Seek socket `/ws/seek`: client → server", SEEK_MESSAGES.models, skip)
    lines += _table("Replies (server → client, with `reply_to`)", REPLIES, ("type",))
    lines += _table("Notices (neither `seq` nor `reply_to`)", NOTICES, ("type",))
    lines += _table("Game events (with `seq`)", EVENTS, ("type", "seq", "game_id"))
    return "\n".join([*lines, END])


def generated_http_errors() -> str:
    """The HTTP error table of docs/protocol.md, from :data:`HTTP_ERRORS`."""
    lines = [HTTP_BEGIN, "", "| code | status | fields in `error` | meaning |"]
    lines.append("| --- | --- | --- | --- |")
    for code, error in sorted(HTTP_ERRORS.items(), key=lambda item: (item[1].status, item[0])):
        fields = ", ".join(f"`{name}`" for name in error.fields)
        lines.append(f"| `{code}` | {error.status} | {fields} | {_one_line(error.meaning)} |")
    lines.append(f"| any other code | {REFUSED} | | an action the game or room refuses now |")
    return "\n".join([*lines, "", HTTP_END])


def _replaced(text: str, begin: str, end: str, fresh: str) -> str:
    start, stop = text.find(begin), text.find(end)
    if start < 0 or stop < start:
        raise ValueError(f"docs/protocol.md has no generated section {begin!r}")
    return text[:start] + fresh + text[stop + len(end) :]


def docs_with_tables(text: str) -> str:
    """``text`` (docs/protocol.md) with its generated sections (the message tables, the HTTP
    errors) replaced by fresh ones. Raises ValueError when the markers are missing."""
    text = _replaced(text, BEGIN, END, generated_tables())
    return _replaced(text, HTTP_BEGIN, HTTP_END, generated_http_errors())


if __name__ == "__main__":  # pragma: no cover - a maintainer's command
    fresh = docs_with_tables(DOCS.read_text(encoding="utf-8"))
    if "--write" in sys.argv:
        DOCS.write_text(fresh, encoding="utf-8")
    else:
        sys.stdout.write(generated_tables() + "\n\n" + generated_http_errors() + "\n")
