"""Trust: how much anyone may ask for. ``budgets`` applies the one design of every limit
(``server/budget.py``: N uses per window, counted in the database for every instance) to
creating players, games and rooms."""
