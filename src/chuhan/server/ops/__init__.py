"""Watching the server: ``metrics`` the Prometheus figures, ``collector`` the garbage
collector's schedule, ``stalls`` the event-loop pause log, and ``retention`` the job that
deletes what is kept no longer. Starting it (``server/run.py``) and the log format
(``server/logs.py``) live outside: the one sits above the app it runs, the other below
everything that logs."""
