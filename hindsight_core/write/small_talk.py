"""Small talk: words said to the listener to keep a conversation going, not about the speaker.

Such words ("Thanks, Evan! Your support means a lot", "Catch you later!") said on three days looked like a standing
statement to consolidation. Two readings of a statement's shape, neither keyed to what it is about, tell them apart:
`addresses` (it speaks to another speaker by name, set off by a comma or a clause mark; `gate.speaker`) and
`said_to_listener` (every sentence carries no content, or speaks to the listener and names at most `LISTENER_WORDS`
things besides, or, in English only, names no one and at most as many things; a negated one is a standing rule however
short, and a standing request names its task or has a request's shape, `gate.REQUEST`). A note in square brackets
("[laughs]") records what was done, not words said: the shape is read without it.
"""

from __future__ import annotations

import re
from typing import Collection

from ..language import mood
from ..language.cues import polarity
from ..language.text import HAN_CHAR
from ..language.text_cache import per_text
from .gate import FILLER_WORDS, REQUEST, content_words, strip_speaker

#: how many content words a sentence said to the listener may name and still be small talk
#: (`python -m benchmarks.decisions` and `python -m benchmarks.knowledge` measure it)
LISTENER_WORDS = 2

#: the listener in the second person: you, your, yourself, ya; 你, 您
_SECOND_PERSON = re.compile(r"\b(?:you|your|yours|yourself|yourselves|ya|y'all)\b|你|您", re.I)
#: a capitalised word set off as an address inside a sentence: after a comma, before a clause mark or the end
#: ("Thanks, Claude!", "Glad I could help, Maria.")
_SET_OFF_NAME = re.compile(r"(?<=,)\s*([A-Z][a-z]+)\s*(?=[,!?.…]|$)")
_WORD = re.compile(r"[A-Z][a-z]+")
#: the speaker as the object of the verb a sentence opens with (me, us): "Let me know how it goes" and "Join us!"
#: are said to the listener, who is their subject ("That one's serious for me" has a subject of its own)
_SPEAKER_AS_OBJECT = re.compile(r"^(\s*[a-z]+\s+)(?:me|us)\b", re.I)
#: a transcript's note of what was done or attached, in square brackets: "[shared a photo: …]", "[laughs]"
_STAGE_DIRECTION = re.compile(r"\[[^\[\]]*\]")
#: the shortest part of a name that names its bearer ("Deb" for Deborah, "Cal" for Calvin)
_SHORTEST_NAME = 3


#: "no" before a word that carries no content ("No problem", "no worries") negates nothing
_NO_FILLER = re.compile(r"\bno\s+(\w+)", re.I)


def _no_filler(match: re.Match[str]) -> str:
    return " " if match.group(1).lower() in FILLER_WORDS else match.group(0)


@per_text
def _sentences(text: str) -> tuple[str, ...]:
    return tuple(mood.sentences(_STAGE_DIRECTION.sub(" ", strip_speaker(text))))


def _set_off(sentence: str, start: int, end: int) -> bool:
    """Whether the word at `sentence[start:end]` is set off as an address: after a comma, before a comma or an
    exclamation or question mark, at the end, or right after a sentence's first word and before a full stop
    ("Absolutely Jon. I'm always here")."""
    before, after = sentence[:start].rstrip(), sentence[end:].lstrip()
    return before.endswith(",") or not after or after[0] in ",!?…" or \
        (after[0] == "." and len(before.split()) <= 1)


@per_text
def _address_words(text: str) -> frozenset[str]:
    """The capitalised words of a text set off as an address (`_set_off`)."""
    return frozenset(m.group(0) for sentence in _sentences(text) for m in _WORD.finditer(sentence)
                     if _set_off(sentence, m.start(), m.end()))


def addresses(text: str, names: Collection[str]) -> bool:
    """The text speaks to one of `names` (the other speakers of its conversation), in full or by the start of the
    name (at least `_SHORTEST_NAME` letters)."""
    return any(name.startswith(word) and len(word) >= _SHORTEST_NAME for word in _address_words(text) for name in names)


def _to_listener(sentence: str) -> bool:
    """A sentence with no content; or one with at most `LISTENER_WORDS` content words that is said to the
    listener, or (in Latin script, where a statement needs a subject) names no one and is not a request."""
    rest = _SET_OFF_NAME.sub(" ", sentence)
    if content_words(rest) == 0:
        return True
    if content_words(_SECOND_PERSON.sub(" ", rest)) > LISTENER_WORDS:
        return False
    if rest != sentence or _SECOND_PERSON.search(rest):
        return True
    return not HAN_CHAR.search(rest) and not mood.speaks_of_self(_SPEAKER_AS_OBJECT.sub(r"\1", rest)) and \
        not mood.speaks_of_others(rest) and \
        not REQUEST.search(rest) and not polarity(_NO_FILLER.sub(_no_filler, rest))


@per_text
def said_to_listener(text: str) -> bool:
    """Every sentence of the text is said to the listener or carries no content (`_to_listener`)."""
    sentences = _sentences(text)
    return bool(sentences) and all(_to_listener(s) for s in sentences)


def small_talk(text: str, others: Collection[str] = ()) -> bool:
    """Said to keep the conversation going rather than about the speaker: to one of `others` by name
    (`addresses`), or to the listener throughout (`said_to_listener`)."""
    return said_to_listener(text) or (bool(others) and addresses(text, others))
