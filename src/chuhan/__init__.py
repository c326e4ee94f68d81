"""Chu-Han: xiangqi, janggi and jieqi against a server-side AI or a friend."""

__version__ = "0.1.0"
