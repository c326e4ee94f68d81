"""Games against the AI and on one device: ``changes`` is the pure game logic (a game record
and an action in, the change to commit out), ``service`` creates, loads and changes games and
plays the AI's turns, ``known`` remembers each game as last committed; after a game,
``records_io`` writes and reads its record, ``analysis`` runs the engine over it, and ``review``
serves both over HTTP with share links."""
