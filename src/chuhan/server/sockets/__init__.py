"""The WebSockets: ``base`` has what every socket shares (the receive loop, the error replies,
following a game's events through the hub) and ``game`` is the socket of one game against the
AI or on one device. The room and pairing sockets live in ``rooms/`` and ``pairing/``."""
