"""Puzzles (SPEC B9): positions with one good move at each of the solver's turns, played on
the board one move at a time. The puzzles are data (``data/*.jsonl``, loaded into the
``puzzles`` table by an instance's first puzzle request, or by ``chuhan puzzles load``); the
server checks each move against the stored line (any mating move where the line's last move
mates), answers with the stored reply and never runs an engine. A Glicko-2 puzzle rating per
player and variant and per puzzle, a puzzle of the day per variant, a streak, the history in
My games. Trust (Z1, Z8): every move is judged here, the solution is sent only once the
attempt is over, and asking for it counts as a loss.
"""
