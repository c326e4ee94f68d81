"""Who a client is counted as: its address block, and the block of the request being served.

Pure address arithmetic and one context variable, used by every layer that counts per
client (the connection guard, the rooms' and pairing's rate limits, the creation budgets, the
AI pool's fair shares); a core module, so that none of them reaches up into ``http`` for it.
"""

from __future__ import annotations

import ipaddress
from contextvars import ContextVar

# The address block of the client whose request or socket is being served ("" outside one,
# e.g. the server's own work at start-up); set by the ASGI guard, read by the AI pool's fair
# shares. Tasks started while serving a client inherit it.
CLIENT_BLOCK: ContextVar[str] = ContextVar("chuhan_client_block", default="")


def address_block(host: str) -> str:
    """The unit one client is counted in: an IPv4 address, or the /64 of an IPv6 address
    (one machine often holds a whole /64). Anything else (a Unix socket) counts as itself."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host[:64]
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network(f"{address}/64", strict=False))
    return str(address)


def trusts(proxies: tuple[str, ...], host: str) -> bool:
    """Whether ``host`` is one of ``proxies``: addresses or networks (``10.0.0.0/8``), ``*``
    for any, anything else (a Unix socket's name) compared as it is; as uvicorn reads
    ``forwarded_allow_ips``, so what is not counted here is what its header is believed for."""
    if "*" in proxies or host in proxies:
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    for proxy in proxies:
        try:
            if address in ipaddress.ip_network(proxy, strict=False):
                return True
        except ValueError:
            continue
    return False


def network_block(host: str) -> str | None:
    """The /48 of an IPv6 address (one site's, often one customer's), counted besides its
    /64 where one holder of many /64s must not get each one's budget; None for IPv4
    addresses (an IPv4 /24 is often many unrelated customers) and anything else."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return None
    if not isinstance(address, ipaddress.IPv6Address) or address.ipv4_mapped is not None:
        return None
    return str(ipaddress.IPv6Network(f"{address}/48", strict=False))


def network_of_block(block: str) -> str | None:
    """The /48 of an address block that is an IPv6 /64 (:func:`address_block`'s), else None."""
    try:
        network = ipaddress.ip_network(block)
    except ValueError:
        return None
    if not isinstance(network, ipaddress.IPv6Network) or network.prefixlen != 64:
        return None
    return str(network.supernet(new_prefix=48))
