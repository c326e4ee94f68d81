"""The AI: ``pool`` runs engine searches in worker processes, never on the event loop, and
shares them fairly between players and networks; ``queue`` sends the same jobs through Redis
to ``chuhan ai-worker`` processes when several server instances share the workers."""
