"""Refuse cross-site requests that could change data: the browser-borne write (CSRF) guard.

A page on any other origin can make a visitor's browser send a form ``POST`` (no CORS preflight) to a kgsvc on
``localhost`` or the intranet: ``update=DROP ALL`` would run. Browsers say where such a request comes from, and
:func:`cross_site` reads it, for every request whose method is not ``GET``, ``HEAD`` or ``OPTIONS`` (so the
SPARQL ``GET`` fast path pays nothing):

* ``Sec-Fetch-Site`` (every current browser): only ``same-origin`` and ``none`` (typed in, bookmarks) pass;
  ``same-site`` (another port on the same host), ``cross-site`` are refused;
* ``Origin``: when present it must name this server (scheme-less ``host[:port]`` equal to the ``Host`` header,
  default ports ignored), or be listed in ``KGSVC_CORS_ORIGINS``. ``Origin: null`` (sandboxed frames, ``file:``
  pages) is refused.

Clients that are not browsers (curl, the SDK, SPARQLWrapper) send neither header and pass; the bearer token
(``KGSVC_API_TOKEN``) is what guards against them. The check holds whatever the token setting, since a browser
never adds the token to a cross-site form post. Behind a reverse proxy the proxy must keep the ``Host`` header
(nginx: ``proxy_set_header Host $host``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from urllib.parse import urlsplit

__all__ = ["SAFE_METHODS", "cross_site"]

#: Methods that change nothing and are never refused.
SAFE_METHODS = frozenset(("GET", "HEAD", "OPTIONS"))
_DEFAULT_PORTS = {"http": "80", "https": "443"}


def _host_port(host: str, scheme: str) -> str:
    host = host.strip().lower()
    default = _DEFAULT_PORTS.get(scheme)
    if default and host.endswith(f":{default}"):
        host = host[: -len(default) - 1]
    return host


def cross_site(method: str, headers: Iterable[tuple[bytes, bytes]], scheme: str, allowed: Sequence[str]) -> str | None:
    """Why a request must be refused as cross-site, or ``None`` when it may go on.

    ``headers`` are the ASGI scope's raw headers; ``allowed`` the origins listed in ``KGSVC_CORS_ORIGINS``.

    >>> cross_site("POST", [(b"host", b"127.0.0.1:8000"), (b"origin", b"http://127.0.0.1:8000")], "http", [])
    >>> cross_site("POST", [(b"host", b"127.0.0.1:8000"), (b"origin", b"http://127.0.0.1:9000")], "http", [])
    'Origin http://127.0.0.1:9000 is not this server (127.0.0.1:8000)'
    >>> cross_site("DELETE", [(b"sec-fetch-site", b"same-site")], "http", [])
    'Sec-Fetch-Site is same-site'
    """
    if method in SAFE_METHODS:
        return None
    host = origin = fetch_site = None
    for key, value in headers:
        if key == b"host":
            host = value.decode("latin-1")
        elif key == b"origin":
            origin = value.decode("latin-1")
        elif key == b"sec-fetch-site":
            fetch_site = value.decode("latin-1").strip().lower()
    if origin is not None and origin in allowed:
        return None
    if fetch_site is not None and fetch_site not in ("same-origin", "none"):
        return f"Sec-Fetch-Site is {fetch_site}"
    if origin is None:
        return None
    parts = urlsplit(origin.strip())
    if origin.strip() == "null" or not parts.netloc:
        return f"Origin {origin} is not this server"
    if host is None or _host_port(parts.netloc, parts.scheme) != _host_port(host, scheme):
        return f"Origin {origin} is not this server ({host or 'no Host header'})"
    return None
