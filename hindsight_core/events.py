"""What `Hindsight` announces to the parts of a program that keep copies of a user's words.

Forgetting must reach every copy, not only the store: a working-memory session still holding a forgotten sentence would
put it back into the next prompt. The core announces each forget, and the holders subscribe:

    memory.on_forget(listener)       # listener(Forgotten) -> how many copies it removed

A listener is called once per forget (never for a dry run), after the store changed, with the user, the texts that went
(`None`: everything; empty: nothing stored matched, while a copy may still hold words about it) and the topic (`about`);
what it returns adds up into `ForgetReceipt.working_messages`. Subscribing an equal listener again changes nothing. A
holder that may still hand the user's words to the store (the write queue) subscribes with `before_forget` too; one that
lives shorter than the memory subscribes a `WeakListener`.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass
from typing import Any, Callable, Generic, Iterable, Protocol, TypeVar, runtime_checkable

from .errors import InvalidInputError


@dataclass(frozen=True)
class Forgotten:
    """One completed forget: whose memories, which texts (None: all of them), and the topic asked for, if any."""

    user_id: str
    texts: frozenset[str] | None
    about: str | None = None

    @classmethod
    def of(cls, user_id: str, texts: Iterable[str] | None, about: str | None = None) -> "Forgotten":
        return cls(user_id, None if texts is None else frozenset(texts), about)

    @property
    def everything(self) -> bool:
        return self.texts is None


@dataclass(frozen=True)
class Forgetting:
    """A forget about to start: whose memories, whether all of them, and whether it is only a dry run."""

    user_id: str
    everything: bool
    dry_run: bool = False


#: removes its copies of what was forgotten; returns how many it removed
ForgetListener = Callable[[Forgotten], int]


class WeakListener:
    """A bound method as a listener that does not keep its object alive (it does nothing once the object is gone).

    Two made from the same object and function are equal, so subscribing again changes nothing.
    """

    def __init__(self, method: Any) -> None:
        self._method = weakref.WeakMethod(method)
        self._key = (id(method.__self__), method.__func__)

    @property
    def alive(self) -> bool:
        return self._method() is not None

    def __call__(self, event: Any) -> int:
        method = self._method()
        return int(method(event) or 0) if method is not None else 0

    def __eq__(self, other: object) -> bool:
        return isinstance(other, WeakListener) and other._key == self._key and other.alive and self.alive

    def __hash__(self) -> int:
        return hash(self._key)


_Event = TypeVar("_Event", Forgotten, Forgetting)


class ForgetListeners(Generic[_Event]):
    """The listeners a memory announces one kind of event to (`Forgotten`, `Forgetting`), in the order they subscribed."""

    def __init__(self) -> None:
        self._listeners: list[Callable[[_Event], "int | None"]] = []
        self._lock = threading.Lock()

    def add(self, listener: Callable[[_Event], "int | None"]) -> None:
        """Subscribe `listener`, unless an equal one is subscribed already."""
        if not callable(listener):
            raise InvalidInputError(f"a forget listener must be callable, got {type(listener).__name__}")
        with self._lock:
            self._listeners = [known for known in self._listeners if getattr(known, "alive", True)]
            if listener not in self._listeners:
                self._listeners.append(listener)

    def remove(self, listener: Callable[[_Event], "int | None"]) -> None:
        with self._lock:
            if listener in self._listeners:
                self._listeners.remove(listener)

    def announce(self, event: _Event) -> int:
        """Tell every listener; returns the copies they removed, added up (a listener's None counts as 0)."""
        with self._lock:
            listeners = list(self._listeners)
        return sum(int(listener(event) or 0) for listener in listeners)

    def __len__(self) -> int:
        return len(self._listeners)


@runtime_checkable
class ForgetsElsewhere(Protocol):
    """A memory another process may forget in (a `HindsightClient`: the server holds the store): a holder asks it
    before using what it remembers of a user, and the forgets made elsewhere are announced to its listeners then."""

    def forgets_made_elsewhere(self, user_id: str) -> bool: ...
