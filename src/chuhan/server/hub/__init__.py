"""The hub that tells every follower of a game or room about its changes: ``local`` within one
process, ``redis`` across server instances (with resynchronisation after an outage)."""
