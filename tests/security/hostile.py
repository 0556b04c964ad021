"""The scorekeeping of the hostile-call suite (`test_hostile_calls.py`): every call is judged, none may crash.

A call is labelled before it is made: `BAD` (some argument is garbage: it must be
refused with a `HindsightError`, or a `TypeError` for a wrong signature), `GOOD`
(every argument is fine: it must succeed), or `EITHER` (both are acceptable, e.g.
an empty batch). The outcome is one of:

- ok:        a GOOD or EITHER call succeeded, or a BAD call was refused with a message that says what to do
- traceback: an exception outside the HindsightError tree escaped (or, on the wire, a 500 / a tool crash)
- silent:    a BAD call was accepted (garbage stored or answered as if it meant something)
- refused:   a GOOD call was refused (counted and shown, so a suite refusing everything cannot pass)
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable

from hindsight_core import HindsightError

BAD, GOOD, EITHER = "bad", "good", "either"

#: characters that show nothing besides whitespace, controls and format characters (Cc, Cf)
_FILLERS = {0x115F, 0x1160, 0x3164, 0xFFA0, 0x034F, 0x17B4, 0x17B5}


def shows_nothing(text: str) -> bool:
    """Whether `text` holds nothing a reader could see (the documented rule for refusing a text as empty)."""
    def invisible(ch: str) -> bool:
        code = ord(ch)
        return (ch.isspace() or unicodedata.category(ch) in ("Cc", "Cf") or code in _FILLERS
                or 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF)
    return all(invisible(ch) for ch in text)


def text_label(text: object, max_bytes: int = 32 * 1024) -> str:
    """BAD for what no text field may hold: not a str, lone surrogates, nothing visible, over the size limit."""
    if not isinstance(text, str):
        return BAD
    if any(0xD800 <= ord(ch) <= 0xDFFF for ch in text):
        return BAD
    if len(text.encode("utf-8", errors="surrogatepass")) > max_bytes:
        return BAD
    return BAD if shows_nothing(text) else GOOD


@dataclass
class Tally:
    """What the calls of one face came to, with a few examples of each failure."""

    face: str
    outcomes: Counter = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=dict)

    @property
    def calls(self) -> int:
        return sum(self.outcomes.values())

    def note(self, outcome: str, name: str, detail: str = "") -> None:
        self.outcomes[outcome] += 1
        if outcome != "ok":
            self.examples.setdefault(outcome, [])
            if len(self.examples[outcome]) < 25:
                self.examples[outcome].append(f"{name}: {detail}"[:300])

    def judge(self, name: str, label: str, call: Callable[[], Any]) -> str:
        """Make `call` and score it against `label`; never raises (a crash is scored, not propagated)."""
        try:
            call()
        except HindsightError as exc:
            if not str(exc).strip():
                outcome, detail = "traceback", f"{type(exc).__name__} with no message"
            else:
                outcome, detail = ("refused" if label == GOOD else "ok"), f"{type(exc).__name__}: {exc}"
        except TypeError as exc:  # a wrong signature (an unknown keyword, a missing one) is Python's own refusal
            signature = "argument" in str(exc) and ("unexpected keyword" in str(exc) or "required" in str(exc)
                                                    or "positional" in str(exc))
            outcome = ("refused" if label == GOOD else "ok") if signature else "traceback"
            detail = f"TypeError: {exc}"
        except Exception as exc:  # noqa: BLE001 - every other escape is what the suite counts
            outcome, detail = "traceback", f"{type(exc).__name__}: {exc}"
        else:
            outcome, detail = ("silent" if label == BAD else "ok"), "accepted"
        self.note(outcome, name, detail)
        return outcome

    def score(self, name: str, label: str, outcome: str, detail: str = "") -> None:
        """Score a call a face judged itself: `outcome` is 'accepted', 'refused' or 'traceback'."""
        if outcome == "traceback":
            self.note("traceback", name, detail)
        elif outcome == "accepted":
            self.note("silent" if label == BAD else "ok", name, detail)
        else:
            self.note("refused" if label == GOOD else "ok", name, detail)

    def line(self) -> str:
        o = self.outcomes
        return (f"{self.face:<6} calls {self.calls:>5}  tracebacks {o['traceback']:>3}  silent {o['silent']:>3} "
                f"({100 * o['silent'] / max(self.calls, 1):.1f}%)  good calls refused {o['refused']:>3}")

    def report(self) -> str:
        lines = [self.line()]
        for outcome in ("traceback", "silent", "refused"):
            for example in self.examples.get(outcome, []):
                lines.append(f"    {outcome}: {example}")
        return "\n".join(lines)


class Spy:
    """A memory whose every call records an exception from outside the HindsightError tree (a faulty face may turn
    one into a polite answer: a tool error, a 400; the spy still sees the crash underneath)."""

    def __init__(self, memory: Any) -> None:
        self._memory = memory
        self.escaped: list[str] = []

    def _record(self, name: str, exc: BaseException) -> None:
        signature = isinstance(exc, TypeError) and "argument" in str(exc)
        if not isinstance(exc, HindsightError) and not signature:
            self.escaped.append(f"{name}: {type(exc).__name__}: {exc}")

    def __getattr__(self, name: str) -> Any:
        import inspect

        value = getattr(self._memory, name)
        if not callable(value) or isinstance(value, type):
            return value
        if inspect.iscoroutinefunction(value):
            async def spied_async(*args: Any, **kwargs: Any) -> Any:
                try:
                    return await value(*args, **kwargs)
                except BaseException as exc:
                    self._record(name, exc)
                    raise
            return spied_async

        def spied(*args: Any, **kwargs: Any) -> Any:
            try:
                return value(*args, **kwargs)
            except BaseException as exc:
                self._record(name, exc)
                raise
        return spied
