"""The Glicko-2 rating system (Mark Glickman, "Example of the Glicko-2 system", 2013): one
rating period's update of a player's rating, deviation and volatility from their results.

Pure arithmetic, no I/O, a core module (records, storage and the rating rules use it).
:mod:`.rating_rules` decides which games count and stores the result
(SPEC B2). Checked against the paper's worked example in ``tests/test_ratings.py``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

SCALE = 173.7178  # Glicko-2's internal scale: (rating - 1500) / SCALE
DEFAULT_RATING = 1500.0
DEFAULT_DEVIATION = 350.0
DEFAULT_VOLATILITY = 0.06
# Glickman's bound: no rating is less known than a newcomer's. Without it a run of surprising
# results (a farm of fresh identities) pumped the volatility and the deviation past 500, so
# that every later game moved the rating further (SPEC Z8).
MAX_DEVIATION = DEFAULT_DEVIATION
TAU = 0.5  # the system constant: how fast volatility may change (the paper's example: 0.5)
EPSILON = 0.000001  # the convergence tolerance of the volatility iteration (the paper's)


@dataclass(frozen=True)
class Rating:
    """A player's Glicko-2 rating on the Glicko scale (1500 ± 350 for a newcomer)."""

    rating: float = DEFAULT_RATING
    deviation: float = DEFAULT_DEVIATION
    volatility: float = DEFAULT_VOLATILITY


@dataclass(frozen=True)
class Result:
    """One game of the period: the opponent's rating before it, and the score (1, ½ or 0)."""

    opponent: Rating
    score: float


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def update(player: Rating, results: Sequence[Result], tau: float = TAU) -> Rating:
    """The player's rating after a rating period with ``results`` (Glickman's steps 2–8).
    With no results only the deviation grows (step 6 alone). The deviation never exceeds
    :data:`MAX_DEVIATION`, before the period (step 6) as after it, so neither does the
    step the rating takes."""
    mu = (player.rating - DEFAULT_RATING) / SCALE
    phi = min(player.deviation, MAX_DEVIATION) / SCALE
    sigma = player.volatility
    if not results:
        return Rating(player.rating, _widened(phi, sigma) * SCALE, sigma)
    inverse_v = 0.0
    improvement = 0.0  # the sum of g(φj)(sj − E) over the games
    for result in results:
        mu_j = (result.opponent.rating - DEFAULT_RATING) / SCALE
        phi_j = result.opponent.deviation / SCALE
        g = _g(phi_j)
        expected = _expected(mu, mu_j, phi_j)
        inverse_v += g * g * expected * (1.0 - expected)
        improvement += g * (result.score - expected)
    v = 1.0 / inverse_v
    delta = v * improvement
    sigma_after = _volatility(phi, sigma, v, delta, tau)
    phi_star = _widened(phi, sigma_after)
    phi_after = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_after = mu + phi_after * phi_after * improvement
    return Rating(mu_after * SCALE + DEFAULT_RATING, phi_after * SCALE, sigma_after)


def _widened(phi: float, sigma: float) -> float:
    """Step 6: the deviation grown by the volatility over a period, at most
    :data:`MAX_DEVIATION` (on Glicko-2's scale)."""
    return min(math.sqrt(phi * phi + sigma * sigma), MAX_DEVIATION / SCALE)


def _volatility(phi: float, sigma: float, v: float, delta: float, tau: float) -> float:
    """Step 5: the new volatility, by the Illinois algorithm on f(x) = 0."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex) ** 2) - (
            x - a
        ) / (tau * tau)

    x_a = a
    if delta * delta > phi * phi + v:
        x_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        x_b = a - k * tau
    f_a, f_b = f(x_a), f(x_b)
    while abs(x_b - x_a) > EPSILON:
        c = x_a + (x_a - x_b) * f_a / (f_b - f_a)
        f_c = f(c)
        if f_c * f_b <= 0:
            x_a, f_a = x_b, f_b
        else:
            f_a /= 2.0
        x_b, f_b = c, f_c
    return math.exp(x_a / 2.0)
