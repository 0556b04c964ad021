"""What a rule's pattern must contain: a cheap test that skips a regex on text it cannot match.

`required(pattern)` reads a compiled pattern's syntax tree and returns literal
strings, one of which is inside every match (None when it cannot tell: the
pattern is then always tried). `Index(patterns).candidates(text)` gives the
patterns that may match a text: one whose literals do not occur in the text
(folded the way case-insensitive matching folds it) cannot. The audit
(`screening`) searches only those, and so reaches the same verdict with far
fewer regex searches.

Case: an ASCII letter of a pattern matches its upper case and the few other
letters that Python's case-insensitive matching folds onto it (dotless and
dotted i, long s, the Kelvin sign: `_FOLD`, checked against `re` by a test);
a literal that is any other cased letter breaks the literal it was in, and
caseless characters (CJK, digits, punctuation) match only themselves.
"""

from __future__ import annotations

import re
import sys
from typing import Any, Sequence

if sys.version_info >= (3, 11):
    from re import _constants as _c
    from re import _parser as _sre_parse
else:  # pragma: no cover - Python 3.10
    import sre_constants as _c
    import sre_parse as _sre_parse

#: text characters that case-insensitive matching takes for an ASCII letter, mapped to that letter
_FOLD = {**{ord(c): c.lower() for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"},
         0x130: "i", 0x131: "i", 0x17F: "s", 0x212A: "k"}

Literals = frozenset[str]


_cache: dict[tuple[str, int], Literals | None] = {}


def required(pattern: re.Pattern[str]) -> Literals | None:
    """What every match of `pattern` contains (in `folded` text), or None if nothing is known."""
    key = (pattern.pattern, pattern.flags)
    if key not in _cache:
        try:
            found = _sequence(_sre_parse.parse(pattern.pattern, pattern.flags))
        except (re.error, TypeError, ValueError, IndexError, AttributeError):  # unknown construct: always tried
            found = None
        _cache[key] = found or None
    return _cache[key]


def folded(text: str) -> str:
    """`text` as literals are looked for in it: letters folded as case-insensitive matching folds them."""
    return text.translate(_FOLD)


class Index:
    """Which of many patterns may match a text, in their order: only the literals whose first two characters
    occur in the text are looked for (one set intersection finds those)."""

    def __init__(self, patterns: Sequence[re.Pattern[str]]) -> None:
        self.size = len(patterns)
        needs = [required(p) for p in patterns]
        self.always = {i for i, r in enumerate(needs) if r is None}
        self.by_start: dict[str, list[tuple[int, str]]] = {}
        for i, r in enumerate(needs):
            for literal in sorted(r) if r is not None else ():
                self.by_start.setdefault(literal[:2], []).append((i, literal))
        self.starts = frozenset(self.by_start)

    def candidates(self, text: str) -> list[int]:
        """Positions (ascending) of the patterns that may match `text`; the others cannot."""
        seen = folded(text)
        pieces = set(seen)
        pieces.update(seen[i:i + 2] for i in range(len(seen) - 1))
        found = set(self.always)
        for piece in pieces & self.starts:
            for i, literal in self.by_start[piece]:
                if i not in found and literal in seen:
                    found.add(i)
        return sorted(found)


def _char(code: int) -> str | None:
    """A pattern's literal character as `folded` text shows it, or None if case makes it several."""
    char = chr(code)
    if char.isascii():
        return char.lower()
    if char.lower() == char == char.upper() and char.casefold() == char:
        return char
    return None


def _best(candidates: list[Literals]) -> Literals | None:
    """The most selective candidate: the longest shortest literal, then the fewest literals."""
    if not candidates:
        return None
    return max(candidates, key=lambda c: (min(len(s) for s in c), -len(c)))


def _sequence(items: Any) -> Literals | None:
    """One of the items of a sequence is required: the best known one (runs of literal characters joined)."""
    candidates: list[Literals] = []
    run: list[str] = []

    def end_run() -> None:
        if run:
            candidates.append(frozenset({"".join(run)}))
            run.clear()

    for op, av in items:
        if op is _c.LITERAL:
            char = _char(av)
            if char is not None:
                run.append(char)
                continue
            end_run()
            continue
        end_run()
        found = _item(op, av)
        if found is not None:
            candidates.append(found)
    end_run()
    return _best(candidates)


def _item(op: Any, av: Any) -> Literals | None:
    if op is _c.SUBPATTERN:
        return _sequence(av[-1])
    if op is _c.BRANCH:
        options = [_sequence(branch) for branch in av[1]]
        known = [option for option in options if option is not None]
        return frozenset[str]().union(*known) if len(known) == len(options) else None
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", None)):
        low, _high, body = av
        return _sequence(body) if low >= 1 else None
    if op is getattr(_c, "ATOMIC_GROUP", None):
        return _sequence(av)
    return None  # a class, any character, an assertion, a group reference: nothing known
