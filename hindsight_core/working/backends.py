"""Where a session's messages live: in this process, or in Redis to share them between processes.

A backend stores, per session key, an ordered list of opaque strings (the messages' JSON): `append(key, items) -> int`
(atomic; the new length), `read(key) -> list[str]` (oldest first; [] for an unknown or expired session),
`drop_first(key, n)`, `clear(key)` and `close()`. The session's time-to-live restarts at every append. Redis is imported
only when a `RedisBackend` is made.
"""

from __future__ import annotations

import math
import threading
import time
from typing import Any, Callable, Protocol, Sequence
from urllib.parse import urlsplit, urlunsplit

from ..errors import HindsightError, InvalidInputError, StoreUnavailableError

DEFAULT_TTL_SECONDS = 3600.0
DEFAULT_REDIS_PREFIX = "hindsight:wm:"


class WorkingBackend(Protocol):
    """Per-session ordered lists of strings, with atomic appends."""

    def append(self, key: str, items: Sequence[str]) -> int: ...

    def read(self, key: str) -> list[str]: ...

    def drop_first(self, key: str, n: int) -> None: ...

    def clear(self, key: str) -> None: ...

    def keys(self, prefix: str) -> list[str]:
        """The session keys that start with `prefix`."""

    def remove_items(self, key: str, items: Sequence[str]) -> int:
        """Remove every occurrence of these exact items from a session; returns how many went."""

    def close(self) -> None: ...


def _check_ttl(ttl_seconds: float | None) -> float | None:
    if ttl_seconds is None:
        return None
    if isinstance(ttl_seconds, bool) or not isinstance(ttl_seconds, (int, float)) or not (
            math.isfinite(ttl_seconds) and ttl_seconds > 0):
        raise InvalidInputError(f"ttl_seconds must be a positive number or None, got {ttl_seconds!r}")
    return float(ttl_seconds)


class InProcessBackend:
    """Sessions in a dict guarded by a lock: the default, for one process.

    `ttl_seconds=None` (the default) keeps sessions for the life of the process; `monotonic` is the TTL's clock.
    """

    def __init__(self, *, ttl_seconds: float | None = None, monotonic: Callable[[], float] = time.monotonic) -> None:
        self.ttl_seconds = _check_ttl(ttl_seconds)
        self._monotonic = monotonic
        self._sessions: dict[str, tuple[float, list[str]]] = {}
        self._lock = threading.Lock()

    def _live(self, key: str) -> list[str] | None:
        entry = self._sessions.get(key)
        if entry is None:
            return None
        if entry[0] <= self._monotonic():
            del self._sessions[key]
            return None
        return entry[1]

    def append(self, key: str, items: Sequence[str]) -> int:
        with self._lock:
            items_list = self._live(key) or []
            items_list.extend(items)
            deadline = self._monotonic() + self.ttl_seconds if self.ttl_seconds is not None else math.inf
            self._sessions[key] = (deadline, items_list)
            return len(items_list)

    def read(self, key: str) -> list[str]:
        with self._lock:
            return list(self._live(key) or [])

    def drop_first(self, key: str, n: int) -> None:
        with self._lock:
            items = self._live(key)
            if items is not None:
                del items[:n]
                if not items:
                    del self._sessions[key]

    def clear(self, key: str) -> None:
        with self._lock:
            self._sessions.pop(key, None)

    def keys(self, prefix: str) -> list[str]:
        with self._lock:
            return [k for k in list(self._sessions) if k.startswith(prefix) and self._live(k) is not None]

    def remove_items(self, key: str, items: Sequence[str]) -> int:
        doomed = set(items)
        with self._lock:
            current = self._live(key)
            if not current:
                return 0
            before = len(current)
            current[:] = [item for item in current if item not in doomed]
            return before - len(current)

    def close(self) -> None:
        with self._lock:
            self._sessions.clear()


def redact(url: str) -> str:
    """The URL with any password replaced by ***, for error messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username or ''}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


class RedisBackend:
    """Sessions as Redis lists, so several agent processes share one session's working memory.

    `url`: `redis://[:password@]host:port/db`, `rediss://…` (TLS) or `unix://…`. Each message is one RPUSH sent
    with the PEXPIRE that refreshes the TTL in one MULTI/EXEC transaction, so concurrent appends never lose or
    interleave a message. Keys are `prefix + session key`. `StoreUnavailableError` when Redis cannot be reached.
    """

    def __init__(self, url: str = "redis://127.0.0.1:6379/0", *, ttl_seconds: float | None = DEFAULT_TTL_SECONDS,
                 prefix: str = DEFAULT_REDIS_PREFIX, timeout_seconds: float = 5.0, client: Any = None) -> None:
        if not isinstance(url, str) or urlsplit(url).scheme not in ("redis", "rediss", "unix"):
            raise InvalidInputError(f"Redis URL must start with redis://, rediss:// or unix://, got {url!r}")
        self.url = url
        self.ttl_seconds = _check_ttl(ttl_seconds)
        self.prefix = prefix
        try:
            import redis
        except ImportError as exc:
            raise HindsightError("the Redis backend needs the redis package: pip install 'hindsight-memory[redis]'") \
                from exc
        self._errors = redis.exceptions
        self._client = client if client is not None else redis.Redis.from_url(
            url, decode_responses=True, socket_timeout=timeout_seconds, socket_connect_timeout=timeout_seconds)
        self._call(self._client.ping)

    def _call(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Run one Redis call, translating its errors into hindsight's."""
        try:
            return fn(*args)
        except (self._errors.ConnectionError, self._errors.TimeoutError) as exc:
            raise StoreUnavailableError(
                f"cannot reach Redis at {redact(self.url)} ({exc}). Start redis-server, or check the URL, "
                "password and network; use InProcessBackend for a single process.") from exc
        except self._errors.RedisError as exc:
            raise HindsightError(f"Redis at {redact(self.url)} refused a working-memory call: {exc}") from exc

    def _key(self, key: str) -> str:
        return self.prefix + key

    def append(self, key: str, items: Sequence[str]) -> int:
        if not items:
            return len(self.read(key))

        def run() -> int:
            with self._client.pipeline(transaction=True) as pipe:
                pipe.rpush(self._key(key), *items)
                if self.ttl_seconds is not None:
                    pipe.pexpire(self._key(key), max(1, int(self.ttl_seconds * 1000)))
                return int(pipe.execute()[0])

        return self._call(run)

    def read(self, key: str) -> list[str]:
        return list(self._call(self._client.lrange, self._key(key), 0, -1))

    def drop_first(self, key: str, n: int) -> None:
        if n > 0:
            # LTRIM keeps what other processes appended after the n we handed over
            self._call(self._client.ltrim, self._key(key), n, -1)

    def clear(self, key: str) -> None:
        self._call(self._client.delete, self._key(key))

    def keys(self, prefix: str) -> list[str]:
        pattern = self._key(prefix).replace("\\", "\\\\").replace("*", "\\*").replace("?", "\\?") + "*"
        found = self._call(lambda: list(self._client.scan_iter(match=pattern, count=500)))
        return [k[len(self.prefix):] for k in found]

    def remove_items(self, key: str, items: Sequence[str]) -> int:
        # LREM per item: each is atomic, and what other processes append meanwhile stays
        return sum(int(self._call(self._client.lrem, self._key(key), 0, item)) for item in set(items))

    def ttl(self, key: str) -> float | None:
        """Seconds left before the session expires; None if it has no TTL or does not exist."""
        millis = self._call(self._client.pttl, self._key(key))
        return millis / 1000.0 if millis is not None and millis >= 0 else None

    def close(self) -> None:
        try:
            self._client.close()
        except self._errors.RedisError:  # closing a dead connection is not worth an error
            pass
