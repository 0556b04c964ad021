"""What `Hindsight` announces to the parts of a program that keep copies of a user's words.

Forgetting must reach every copy, not only the store: a working-memory session
still holding a forgotten sentence would put it back into the next prompt. The
core does not know who keeps copies or how; it announces each forget, and the
holders subscribe:

    memory.on_forget(listener)       # listener(Forgotten) -> how many copies it removed

A listener is called once per forget that removed something, and once per
forget of everything (never for a dry run), after the store has changed, with
the user and the texts that went (`texts is None`: the user forgot everything,
including what only working memory held). What it returns is added up into
`ForgetReceipt.working_messages`. Subscribing a listener equal to one already
subscribed changes nothing, so a holder may subscribe each time it is built.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Callable, Iterable

from .errors import InvalidInputError


@dataclass(frozen=True)
class Forgotten:
    """One completed forget: whose memories, and which texts (None: all of them)."""

    user_id: str
    texts: frozenset[str] | None

    @classmethod
    def of(cls, user_id: str, texts: Iterable[str] | None) -> "Forgotten":
        return cls(user_id, None if texts is None else frozenset(texts))

    @property
    def everything(self) -> bool:
        return self.texts is None


#: removes its copies of what was forgotten; returns how many it removed
ForgetListener = Callable[[Forgotten], int]


class ForgetListeners:
    """The listeners one `Hindsight` announces its forgets to, in the order they subscribed."""

    def __init__(self) -> None:
        self._listeners: list[ForgetListener] = []
        self._lock = threading.Lock()

    def add(self, listener: ForgetListener) -> None:
        """Subscribe `listener`, unless an equal one is subscribed already."""
        if not callable(listener):
            raise InvalidInputError(f"a forget listener must be callable, got {type(listener).__name__}")
        with self._lock:
            if listener not in self._listeners:
                self._listeners.append(listener)

    def remove(self, listener: ForgetListener) -> None:
        with self._lock:
            if listener in self._listeners:
                self._listeners.remove(listener)

    def announce(self, event: Forgotten) -> int:
        """Tell every listener; returns the copies they removed, added up."""
        with self._lock:
            listeners = list(self._listeners)
        return sum(int(listener(event) or 0) for listener in listeners)

    def __len__(self) -> int:
        return len(self._listeners)
