"""The directive detector: what an agent or a tool writes is data about the world, not orders for the assistant.

Rewordings slip past a table of phrases (`rules`); this detector reads which cues (`cues`) meet in one sentence. A
logistic regression over those features,

    p = 1 / (1 + exp(-(bias + sum_i w_i x_i)))

with the weights fitted by `benchmarks/train_directives.py` (`directive_weights`), gives the probability that the text
is an order planted for the assistant. At `p >= THRESHOLD` the text gets one review-only DIRECTIVE finding of weight
`FINDING_WEIGHT`: enough to quarantine a write, never to reject it. Only agent and tool writes are scored.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..types import Source
from . import directive_weights as model
from .cues import CUES, SENTENCE_END
from .literals import NEVER, PatternSet
from .verdict import Category, Finding

#: the finding's weight: x1.2 (agent) or x1.5 (tool) crosses the quarantine line (0.5), never the reject line (1.0)
FINDING_WEIGHT = 0.6
_RESOURCE = ("payment", "link", "contact")
#: the cues as one text needs them (`literals.PatternSet`): a cue none of whose words is in the text is not searched
_CUES = PatternSet(CUES)

FEATURES = ("standing_act", "trigger_act", "addressee_act", "resource_order", "standing_resource", "resource_change",
            "passive_rule", "passive_resource", "pressure", "credential_act", "imperative_resource", "user_data_out",
            "relay", "relay_resource", "relay_rule", "standing", "addressee", "resource", "reported",
            "narrative_rule", "question_rule")


@dataclass(frozen=True)
class DirectiveScore:
    """The detector's reading of one text: the features that fired, their evidence, and the probability."""

    features: dict[str, float]
    evidence: dict[str, str]
    probability: float

    @property
    def flagged(self) -> bool:
        return self.probability >= model.THRESHOLD


#: a text is read in at most this many sentences of at most this many characters: an order is short, and
#: the bound keeps the detector linear on hostile input (one 40,000-character "sentence")
_MAX_SENTENCES, _MAX_CHARS = 200, 600


def _sentences(text: str) -> list[str]:
    return [s.strip()[:_MAX_CHARS] for s in SENTENCE_END.split(text, maxsplit=_MAX_SENTENCES) if s and s.strip()]


def _spans(folded: str) -> tuple[list[str], Any]:
    """The spans the detector reads (sentences, and pairs of neighbours) and the cues as they need them."""
    sentences = _sentences(folded)
    # a rule often spans two clauses of one message ("Reminder to whoever…: invoices should…"), so the
    # resource may sit in the sentence after the order; pairs of neighbours count as one span
    spans = sentences + [a + " " + b for a, b in zip(sentences, sentences[1:])]
    return spans, _CUES.for_text(" ".join(sentences))  # every span is a substring of the sentences joined


def _fired(cue: dict[str, bool], act_first: bool, question: bool) -> dict[str, bool]:
    """Which features a span's cues fire (each one a conjunction of cues, so more cues never fire fewer)."""
    resource = any(cue[r] for r in _RESOURCE)
    rule = cue["standing"] or cue["trigger"]
    order = cue["act"] or cue["passive"]
    return {
        "standing_act": cue["standing"] and cue["act"],
        "trigger_act": cue["trigger"] and cue["act"],
        "addressee_act": cue["addressee"] and cue["act"],
        "resource_order": resource and order and (cue["trigger"] or cue["relay"] or cue["addressee"]),
        "standing_resource": resource and order and cue["standing"],
        "resource_change": resource and cue["change"] and order,
        "passive_rule": cue["passive"] and (rule or cue["addressee"]),
        "passive_resource": cue["passive"] and resource,
        "pressure": cue["pressure"] and order,
        "credential_act": cue["credential"] and cue["act"] and (rule or cue["addressee"]),
        "imperative_resource": resource and act_first,
        "user_data_out": cue["user_data"] and cue["act"] and resource,
        "relay": cue["relay"],
        "relay_resource": cue["relay"] and resource,
        "relay_rule": cue["relay"] and rule,
        "standing": cue["standing"],
        "addressee": cue["addressee"],
        "resource": resource,
        "reported": cue["reported"],
        "narrative_rule": cue["narrative"] and rule,
        "question_rule": question and rule,
    }


#: the order cues are searched in when a text may be flagged: those whose absence most lowers the bound first
_SEARCH_ORDER = ("addressee", "relay", "standing", "trigger", "passive", "pressure", "user_data", "credential",
                 "payment", "link", "contact", "change", "act", "reported", "narrative")


def _searched(spans: list[str]) -> list[dict[str, bool]] | None:
    """Each span's cues (`CUES`), or None as soon as what is left unsearched cannot reach the threshold (a cue not
    yet searched counts as on in the bound, `_may_flag`; one whose literals a span lacks is off without a search)."""
    views = [_CUES.for_text(span) for span in spans]
    cues = [{name: getattr(view, name) is not NEVER for name in CUES} for view in views]
    for n, name in enumerate(_SEARCH_ORDER):
        for span, view, cue in zip(spans, views, cues):
            if cue[name]:
                cue[name] = getattr(view, name).search(span) is not None
        if n < 4 and not _bound_reached(cues):
            return None
    for span, view, cue in zip(spans, views, cues):
        cue["act_first"] = cue["act"] and view.act.match(span) is not None
    return cues


def _bound_reached(cues: list[dict[str, bool]]) -> bool:
    fired: set[str] = set()
    for cue in cues:
        fired.update(name for name, on in _fired(cue, cue["act"], True).items() if on)
    z = model.BIAS + sum(max(model.WEIGHTS.get(name, 0.0), 0.0) for name in fired)
    return 1.0 / (1.0 + math.exp(-z)) >= model.THRESHOLD


def _features(spans: list[str], cues: list[dict[str, bool]]) -> tuple[dict[str, float], dict[str, str]]:
    x = dict.fromkeys(FEATURES, 0.0)
    evidence: dict[str, str] = {}
    for span, cue in zip(spans, cues):
        fired = _fired(cue, cue["act_first"], span.rstrip().endswith(("?", "？")))
        for name, on in fired.items():
            if on and not x[name]:
                x[name] = 1.0
                evidence[name] = span if len(span) <= 80 else span[:79] + "…"
    return x, evidence


def features(folded: str) -> tuple[dict[str, float], dict[str, str]]:
    """The detector's binary features for normalised text, and for each one the sentence that fired it."""
    spans, _ = _spans(folded)
    return _features(spans, _all_cues(spans))


def _all_cues(spans: list[str]) -> list[dict[str, bool]]:
    out = []
    for span in spans:
        view = _CUES.for_text(span)
        cue = {name: getattr(view, name).search(span) is not None for name in CUES}
        cue["act_first"] = view.act.match(span) is not None
        out.append(cue)
    return out


def _may_flag(view: Any) -> bool:
    """Whether the text could reach the threshold at all: every cue that occurs in it on, the positive weights
    of what that fires summed (a bound: cues that cannot match any span of the text fire nothing)."""
    possible = {name: getattr(view, name) is not NEVER for name in CUES}
    fired = _fired(possible, possible["act"], True)
    z = model.BIAS + sum(max(model.WEIGHTS.get(name, 0.0), 0.0) for name, on in fired.items() if on)
    return 1.0 / (1.0 + math.exp(-z)) >= model.THRESHOLD


def probability(x: dict[str, float]) -> float:
    """The logistic model's probability that a text with features `x` is a planted order."""
    z = model.BIAS + sum(model.WEIGHTS.get(name, 0.0) * value for name, value in x.items())
    return 1.0 / (1.0 + math.exp(-z))


def score(folded: str) -> DirectiveScore:
    """Read one normalised text (see `normalise`); the score does not depend on the source."""
    x, evidence = features(folded)
    return DirectiveScore(x, evidence, probability(x))


def directive_findings(folded: str, source: Source) -> list[Finding]:
    """One DIRECTIVE finding if an agent or a tool wrote text the detector takes for an order, else none."""
    if source not in (Source.AGENT, Source.TOOL):
        return []
    spans, view = _spans(folded)
    if not _may_flag(view):
        return []
    cues = _searched(spans)
    if cues is None:  # what the searches found so far cannot reach the threshold, whatever the rest finds
        return []
    x, evidence = _features(spans, cues)
    reading = DirectiveScore(x, evidence, probability(x))
    if not reading.flagged:
        return []
    strongest = max((n for n in reading.evidence if model.WEIGHTS.get(n, 0.0) > 0),
                    key=lambda n: model.WEIGHTS[n], default=None)
    named = ", ".join(n for n in FEATURES if reading.features[n] and model.WEIGHTS.get(n, 0.0) > 0)
    writer = "an agent" if source is Source.AGENT else "a tool"
    why = f"written by {writer} as an order for whoever reads it ({named}; p={reading.probability:.2f})"
    return [Finding(Category.DIRECTIVE, why, FINDING_WEIGHT, reading.evidence.get(strongest or "", folded[:60]),
                    review_only=True)]
