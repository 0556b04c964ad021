"""MCP sessions shared fairly: no token can take every session, and a full server makes room instead of refusing.

mcp's session manager refuses every new session (503) at its cap, so one client that never closes its sessions could
lock every other user out. `SessionQuota` tracks who opened each session (the user of its bearer token): a user holding
`per_user` sessions who opens another has their own least recently used one closed first; a server holding `total`
closes the least recently used session of whoever holds the most. A session is closed as its client would close it (an
MCP `DELETE`); the client's next request gets a 404, which tells it to open a new one.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import anyio

from .scope import UserScope

#: MCP sessions open at once over streamable HTTP, and the seconds after which an idle one is closed (its client
#: opens another): mcp's own defaults let clients that never close theirs hold hundreds of MB
MAX_SESSIONS = 500
SESSION_IDLE_SECONDS = 600.0
#: sessions one user (one token's user) holds at once: beyond it, their own least recently used one is closed
SESSIONS_PER_USER = 32


@dataclass(frozen=True)
class SessionLimits:
    """Sessions open at once (`total`), per user (`per_user`), and the seconds before an idle one closes."""

    total: int = MAX_SESSIONS
    per_user: int = SESSIONS_PER_USER
    idle: float = SESSION_IDLE_SECONDS


@dataclass
class _Session:
    user: str | None
    #: the opening request's Authorization and Host headers, which the DELETE that closes the session sends again
    credentials: list[tuple[bytes, bytes]]
    used: float
    busy: int = 0  # requests in flight (an open event stream counts while it lasts)


class SessionQuota:
    """ASGI middleware before mcp's streamable-HTTP app at `path` (see the module's rules)."""

    def __init__(self, app: Any, scope: UserScope | None, limits: SessionLimits, path: str = "/mcp") -> None:
        self.app, self.scope, self.limits, self.path = app, scope, limits, path
        #: session id -> who opened it, least recently used first
        self.sessions: OrderedDict[bytes, _Session] = OrderedDict()
        self._opening = 0
        self._lock = anyio.Lock()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not scope.get("path", "").startswith(self.path):
            return await self.app(scope, receive, send)
        headers = dict(scope.get("headers") or ())
        session_id = headers.get(b"mcp-session-id")
        if session_id is None:
            return await self._open(scope, receive, send, headers)
        session = self.sessions.get(session_id)
        if session is not None:
            self.sessions.move_to_end(session_id)
            session.busy += 1

        async def watched(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start" and message["status"] == 404:
                self.sessions.pop(session_id, None)  # closed meanwhile (idle, or by its client)
            await send(message)

        try:
            await self.app(scope, receive, watched)
        finally:
            if session is not None:
                session.busy, session.used = session.busy - 1, time.monotonic()
                if scope.get("method") == "DELETE":
                    self.sessions.pop(session_id, None)

    async def _open(self, scope: dict[str, Any], receive: Any, send: Any, headers: dict[bytes, bytes]) -> None:
        """A request without a session id (an initialize): room is made first; the session it opens is tracked."""
        user = self._user(headers.get(b"authorization", b""))
        credentials = [(k, v) for k, v in headers.items() if k in (b"authorization", b"host")]
        async with self._lock:
            await self._make_room(user)
            self._opening += 1
        opened = False

        async def registered(message: dict[str, Any]) -> None:
            nonlocal opened
            if message["type"] == "http.response.start" and message["status"] < 400 and not opened:
                found = dict(message.get("headers") or ()).get(b"mcp-session-id")
                if found is not None:
                    self.sessions[found] = _Session(user, credentials, time.monotonic())
                    opened = True
                    self._opening -= 1
            await send(message)

        try:
            await self.app(scope, receive, registered)
        finally:
            if not opened:
                self._opening -= 1

    def _user(self, authorization: bytes) -> str | None:
        if self.scope is None or not self.scope.authenticated:
            return None
        token = authorization.decode("latin-1")[7:]
        return self.scope.user_for_token(token)

    async def _make_room(self, user: str | None) -> None:
        """Close sessions until `user` may open one more (under the lock)."""
        self._expire()
        mine = [sid for sid, s in self.sessions.items() if s.user == user]
        if len(mine) >= (self.limits.per_user if user is not None else self.limits.total):
            await self._close(self._least_recent(mine))
        if len(self.sessions) + self._opening >= self.limits.total and self.sessions:
            counts: dict[str | None, int] = {}
            for session in self.sessions.values():
                counts[session.user] = counts.get(session.user, 0) + 1
            busiest = max(counts, key=lambda u: counts[u])
            await self._close(self._least_recent([sid for sid, s in self.sessions.items() if s.user == busiest]))

    def _least_recent(self, ids: list[bytes]) -> bytes:
        """The least recently used of `ids`, one with no request in flight if there is one."""
        idle = [sid for sid in ids if not self.sessions[sid].busy]
        return (idle or ids)[0]

    def _expire(self) -> None:
        """Forget sessions the manager has closed for being idle (no request in flight for `limits.idle`)."""
        oldest = time.monotonic() - self.limits.idle
        for sid in [sid for sid, s in self.sessions.items() if not s.busy and s.used < oldest]:
            del self.sessions[sid]

    async def _close(self, session_id: bytes) -> None:
        """End a session as its client would: a DELETE with its id and its own credential."""
        session = self.sessions.pop(session_id)
        headers = [(b"mcp-session-id", session_id), (b"mcp-protocol-version", b"2025-06-18"), *session.credentials]
        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "DELETE",
                 "scheme": "http", "path": self.path, "raw_path": self.path.encode(), "query_string": b"",
                 "root_path": "", "headers": headers, "client": ("127.0.0.1", 0), "server": ("127.0.0.1", 0)}

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def ignore(message: dict[str, Any]) -> None:
            pass

        await self.app(scope, receive, ignore)


__all__ = ["MAX_SESSIONS", "SESSIONS_PER_USER", "SESSION_IDLE_SECONDS", "SessionLimits", "SessionQuota"]
