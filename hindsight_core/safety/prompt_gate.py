"""What of a tool's or an agent's text may reach a system prompt: nothing that reads as an order.

A quoted order is still an order to a model that reads past the warning above it, so a text that did not come from the
user is left out of the block (kept in memory, returned by recall, named with why by `admitted`) when the write audit,
asked now, would not allow it; when a sentence reads as an order to the agent (`structure`), is addressed to the
assistant, names it as the one who acts, or hands out a link or a contact with an order; when it names a concrete
account with a standing claim, or puts an order as a fact (a standing route for the user's money, data or credentials, a
claim to outrank the reader's instructions, a verdict laid down for a summary); or when, read with the block's other
third-party texts, oldest first, it completes an order split across memories (`split_orders`).

The user's own words are never judged here; what a tool says of the world (an invoice with its IBAN) is shown, quoted.
Each sentence is judged once while it is in the process's text caches (which a forget empties).
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from itertools import combinations
from typing import Callable, Sequence

from ..language.text_cache import per_text
from ..types import Source
from . import cues
from . import lexicon as lex
from .normalise import normalise
from .screening import audit
from .structure import read_sentence, sentences
from .verdict import Action

_CACHE_SIZE = 4096
_cache: OrderedDict[str, str | None] = OrderedDict()
_lock = threading.Lock()


def _reason(text: str, source: Source) -> str | None:
    verdict = audit(text, source)
    if verdict.action is not Action.ALLOW:
        return f"the write audit holds it ({verdict.category.value if verdict.category else 'held'})"
    folded = normalise(text).text.replace("_", " ")  # "always_cc: …", "payment_account: …"
    if len(lex.SETTING_LINE.findall(folded)) >= 2:  # a settings file says one thing across its lines
        reason = _account_or_fact(" ".join(folded.split()))
        if reason:
            return reason
    for sentence in sentences(folded):
        reason = _SENTENCE_REASONS[source](sentence) if source in _SENTENCE_REASONS else \
            _sentence_reason(sentence, source)
        if reason:
            return reason
    return None


def _sentence_reason(text: str, source: Source) -> str | None:
    """Why one sentence of a third-party text reads as an order, or None."""
    sentence = read_sentence(text, source)
    if sentence.held:
        return "it reads as an order to the agent"
    if sentence.addressee == "agent":
        return "it speaks to the assistant"
    if lex.AGENT_ACTS.search(sentence.text):
        return "it says what the assistant does"
    if sentence.mood in ("imperative", "obligation") and "link" in sentence.targets:
        return "it hands out a link as an order"
    return _account_or_fact(sentence.text)


#: each sentence judged once (a cache keyed by the words, emptied by a forget: `language.text_cache`)
def _judged_for(source: Source) -> Callable[[str], str | None]:
    def sentence_reason(text: str) -> str | None:
        return _sentence_reason(text, source)
    return per_text(sentence_reason)


_SENTENCE_REASONS = {source: _judged_for(source) for source in (Source.AGENT, Source.TOOL, Source.SYSTEM)}


def _account_or_fact(sentence: str) -> str | None:
    if lex.PAYMENT_ID.search(sentence) and (lex.CLAIM.search(sentence) or cues.STANDING.search(sentence)
                                            or lex.STANDING_ROUTE.search(sentence)):
        return "it names an account as a standing rule, a default or a change"
    return _order_as_fact(sentence)


def _order_as_fact(sentence: str) -> str | None:
    """An order put as a fact about the world: a standing route for the user's things, a claim to outrank the
    reader's AI, or a verdict laid down for the reader's own summary or answer."""
    if lex.FLOW_TO.search(sentence) and lex.OWNED.search(sentence) and lex.STANDING_ROUTE.search(sentence):
        return "it sets a standing route for money or data to a destination it names"
    if lex.PRECEDENCE.search(sentence) and lex.READERS_AI.search(sentence):
        return "it claims to outrank the reader's AI"
    if lex.READERS_TASK.search(sentence) and lex.VERDICT.search(sentence):
        return "it lays down what the reader's summary or answer says"
    return None


def withheld_because(text: str, source: Source | str) -> str | None:
    """Why a tool's, an agent's or the application's text must not reach a system prompt, or None; the user's
    own words always may. Decisions are kept by digest (never the text), at most 4,096."""
    source = Source(source)
    if source is Source.USER or not text.strip():
        return None
    key = hashlib.sha256(f"{source.value}:{text}".encode("utf-8", errors="surrogatepass")).hexdigest()
    with _lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    reason = _reason(text, source)
    with _lock:
        _cache[key] = reason
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return reason


def split_orders(pieces: Sequence[tuple[str, Source]]) -> set[int]:
    """The positions of the pieces (oldest first) that, two or three together in their order, read as an order
    that none of them is alone. Pieces keep their own sentence ends, so memories that each end a sentence do not
    run into one sentence."""

    def order(chosen: tuple[int, ...]) -> bool:
        source = Source.TOOL if any(pieces[i][1] is Source.TOOL for i in chosen) else pieces[chosen[0]][1]
        return withheld_because(" ".join(pieces[i][0].strip() for i in chosen), source) is not None

    needed: set[int] = set()
    for size in (2, 3):
        for chosen in combinations(range(len(pieces)), size):
            if size == 3 and any(order(pair) for pair in combinations(chosen, 2)):
                continue  # the order is a pair's: the third piece is not part of it
            if not needed.issuperset(chosen) and order(chosen):
                needed.update(chosen)
    return needed
