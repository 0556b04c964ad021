"""What the write audit said in this process, kept by digest: a verdict is not computed twice for one text, and no text
the audit held back reaches a prompt as the turn another memory answers (`write.preparing.screened_context`).

A context is often an agent relaying a page whose own write may be held only in company (`session_window`), so every
text whose final verdict held it is remembered, whole and as the end a context keeps of it. Digests, not texts, and
bounded; a forget clears it.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from typing import Callable

from ..types import CONTEXT_CHARS, Source
from .verdict import Action, AuditVerdict


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()


class _Recent(OrderedDict[str, object]):
    """A bounded map, the least recently used entry dropped first."""

    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    def put(self, key: str, value: object) -> None:
        self[key] = value
        self.move_to_end(key)
        while len(self) > self.size:
            self.popitem(last=False)


class AuditMemory:
    """`audit(text, source)` with its verdicts cached, and the texts whose final verdict held them."""

    def __init__(self, audit: Callable[[str, Source], AuditVerdict], size: int = 4096) -> None:
        self.audit = audit
        self._verdicts = _Recent(size)
        self._held = _Recent(size)
        self._lock = threading.Lock()

    def __call__(self, text: str, source: Source) -> AuditVerdict:
        key = f"{Source(source).value}:{_digest(text)}"
        with self._lock:
            cached = self._verdicts.get(key)
        if isinstance(cached, AuditVerdict):
            return cached
        verdict = self.audit(text, source)
        with self._lock:
            self._verdicts.put(key, verdict)
        return verdict

    def settled(self, text: str, verdict: AuditVerdict) -> None:
        """The final verdict on a written text (after the session's other writes were read with it)."""
        if verdict.action is not Action.ALLOW:
            with self._lock:
                self._held.put(_digest(text), None)
                self._held.put(_digest(text[-CONTEXT_CHARS:]), None)

    def held(self, text: str) -> bool:
        """Whether the audit held `text` back (or the text whose end it is) when it was written here."""
        with self._lock:
            return _digest(text) in self._held

    def clear(self) -> None:
        with self._lock:
            self._verdicts.clear()
            self._held.clear()
