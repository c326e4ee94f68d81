// Talking to the server (docs/protocol.md): JSON over HTTP for games and the profile, a
// WebSocket per game for moves and events. The server is the authority; this module only
// delivers messages, and after a failure reconnects, resynchronises and resends (SPEC P5).
// A move is resent with the same id, which the server acknowledges without applying twice.

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

let counter = 0;
function nextId() {
  counter += 1;
  return `c${Date.now().toString(36)}${counter}`;
}

export class GameSocket {
  /**
   * gameId: the game to follow; lastSeq: the seq of the state already shown.
   * handlers.onEvent(event): an event (with seq) in order, each once.
   * handlers.onStatus("connecting" | "online" | "offline"): the link changed.
   */
  constructor(gameId, lastSeq, handlers) {
    this.gameId = gameId;
    this.lastSeq = lastSeq ?? null;
    this.handlers = handlers;
    this.outbox = new Map(); // id → {message, resolve, reject, sentAt}
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
    if (this.socket) this.socket.close();
  }

  setStatus(status) {
    if (status === this.status) return;
    this.status = status;
    this.handlers.onStatus(status);
  }

  open() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    let socket;
    try {
      socket = new WebSocket(`${scheme}://${location.host}/ws/games/${encodeURIComponent(this.gameId)}`);
    } catch {
      this.scheduleReconnect();
      return;
    }
    this.socket = socket;
    this.setStatus("connecting");
    socket.addEventListener("open", () => {
      this.backoff = 500;
      this.raw({ id: nextId(), type: "hello", last_seq: this.lastSeq });
      for (const entry of this.outbox.values()) {
        entry.sentAt = Date.now();
        this.raw(entry.message);
      }
      this.setStatus("online");
    });
    socket.addEventListener("message", (event) => this.receive(event.data));
    socket.addEventListener("close", () => {
      if (this.socket !== socket) return;
      this.socket = null;
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
    return new Promise((resolve, reject) => {
      this.outbox.set(message.id, { message, resolve, reject, sentAt: Date.now() });
      this.raw(message);
    });
  }

  /** Forget a request that is still waiting (e.g. the position changed under it). */
  abandon(id) {
    this.outbox.delete(id);
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
    if (message.reply_to !== undefined && message.seq === undefined) {
      const entry = this.outbox.get(message.reply_to);
      if (entry) {
        this.outbox.delete(message.reply_to);
        entry.resolve(message);
      } else if (message.type === "error" && message.state) {
        this.handlers.onEvent({ type: "state", state: message.state, seq: message.state.seq });
      }
      return;
    }
    if (typeof message.seq === "number") {
      if (message.type === "state") {
        this.lastSeq = message.seq;
        this.handlers.onEvent(message);
        return;
      }
      if (this.lastSeq !== null && message.seq <= this.lastSeq) return;
      if (this.lastSeq !== null && message.seq > this.lastSeq + 1) {
        // A gap: ask again from what we have; the server resends what we missed.
        this.raw({ id: nextId(), type: "hello", last_seq: this.lastSeq });
        return;
      }
      this.lastSeq = message.seq;
    }
    this.handlers.onEvent(message);
  }
}
