"""One exception tree for everything hindsight raises.

    HindsightError
     ├── InvalidInputError (also a ValueError)
     │    └── EmptyTextError, TextTooLargeError, InvalidUserIdError, ContextBudgetError, ForbiddenError
     ├── MemoryNotFoundError (also a KeyError)
     └── EmbedderMismatchError, StoreInUseError, StoreUnavailableError, ExportError, EvaluatorError,
         ServerAuthError, ServerError

Backend errors are translated into this tree at the boundary, with a message that says what to do; an error a `hindsight
serve` raised comes back on its client as the same class.
"""

from __future__ import annotations


class HindsightError(Exception):
    """Base class of every error hindsight raises on purpose."""


class InvalidInputError(HindsightError, ValueError):
    """The caller passed something hindsight cannot accept; nothing was written."""


class EmptyTextError(InvalidInputError):
    """The text is empty or only whitespace and control characters."""


class TextTooLargeError(InvalidInputError):
    """The text is larger than the configured limit."""


class InvalidUserIdError(InvalidInputError):
    """The user id is missing, empty, wildcard-like or contains control characters."""


class ContextBudgetError(InvalidInputError):
    """What must go into the context (the latest user message, the system prompt) does not fit the budget."""


class ForbiddenError(InvalidInputError):
    """A per-user token asked for another user's memories, or for the whole store."""


class MemoryNotFoundError(HindsightError, KeyError):
    """No memory with that id exists for that user."""

    def __str__(self) -> str:  # KeyError quotes its message; we want it plain
        return str(self.args[0]) if self.args else "memory not found"


class EmbedderMismatchError(HindsightError):
    """The store was built with a different embedding model than the one configured."""


class StoreInUseError(HindsightError):
    """Another process holds the embedded store's folder."""


class StoreUnavailableError(HindsightError):
    """The storage backend (Qdrant server, Redis) cannot be reached."""


class ExportError(HindsightError):
    """An export could not be written where it was asked to go (a full disk, a closed or binary file)."""


class EvaluatorError(HindsightError):
    """A pluggable evaluator or summariser returned something unusable."""


class ServerAuthError(HindsightError):
    """A `hindsight serve` refused the token (or asked for one and none was given)."""


class ServerError(HindsightError):
    """A `hindsight serve` answered with something other than a result or one of hindsight's errors."""
