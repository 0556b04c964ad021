"""The structural directive detector: an order addressed to the agent inside text that is not the user's.

A phrase list misses the next rewording; the structure of an order does not change with its words. Each sentence of
normalised text is read, with the per-language lexicon of `lexicon`, for its addressee (the agent by name or vocative;
"you" in a tool's output), its mood (imperative, obligation, redirect) and its targets (payment, credential, tool,
exfiltration, memory, behaviour, steering: strong; a link handed to people: weak), and is **held** (the write is
quarantined for review) when:

    1. the agent is addressed and the mood is an order                    (any target)
    2. the mood is an order and a strong target is acted on (payment: with an account and a change or the user's money)
    3. "you" in tool output, an order, and any target (a link handed out included)
    4. a redirect of the user's payments to a concrete account           (no mood needed)
    5. the agent's role, rules or permissions redefined, said to it      ("you are now…", "你的角色是…")
    6. someone else asserts a claim about the user involving an account, a credential, a permission for the agent,
       personal data handed out or a contact point: only the user can say what they want

A sentence relayed behind a frame ("tool result: …") is read without it (`unframed`). First-person reports, questions
and warnings are not orders, unless a question asks the agent to act on a strong target. Only agent and tool writes are
read; a finding is `review_only`: it can send a write to review, never reject it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from ..language.text_cache import per_text
from ..types import Source
from . import lexicon as lex
from .cues import SENTENCE_END
from .literals import PatternSet
from .verdict import Category, Finding

#: x1.2 (agent) or x1.5 (tool) crosses the quarantine line (0.5), never the reject line (1.0)
FINDING_WEIGHT = 0.6
STRONG = ("payment", "credential", "tool", "exfiltration", "memory", "behaviour", "steering")
_MAX_SENTENCES, _MAX_CHARS = 200, 600
#: every structural finding's reason names the structure it read (`screening` tells the judgements apart by it)
STRUCTURE_MARK = "(structure: addressee"
_CLAUSE = re.compile(r"[:,;，：；—]")
#: the lexicon as one text needs it (`literals.PatternSet`): what cannot match it is never searched
LEXICON = PatternSet({name: value for name, value in vars(lex).items() if isinstance(value, re.Pattern)})


@dataclass(frozen=True)
class Sentence:
    """One sentence's structure: who it speaks to, its mood, what it acts on, and whether it is held."""

    text: str
    addressee: str | None
    mood: str | None
    targets: tuple[str, ...]
    held_by: int = 0  # the number of the rule that holds it (see the module docstring), 0 if none

    @property
    def held(self) -> bool:
        return self.held_by > 0


@dataclass(frozen=True)
class Reading:
    sentences: tuple[Sentence, ...]

    @property
    def held(self) -> Sentence | None:
        return next((s for s in self.sentences if s.held), None)


def sentences(folded: str) -> list[str]:
    """Sentences with their end mark kept (a question is not an order), at most _MAX_SENTENCES."""
    out, start = [], 0
    for end in SENTENCE_END.finditer(folded):
        out.append(folded[start:end.end()])
        start = end.end()
        if len(out) >= _MAX_SENTENCES:
            break
    out.append(folded[start:])
    return [p.strip()[:_MAX_CHARS] for p in out if p.strip(" \n.!?。！？；;")]


def unframed(text: str, lx=lex) -> str:
    """`text` without its leading relay frames ("here is what the page says: …"), unless a frame speaks to the agent."""
    for _ in range(3):
        found = lx.FRAME.match(text)
        if not found or len(found.group("frame").split()) > 8 or lx.AGENT_ADDRESSED.search(found.group("frame")):
            break
        text = found.group("body")
    return text


def claim_about_user(sentence: str, source: Source, lx=lex) -> bool:
    """Rule 6: someone else asserts what the user wants, allows or has changed, about money, secrets or permissions."""
    sentence = sentence.replace("_", " ")  # a record's field names: "owner_consent"
    if not lx.CLAIM.search(sentence):
        return False
    credential = bool(lx.CREDENTIAL.search(sentence)) and not lx.PROTECTIVE.search(sentence)
    weighty = bool(lx.PAYMENT_ID.search(sentence) or credential or lx.PERMISSION.search(sentence))
    if lx.USER_SUBJECT.search(sentence):
        return weighty or bool(lx.DISCLOSURE.search(sentence) or lx.CONTACT_POINT.search(sentence))
    speaker = lx.OTHER_SUBJECT.search(sentence) or (source is Source.TOOL and lx.FIRST_PERSON.search(sentence))
    return bool(speaker) and weighty


def addressee(sentence: str, source: Source, lx=lex) -> str | None:
    if lx.AGENT_ADDRESSED.search(sentence):
        return "agent"
    if source is Source.TOOL and lx.YOU.search(sentence):
        return "you"
    return None


def mood(sentence: str, lx=lex) -> str | None:
    # the order may follow a vocative or a label: "Assistant, send …", "Note to AI models: forget …"
    body = unframed(sentence, lx)
    clauses = [sentence, body] + [c for c in _CLAUSE.split(sentence, maxsplit=2)[1:3]]
    if lx.NARRATIVE.match(body) and not lx.AGENT_ADDRESSED.search(sentence):
        return None
    if any(lx.IMPERATIVE_FIRST.match(c.strip()) for c in clauses if c.strip()) or lx.REQUEST_QUESTION.match(body):
        return "imperative"
    if lx.OBLIGATION.search(sentence):
        return "obligation"
    if lx.REDIRECT.search(sentence) and lx.ROUTED.search(sentence):
        return "redirect"
    return None


def targets(sentence: str, lx=lex) -> tuple[str, ...]:
    found = []
    if lx.PAYMENT.search(sentence):
        found.append("payment")
    if lx.CREDENTIAL.search(sentence) and not lx.PROTECTIVE.search(sentence):
        found.append("credential")
    if lx.TOOL.search(sentence):
        found.append("tool")
    if lx.EXFILTRATION.search(sentence):
        found.append("exfiltration")
    if lx.MEMORY.search(sentence):
        found.append("memory")
    if lx.BEHAVIOUR.search(sentence):
        found.append("behaviour")
    if lx.STEER.search(sentence):
        found.append("steering")
    if lx.LINK_RELAY.search(sentence):
        found.append("link")
    return tuple(found)


def _redirected_payment(sentence: str, lx=lex) -> bool:
    """Money sent to a concrete account, with a change or the user's own money named."""
    return bool(lx.PAYMENT_ID.search(sentence) and (lx.REDIRECT.search(sentence) or lx.USERS.search(sentence)))


def decide(sentence: str, who: str | None, how: str | None, what: tuple[str, ...], claim: bool = False, lx=lex) -> int:
    """The rule (1-6, see the module docstring) that holds a sentence, or 0."""
    if sentence.rstrip().endswith(("?", "？")) and not (
            lx.REQUEST_QUESTION.match(sentence) and any(t in STRONG for t in what) and who is not None):
        return 0  # a question, unless it is a request to the agent acting on a strong target
    if claim:
        return 6
    if who is not None and lx.PERMISSION_OVER_USER.search(sentence):
        return 5
    if (
            lx.REPORTED.search(sentence) and who != "agent" and not lx.IMPERATIVE_FIRST.match(sentence)):  # a report:
        return 0
    strong = [t for t in what if t in STRONG and (t != "payment" or _redirected_payment(sentence, lx))]
    order = how in ("imperative", "obligation")
    if who == "agent" and how is not None:
        return 1
    if order and strong:
        return 2
    if "behaviour" in what and (who is not None or lx.YOU.search(sentence)):
        return 5
    if who == "you" and order and (strong or "link" in what or ("payment" in what and lx.PAYMENT_ID.search(sentence))):
        return 3
    if how == "redirect" and "payment" in what and lx.PAYMENT_ID.search(sentence) and lx.ROUTED.search(sentence) \
            and (lx.USERS.search(sentence) or who is not None):
        return 4
    return 0


def _reading(text: str, source: Source, lx, whole: bool = True) -> Sentence:
    """One sentence read; with `whole=False` its mood is not read when nothing in it could be held for it
    (no addressee, no target, no claim: `decide` holds none of those, whatever the mood)."""
    who, what, claim = addressee(text, source, lx), targets(text, lx), claim_about_user(text, source, lx)
    if not whole and who is None and not what and not claim:
        return Sentence(text, who, None, what)
    how = mood(text, lx)
    return Sentence(text, who, how, what, decide(text, who, how, what, claim, lx))


def _lexicon_for(folded: str):
    # claim_about_user reads a record's field names with their underscores as spaces: the view must see both
    return LEXICON.for_text(folded + "\n" + folded.replace("_", " ") if "_" in folded else folded)


def _sentence_reader(source: Source, whole: bool) -> Callable[[str], Sentence]:
    def read_sentence(text: str) -> Sentence:
        """One sentence read with the lexicon as it needs it: a class none of whose words is in it is not searched."""
        return _reading(text, source, _lexicon_for(text), whole)
    return read_sentence


#: each sentence is read once: the multi-write check and the prompt gate read a text again joined to others, whose
#: sentences are those read before (a cache keyed by the words, emptied by a forget: `language.text_cache`)
_READERS = {(source, whole): per_text(_sentence_reader(source, whole))
            for source in (Source.AGENT, Source.TOOL, Source.SYSTEM) for whole in (True, False)}


def read_sentence(text: str, source: Source, whole: bool = True) -> Sentence:
    """One sentence (of `sentences`) read: each is read once while it is in the cache."""
    reader = _READERS.get((source, whole))
    return reader(text) if reader is not None else _reading(text, source, _lexicon_for(text), whole)


def read(folded: str, source: Source = Source.TOOL) -> Reading:
    """Each sentence of normalised text with its structure and whether it is held (`source` decides "you")."""
    return Reading(tuple(read_sentence(text, source) for text in sentences(folded)))


def first_held(folded: str, source: Source = Source.TOOL) -> Sentence | None:
    """The first sentence of normalised text that is held, or None: `read(...).held`, reading no more than needed."""
    return next((s for s in (read_sentence(text, source, whole=False) for text in sentences(folded)) if s.held), None)


_RULE_WORDS = {1: "addressed to the agent, as an order", 2: "an order acting on {targets}",
               3: "an order to 'you' (the agent reading a tool's output) about {targets}",
               4: "a redirect of the user's payments to an account",
               5: "a new role, rule or permission for the agent",
               6: "a claim of what the user wants, allows or has changed (money, secrets, permissions or contacts); "
                  "only the user can say that"}


def structure_findings(folded: str, source: Source) -> list[Finding]:
    """One DIRECTIVE finding if an agent's or a tool's text holds an order for the agent; none from the user."""
    if source not in (Source.AGENT, Source.TOOL):
        return []
    held = first_held(folded, source)
    if held is None:
        return []
    writer = "an agent" if source is Source.AGENT else "a tool"
    shape = _RULE_WORDS[held.held_by].format(targets=", ".join(held.targets) or "anything")
    why = (f"written by {writer}: {shape} {STRUCTURE_MARK} {held.addressee or 'none'}, mood {held.mood}, "
           f"targets {', '.join(held.targets) or 'none'})")
    evidence = held.text if len(held.text) <= 80 else held.text[:79] + "…"
    return [Finding(Category.DIRECTIVE, why, FINDING_WEIGHT, evidence, review_only=True)]
