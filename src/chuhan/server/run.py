"""``chuhan serve``: the app under uvicorn with JSON-lines logs."""

from __future__ import annotations

from pathlib import Path

import uvicorn

from .app import create_app
from .logs import log_config
from .settings import Settings

MAX_WEBSOCKET_FRAME = 64 * 1024  # larger frames close the socket; smaller ones over 4 KiB
# get a protocol error (SPEC Z5)


def serve(host: str, port: int, data_dir: str) -> int:
    """Run the server until interrupted; returns the exit status."""
    settings = Settings.from_env(data_dir=Path(data_dir))
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    app = create_app(settings)
    uvicorn.run(
        app,
        host=host,
        port=port,
        log_config=log_config(),
        ws_max_size=MAX_WEBSOCKET_FRAME,
        proxy_headers=True,
    )
    return 0
