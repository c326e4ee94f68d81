// Applying the server's game events to the state a client holds (docs/protocol.md).
// The one place on the client that knows how an event changes a game's state: the socket
// class calls applyEvent for every game event in seq order, and the play view renders the
// state it returns. Today every event still carries the whole state for this viewer; when
// events carry only the change, this function grows, and nothing that renders has to.

/** Returns the viewer's state after `event`, given the state before it (null before any). */
export function applyEvent(state, event) {
  if (event.state) return event.state;
  return state;
}
