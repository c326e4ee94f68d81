"""Trust: how much anyone may ask for. ``budget`` is the one design of every limit (N uses per
window, counted in the database for every instance); ``budgets`` applies it to creating
players, games and rooms."""
