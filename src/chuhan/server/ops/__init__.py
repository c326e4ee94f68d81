"""Running the server and watching it: ``run`` starts uvicorn with its connection guard,
``logs`` is the log format, ``metrics`` the Prometheus figures, ``collector`` the garbage
collector's schedule, ``stalls`` the event-loop pause log, and ``retention`` the job that
deletes what is kept no longer."""
