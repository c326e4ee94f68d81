"""Players beyond one game: display names and the text they may write (``names``), Glicko-2
ratings (``glicko2``, ``ratings``) and the archive of a player's finished games (``archive``)."""
