// Talking to the server (docs/protocol.md): JSON over HTTP for games and the profile, and one
// WebSocket class for both sockets, /ws/games/{id} and /ws/rooms/{id}. The server is the
// authority; this module only delivers messages, and after a failure reconnects,
// resynchronises and resends (SPEC P5, R7). A request is resent with the same id, which the
// server acknowledges without applying it twice.
import { applyEvent } from "./events.js";

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.error?.message || `HTTP ${status}`);
    this.status = status;
    this.code = body?.error?.code || "http_error";
    this.body = body;
  }
}

/** Call the HTTP API; returns the parsed JSON; raises ApiError for 4xx/5xx or no answer. */
export async function api(method, path, body) {
  let response;
  try {
    response = await fetch(path, {
      method,
      headers: body ? { "content-type": "application/json" } : {},
      body: body ? JSON.stringify(body) : undefined,
      credentials: "same-origin",
    });
  } catch {
    throw new ApiError(0, { error: { code: "network", message: "network error" } });
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

const REPLY_TIMEOUT_MS = 6000;
const PING_INTERVAL_MS = 20000;
const MAX_BACKOFF_MS = 8000;
// Close codes after which reconnecting is pointless: no such game or seat, or the room
// continues on another device (R7).
const FINAL_CLOSE_CODES = new Set([4404, 4409]);

let counter = 0;
function nextId() {
  counter += 1;
  return `c${Date.now().toString(36)}${counter}`;
}

/**
 * One WebSocket to the server, kept open: requests with ids and their replies, events in seq
 * order each once (a gap asks again with hello), a resend of what is unanswered after a
 * reconnection, a ping now and then.
 *
 * path: "/ws/games/<id>" or "/ws/rooms/<id>".
 * options.state: the game's state already shown (its seq is where events continue), or null.
 * options.hello(): extra hello fields (a room: {device}); a room socket also says game_id.
 * options.room: true for a room socket (events carry game_id; a new game starts over).
 * handlers.onEvent(event, state): a game event, and the viewer's state after it (events.js).
 * handlers.onMessage(message): anything else the server says unasked (room, elsewhere…).
 * handlers.onStatus("connecting" | "online" | "offline" | "closed"): the link changed.
 */
export class PlaySocket {
  constructor(path, options, handlers) {
    this.path = path;
    this.room = Boolean(options.room);
    this.helloFields = options.hello || (() => ({}));
    this.state = options.state ?? null;
    this.gameId = this.state?.id ?? null;
    this.lastSeq = this.state?.seq ?? null;
    this.handlers = handlers;
    this.outbox = new Map(); // id → {message, resolve, sentAt}
    this.socket = null;
    this.backoff = 500;
    this.stopped = false;
    this.status = "connecting";
    this.watchdog = setInterval(() => this.checkTimeouts(), 1000);
    this.pinger = setInterval(() => this.ping(), PING_INTERVAL_MS);
  }

  start() {
    this.stopped = false;
    this.open();
  }

  stop() {
    this.stopped = true;
    clearInterval(this.watchdog);
    clearInterval(this.pinger);
    for (const entry of this.outbox.values()) entry.resolve({ type: "error", code: "offline" });
    this.outbox.clear();
    if (this.socket) this.socket.close();
  }

  setStatus(status) {
    if (status === this.status) return;
    this.status = status;
    this.handlers.onStatus?.(status);
  }

  hello() {
    const fields = { ...this.helloFields(), last_seq: this.lastSeq };
    if (this.room) fields.game_id = this.gameId;
    this.raw({ id: nextId(), type: "hello", ...fields });
  }

  /** Ask the server again from the last event held (it resends what was missed). */
  resync() {
    this.hello();
  }

  open() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    let socket;
    try {
      socket = new WebSocket(`${scheme}://${location.host}${this.path}`);
    } catch {
      this.scheduleReconnect();
      return;
    }
    this.socket = socket;
    this.setStatus("connecting");
    socket.addEventListener("open", () => {
      this.backoff = 500;
      this.hello();
      for (const entry of this.outbox.values()) {
        entry.sentAt = Date.now();
        this.raw(entry.message);
      }
      this.setStatus("online");
    });
    socket.addEventListener("message", (event) => this.receive(event.data));
    socket.addEventListener("close", (event) => {
      if (this.socket !== socket) return;
      this.socket = null;
      if (FINAL_CLOSE_CODES.has(event.code)) {
        this.stop();
        this.setStatus("closed");
        return;
      }
      if (!this.stopped) {
        this.setStatus("offline");
        this.scheduleReconnect();
      }
    });
  }

  scheduleReconnect() {
    if (this.stopped) return;
    const delay = this.backoff;
    this.backoff = Math.min(MAX_BACKOFF_MS, this.backoff * 2);
    setTimeout(() => {
      if (!this.stopped && !this.socket) this.open();
    }, delay);
  }

  raw(message) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) {
      this.socket.send(JSON.stringify(message));
      return true;
    }
    return false;
  }

  /** Send a request; resolves with the server's reply (ack, error, hint, pong). */
  request(type, fields = {}) {
    const message = { id: nextId(), type, ...fields };
    if (this.stopped) return Promise.resolve({ type: "error", code: "offline" });
    return new Promise((resolve) => {
      this.outbox.set(message.id, { message, resolve, sentAt: Date.now() });
      this.raw(message);
    });
  }

  ping() {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) {
      this.raw({ id: nextId(), type: "ping" });
    }
  }

  // A request without an answer means the link is broken even if the socket looks open:
  // drop it and let the reconnection resend everything still waiting.
  checkTimeouts() {
    const now = Date.now();
    for (const entry of this.outbox.values()) {
      if (now - entry.sentAt > REPLY_TIMEOUT_MS && this.socket) {
        entry.sentAt = now;
        const socket = this.socket;
        this.socket = null;
        socket.close();
        this.setStatus("offline");
        this.scheduleReconnect();
        return;
      }
    }
  }

  receive(text) {
    let message;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (message.type === "probe") {
      // The room measures the round trip for the turn clock's lag allowance (R4).
      this.raw({ id: nextId(), type: "probe", n: message.n });
      return;
    }
    if (message.reply_to !== undefined && message.reply_to !== null && message.seq === undefined) {
      const entry = this.outbox.get(message.reply_to);
      if (entry) {
        this.outbox.delete(message.reply_to);
        entry.resolve(message);
      }
      // A refusal carries the state as it is now: adopt it (a stale move, a lost event).
      if (message.type === "error" && message.state) this.adopt({ type: "state", state: message.state });
      return;
    }
    if (typeof message.seq === "number") {
      this.event(message);
      return;
    }
    this.handlers.onMessage?.(message);
  }

  event(message) {
    const newGame = this.room && message.game_id && message.game_id !== this.gameId;
    if (newGame) {
      // The room's next game: it starts from its own full state.
      this.gameId = message.game_id;
      this.lastSeq = null;
      this.state = null;
    }
    if (message.type !== "state") {
      if (this.lastSeq !== null && message.seq <= this.lastSeq) return;
      if (this.lastSeq !== null && message.seq > this.lastSeq + 1) {
        // A gap: ask again from what we have; the server resends what we missed.
        this.hello();
        return;
      }
      if (this.state === null && !message.state) {
        this.hello();
        return;
      }
    }
    this.lastSeq = message.seq;
    this.adopt(message);
  }

  adopt(event) {
    const next = applyEvent(this.state, event);
    if (next === null) {
      // The change does not follow what we hold: ask for the whole state, keep showing ours.
      this.lastSeq = null;
      this.hello();
      return;
    }
    this.state = next;
    if (this.state?.id) this.gameId = this.state.id;
    if (typeof this.state?.seq === "number" && (this.lastSeq === null || this.state.seq > this.lastSeq)) {
      this.lastSeq = this.state.seq;
    }
    this.handlers.onEvent(event, this.state);
  }
}
