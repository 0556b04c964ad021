"""What a rule's pattern must contain: a cheap test that skips a regex on text it cannot match.

`required_all(pattern)` reads a compiled pattern's syntax tree and returns sets of literal strings, every match
containing one of each (none when it cannot tell); `required` is the most selective set. `Index(patterns)
.candidates(text)` gives the patterns that may match a text, the literals found in one Aho-Corasick pass;
`PatternSet` gives the directive cues and the structural lexicon the same view of one text.

Case: an ASCII letter of a pattern matches its upper case and the few other letters that Python's
case-insensitive matching folds onto it (`_FOLD`, checked against `re` by a test); a literal that is any other
cased letter breaks the literal it was in, and caseless characters match only themselves.
"""

from __future__ import annotations

import re
import sys
from typing import Any, Iterator, Sequence

import ahocorasick

if sys.version_info >= (3, 11):
    from re import _constants as _c
    from re import _parser as _sre_parse
else:  # pragma: no cover - Python 3.10
    import sre_constants as _c
    import sre_parse as _sre_parse

#: text characters that case-insensitive matching takes for an ASCII letter, mapped to that letter
_FOLD = {**{ord(c): c.lower() for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"}, 0x130: "i", 0x131: "i", 0x17F: "s", 0x212A: "k"}

Literals = frozenset[str]


_cache: dict[tuple[str, int], tuple[Literals, ...]] = {}


def required_all(pattern: re.Pattern[str]) -> tuple[Literals, ...]:
    """Sets of literals, every match of `pattern` containing one of each (in `folded` text); the most
    selective first. Empty if nothing is known."""
    key = (pattern.pattern, pattern.flags)
    if key not in _cache:
        try:
            groups = _groups(_sre_parse.parse(pattern.pattern, pattern.flags))
        except (re.error, TypeError, ValueError, IndexError, AttributeError):  # unknown construct: always tried
            groups = []
        best = _best(groups)
        _cache[key] = (best, *(g for g in groups if g != best)) if best is not None else ()
    return _cache[key]


def required(pattern: re.Pattern[str]) -> Literals | None:
    """What every match of `pattern` contains (in `folded` text), or None if nothing is known."""
    found = required_all(pattern)
    return found[0] if found else None


def folded(text: str) -> str:
    """`text` as literals are looked for in it: letters folded as case-insensitive matching folds them."""
    return text.translate(_FOLD)


class Index:
    """Which of many patterns may match a text, in their order: every literal of theirs that occurs in the text is
    found in one pass of an Aho-Corasick automaton (C, `pyahocorasick`), then each pattern's sets are checked
    against what was found."""

    def __init__(self, patterns: Sequence[re.Pattern[str]]) -> None:
        self.size = len(patterns)
        # a set with a literal found in nearly every text ("a", " ") narrows nothing: it is not looked for
        needs = [tuple(group for group in required_all(p) if not any(_everywhere(lit) for lit in group))
                 for p in patterns]
        self.always = {i for i, r in enumerate(needs) if not r}
        #: the other sets a pattern needs one literal of, checked once its most selective set is met
        self.also = {i: r[1:] for i, r in enumerate(needs) if len(r) > 1}
        self.by_literal: dict[str, list[int]] = {}
        for i, r in enumerate(needs):
            for literal in sorted(r[0]) if r else ():
                self.by_literal.setdefault(literal, []).append(i)
        self._automaton = ahocorasick.Automaton()
        for literal in {lit for r in needs for group in r for lit in group}:
            self._automaton.add_word(literal, literal)
        self._searchable = len(self._automaton) > 0
        if self._searchable:
            self._automaton.make_automaton()

    def present(self, text: str) -> set[str]:
        """The patterns' literals that occur in `text` (folded as case-insensitive matching folds it)."""
        return {literal for _, literal in self._automaton.iter(folded(text))} if self._searchable else set()

    def candidates(self, text: str) -> list[int]:
        """Positions (ascending) of the patterns that may match `text`; the others cannot."""
        return sorted(self.possible(text))

    def possible(self, text: str) -> set[int]:
        """`candidates`, unordered."""
        present = self.present(text)
        found = set(self.always)
        also = self.also
        for literal in present:
            for i in self.by_literal.get(literal, ()):
                if i not in found and (i not in also or all(not group.isdisjoint(present) for group in also[i])):
                    found.add(i)
        return found


def _everywhere(literal: str) -> bool:
    """A one-character literal most texts hold: an ASCII letter, a space, a full stop, a comma, an apostrophe."""
    return len(literal) == 1 and literal.isascii() and (literal.isalpha() or literal.isspace() or literal in ".,'-")


def _char(code: int) -> str | None:
    """A pattern's literal character as `folded` text shows it, or None if case makes it several."""
    char = chr(code)
    if char.isascii():
        return char.lower()
    if char.lower() == char == char.upper() and char.casefold() == char:
        return char
    return None


def _best(candidates: list[Literals]) -> Literals | None:
    """The most selective candidate: the longest shortest literal, then one not of punctuation only, then the
    fewest literals."""
    if not candidates:
        return None
    return max(candidates, key=lambda c: (min(len(s) for s in c), not all(_punctuation(s) for s in c), -len(c)))


def _punctuation(literal: str) -> bool:
    """A literal of punctuation or spaces only ("-", ". "): found in almost any text, so it narrows little."""
    return not any(c.isalnum() for c in literal)


def _sequence(items: Any) -> Literals | None:
    """One of the items of a sequence is required: the best known one (runs of literal characters joined)."""
    return _best(_groups(items))


def _groups(items: Any) -> list[Literals]:
    """What each item of a sequence requires, where known (runs of literal characters joined): all are needed."""
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
    return candidates


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
    if op is _c.IN:
        return _class(av)
    return None  # any character, an assertion, a group reference, a class with letters: nothing known


#: what `\d` matches in a str pattern: every Unicode decimal digit, not only 0-9
_DIGITS = frozenset(chr(c) for c in range(0x110000) if chr(c).isdecimal())


def _class(items: Any) -> Literals | None:
    """The characters a class matches, as one-character literals, when they are few and none is a letter (a class
    of letters or with a space narrows nothing; a negated one, any other category or a wide range is unknown)."""
    chars: set[str] = set()
    for op, av in items:
        if op is _c.LITERAL:
            chars.add(chr(av))
        elif op is _c.RANGE and av[1] - av[0] < 64:
            chars.update(chr(c) for c in range(av[0], av[1] + 1))
        elif op is _c.CATEGORY and av is _c.CATEGORY_DIGIT:
            chars.update(_DIGITS)
        else:
            return None
    if not chars or any(c.isalpha() or c.isspace() or c != c.lower() or c.casefold() != c for c in chars):
        return None
    return frozenset(chars)


_ESCAPE = re.compile(r"\\.")


def caseless(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """`pattern` without IGNORECASE, for text already case-folded (`is_folded`): the same matches there, about
    twice as fast. A pattern with upper-case letters of its own is returned as it is."""
    if not pattern.flags & re.IGNORECASE or _ESCAPE.sub("", pattern.pattern).lower() != _ESCAPE.sub("", pattern.pattern):
        return pattern
    return re.compile(pattern.pattern, pattern.flags & ~re.IGNORECASE)


def is_folded(text: str) -> bool:
    """No upper case, and no dotless i or long s (which IGNORECASE also takes for i and s)."""
    return text.lower() == text and "ı" not in text and "ſ" not in text


class _Never:
    """A pattern that cannot match the text at hand (none of its literals is in it)."""

    @staticmethod
    def search(*_: Any) -> None:
        return None

    match = search


NEVER = _Never()


class PatternSet:
    """Named patterns, as one text needs them: `for_text(text).NAME` is the pattern NAME, or `NEVER` when none
    of its literals occurs in `text` (so it cannot match any part of it).

    On case-folded text each pattern is also swapped for a twin compiled without IGNORECASE, which matches exactly
    what the original does there, faster. The view is exact for `text` and every substring of it.
    """

    def __init__(self, patterns: dict[str, re.Pattern[str]]) -> None:
        self.names = tuple(patterns)
        self._known = frozenset(self.names)
        self.exact = tuple(patterns.values())
        self.caseless = tuple(caseless(p) for p in self.exact)
        self.index = Index(self.exact)

    def for_text(self, text: str) -> Any:
        chosen = self.caseless if is_folded(text) else self.exact
        names = self.names
        return _View(self._known, {names[i]: chosen[i] for i in self.index.possible(text)})


class _View:
    """The patterns a text may match, by name; any other of the set's names is `NEVER`."""

    def __init__(self, known: frozenset[str], patterns: dict[str, Any]) -> None:
        self._known = known
        self.__dict__.update(patterns)

    def __getattr__(self, name: str) -> Any:  # only for the names not set: the patterns that cannot match
        if name in self._known:
            return NEVER
        raise AttributeError(name)


class Prefiltered:
    """A compiled pattern that is not run on text lacking every literal its matches need (`required`): the same
    answers as the pattern, for `search`, `match`, `fullmatch`, `findall` and `finditer`; anything else is the
    pattern's own."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern_object = pattern
        needed = required(pattern)
        self._needed = None if needed is None or any(_everywhere(lit) for lit in needed) else needed
        if self._needed:
            self._automaton = ahocorasick.Automaton()
            for literal in self._needed:
                self._automaton.add_word(literal, literal)
            self._automaton.make_automaton()

    def _may_match(self, text: str) -> bool:
        return self._needed is None or next(self._automaton.iter(folded(text)), None) is not None

    def search(self, text: str, *args: Any) -> re.Match[str] | None:
        return self.pattern_object.search(text, *args) if self._may_match(text) else None

    def match(self, text: str, *args: Any) -> re.Match[str] | None:
        return self.pattern_object.match(text, *args) if self._may_match(text) else None

    def fullmatch(self, text: str, *args: Any) -> re.Match[str] | None:
        return self.pattern_object.fullmatch(text, *args) if self._may_match(text) else None

    def findall(self, text: str, *args: Any) -> list[Any]:
        return self.pattern_object.findall(text, *args) if self._may_match(text) else []

    def finditer(self, text: str, *args: Any) -> Iterator[re.Match[str]]:
        return self.pattern_object.finditer(text, *args) if self._may_match(text) else iter(())

    def __getattr__(self, name: str) -> Any:
        return getattr(self.pattern_object, name)
