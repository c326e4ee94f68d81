// Applying the server's game events to the state a client holds (docs/protocol.md, Events).
// The one place on the client that knows how an event changes a game's state: the socket
// class calls applyEvent for every game event in seq order, and the play view renders the
// state it returns: exactly the state a full `state` from the server would give.
//
// An event carries either the whole state (`state`, and the rare `start`, `undo`, `end`,
// `outage`) or only what changed: `set` (state fields replaced whole), `legal` (the legal
// moves in short: "h3:h4h5e3 b3:b4 pass", runs of one origin in order) and, for a `move`, one
// new entry for each of the state's lists: the move, its text in each notation, and in
// jieqi its record (with `known`: captures shown otherwise now, on one device).

/**
 * Returns the viewer's state after `event`, given the state before it (null before any).
 * Returns null when a change event does not follow `state` (another game, or not the next
 * move): the caller then asks for a full state (hello with last_seq null).
 */
export function applyEvent(state, event) {
  if (event.state) return event.state;
  if (!state) return null;
  if (event.game_id && state.id !== event.game_id) return null;
  if (!event.set) return { ...state, seq: event.seq };
  if (event.type === "move" && event.ply !== state.ply) return null;
  const next = { ...state, ...event.set, seq: event.seq };
  if (typeof event.legal === "string") next.legal_moves = unpackMoves(event.legal);
  if (event.type === "move") {
    next.moves = [...state.moves, event.move];
    if (state.notation && event.notation) {
      next.notation = {};
      for (const [name, texts] of Object.entries(state.notation)) {
        next.notation[name] = [...texts, event.notation[name]];
      }
    }
    if (event.record) {
      const records = [...(state.records || []), event.record];
      for (const [index, captured] of event.known || []) {
        records[index] = { ...records[index], captured };
      }
      next.records = records;
    }
  }
  return next;
}

/** "h3:h4h5 b3:b4 pass" → ["h3h4", "h3h5", "b3b4", "pass"] (the server's order). */
function unpackMoves(text) {
  const moves = [];
  for (const group of text.split(" ")) {
    if (!group) continue;
    if (group === "pass") {
      moves.push(group);
      continue;
    }
    const [origin, targets] = group.split(":");
    for (const target of targets.match(/[a-i](?:10|[1-9])/g) || []) moves.push(origin + target);
  }
  return moves;
}
