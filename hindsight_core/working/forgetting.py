"""How working memory lays out its sessions on a backend, and how forgetting reaches them.

A session's messages live under the key `quote(user_id)/quote(session_id)`; this module is the only place that
knows it. `ForgetPurge`, which `WorkingMemory` subscribes with `on_forget`, removes the messages with exactly the
forgotten texts from every session of that user, or all the user's sessions when everything is forgotten.
"""

from __future__ import annotations

from urllib.parse import quote

from ..events import Forgotten
from .backends import WorkingBackend
from .message import Message


def session_key(user_id: str | None, session_id: str) -> str:
    """The backend key of one session's message list."""
    return user_prefix(user_id) + quote(session_id, safe="")


def user_prefix(user_id: str | None) -> str:
    """The prefix every session key of `user_id` starts with."""
    return quote(user_id or "", safe="") + "/"


def purge(backend: WorkingBackend, event: Forgotten) -> int:
    """Remove what `event` forgot from every session of its user on `backend`; returns how many messages went."""
    if event.texts is not None and not event.texts:  # the store held nothing the request named
        return 0
    removed = 0
    for key in backend.keys(user_prefix(event.user_id)):
        raws = backend.read(key)
        if event.texts is None:
            backend.clear(key)
            removed += len(raws)
        else:
            doomed = [raw for raw in raws if Message.from_json(raw).content in event.texts]
            removed += backend.remove_items(key, doomed) if doomed else 0
    return removed


class ForgetPurge:
    """A forget listener for one backend; two for the same backend are equal, so it subscribes once."""

    def __init__(self, backend: WorkingBackend) -> None:
        self.backend = backend

    def __call__(self, event: Forgotten) -> int:
        return purge(self.backend, event)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ForgetPurge) and other.backend is self.backend

    def __hash__(self) -> int:
        return id(self.backend)
