"""The Chu-Han server: players, saved games against the AI and on one device (issue 7).

``create_app(settings)`` gives the ASGI app; ``chuhan serve`` runs it under uvicorn.
"""

from .app import create_app
from .settings import Settings

__all__ = ["Settings", "create_app"]
