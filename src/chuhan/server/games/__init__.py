"""Games against the AI and on one device: ``changes`` is the pure game logic (a game record
and an action in, the change to commit out), ``service`` creates, loads and changes games and
plays the AI's turns, ``known`` remembers each game as last committed, and ``review`` imports,
exports and analyses finished games."""
