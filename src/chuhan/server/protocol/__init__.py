"""What travels between a client and the server, and nothing that touches a game:

- :mod:`.messages`: every message of the WebSockets, client's and server's (the one module
  that defines them), and the reader of a client's frame;
- :mod:`.bodies`: the HTTP API's request bodies;
- :mod:`.errors`: the HTTP API's error codes, their statuses, and the one error answer;
- :mod:`.docs`: docs/protocol.md's tables, generated from the two above
  (``python -m chuhan.server.protocol --write``).
"""
