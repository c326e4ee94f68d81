"""Play a stranger (SPEC B1): seeks, site-wide pairing, and the socket that waits."""
