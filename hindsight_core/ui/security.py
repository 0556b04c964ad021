"""Who may use the inspector: loopback or a token, right Host, same origin and a form token for changes.

Off loopback the server needs a token, carried by every request as a cookie or a bearer header (someone else on the
network); without a token, the Host header must name the loopback address and port (DNS rebinding); every POST carries
this process's form token and comes from the same origin (a page making the browser post a change).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
from dataclasses import dataclass, field
from http.cookies import CookieError, SimpleCookie

from ..errors import HindsightError


class UnsafeExposureError(HindsightError):
    """The inspector would serve memories to anyone who can reach it."""


def is_loopback(host: str) -> bool:
    """Whether `host` (a name or an address) is this machine's loopback."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_exposure(host: str, token: str | None) -> None:
    """Refuse an empty token, and no token on an address other machines can reach."""
    if token is not None and not token.strip():
        raise UnsafeExposureError("the token is empty; give a real one (e.g. `--token \"$(openssl rand -hex 16)\"`) "
                                  "or leave it out on 127.0.0.1")
    if token is None and not is_loopback(host):
        raise UnsafeExposureError(f"serving on {host} without a token would show every user's memories to anyone "
                                  "who can reach it; set --token (HINDSIGHT_UI_TOKEN) or serve on 127.0.0.1")


def host_name(host_header: str) -> tuple[str, str]:
    """'127.0.0.1:8765' -> ('127.0.0.1', '8765'); '[::1]:80' -> ('::1', '80')."""
    if host_header.startswith("["):
        name, _, rest = host_header[1:].partition("]")
        return name, rest.lstrip(":")
    name, _, port = host_header.rpartition(":") if ":" in host_header else (host_header, "", "")
    return name, port


@dataclass(frozen=True)
class Guard:
    """The checks for one running server: its port, its token (None on loopback) and its form token."""

    port: int
    token: str | None = None
    form_token: str = field(default_factory=lambda: secrets.token_urlsafe(32))

    @property
    def cookie_name(self) -> str:
        # cookies ignore ports: a name per port keeps two inspectors on one machine apart
        return f"hindsight_ui_{self.port}"

    def host_allowed(self, host_header: str | None) -> bool:
        """With a token any Host will do (a rebinding page has no token); without, only loopback:port."""
        if self.token is not None:
            return True
        if not host_header:
            return False
        name, port = host_name(host_header)
        return is_loopback(name) and port == str(self.port)

    def authenticated(self, cookie_header: str | None, authorization: str | None) -> bool:
        if self.token is None:
            return True
        if authorization and authorization.startswith("Bearer "):
            return self.token_matches(authorization[len("Bearer "):])
        try:
            morsel = SimpleCookie(cookie_header or "").get(self.cookie_name)
        except CookieError:
            return False
        return morsel is not None and hmac.compare_digest(morsel.value.encode(), self._cookie_value.encode())

    def token_matches(self, offered: str) -> bool:
        return self.token is not None and hmac.compare_digest(offered.encode(), self.token.encode())

    def same_origin(self, origin: str | None, fetch_site: str | None, host_header: str | None) -> bool:
        """A POST from this server's own pages: no foreign Origin, no cross-site fetch."""
        if fetch_site is not None and fetch_site not in ("same-origin", "none"):
            return False
        if origin is None:
            return True
        return origin in (f"http://{host_header}", f"https://{host_header}")

    def form_token_ok(self, offered: str | None) -> bool:
        return offered is not None and hmac.compare_digest(offered.encode(), self.form_token.encode())

    @property
    def _cookie_value(self) -> str:
        # derived from the token, so that any token (quotes, semicolons) makes a valid cookie
        return hmac.new((self.token or "").encode(), b"hindsight-ui-session", hashlib.sha256).hexdigest()

    def cookie(self) -> str:
        """The Set-Cookie value that carries the token from the printed link to later requests."""
        return f"{self.cookie_name}={self._cookie_value}; HttpOnly; SameSite=Strict; Path=/"
