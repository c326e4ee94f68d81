"""The HTTP layer: how a request is refused (one error shape for every route), the game and
operator routers, the static front end, and the guard in front of it all (security headers,
CSRF, body limits) with the per-address connection limits. Who is asking (the player
cookie) is :mod:`..identity`, below every router that needs it."""
