"""``python -m chuhan.server.protocol [--write]``: docs/protocol.md's generated tables
(:mod:`.docs`)."""

import sys

from .docs import main

main(sys.argv[1:])
