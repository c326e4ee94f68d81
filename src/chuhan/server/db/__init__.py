"""The database: every table (:mod:`.tables`, one ``MetaData`` that
Alembic's ``migrations/env.py`` compares) and every query live in this package; the rest
of the server hands it the plain records of :mod:`chuhan.server.records`."""
