"""Who is asking: the name a face gives its calls, carried by the context rather than by an argument.

An adapter makes its calls inside `asking_as("hindsight_langchain")`; a memory that records who asked reads
`asker()`. The context follows a call into the threads and tasks it starts.
"""

from __future__ import annotations

import contextlib
from contextvars import ContextVar
from typing import Iterator

_ASKER: ContextVar[str | None] = ContextVar("hindsight_asker", default=None)


def asker() -> str | None:
    """The name of the face making the current call, if one said."""
    return _ASKER.get()


@contextlib.contextmanager
def asking_as(name: str) -> Iterator[None]:
    """Make the calls inside as `name` (an adapter's package name, say)."""
    token = _ASKER.set(name)
    try:
        yield
    finally:
        _ASKER.reset(token)
