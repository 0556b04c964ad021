"""Matching the rules on every layer of a text, and scoring what was found into a verdict.

    score = sum of the matched weights x the source's factor (AuditPolicy.source_factor)
    REJECT at policy.reject_at (1.0), QUARANTINE at policy.quarantine_at (0.5), else ALLOW

A rule that fires only after folding adds an obfuscation finding; hidden layers (`unwrap`) are scanned one level deep
beyond the first.
"""

from __future__ import annotations

import re
from typing import Sequence

from ..errors import InvalidInputError
from ..types import Source
from . import literals
from .directives import directive_findings
from .normalise import decode_base64_runs, normalise
from .rules import RULES
from .structure import STRUCTURE_MARK, structure_findings
from .unwrap import unwrap_layers
from .verdict import DEFAULT_POLICY, Action, AuditPolicy, AuditVerdict, Category, Finding, Rule, Scope


def _judge(finding: Finding) -> str:
    """Which judgement a review-only finding comes from: the structural reading or the directive model."""
    return "structure" if STRUCTURE_MARK in finding.why else "model"


def _snippet(text: str, match: re.Match[str], width: int = 60) -> str:
    found = match.group(0).strip()
    return found if len(found) <= width else found[: width - 1] + "…"


def _matching(folded: str, source: Source, rules: Sequence[Rule]) -> list[tuple[Rule, Finding]]:
    untrusted = source in (Source.AGENT, Source.TOOL)
    if not isinstance(rules, tuple):
        rules = tuple(rules)
    index, caseless = _index(rules)
    patterns = caseless if literals.is_folded(folded) else [rule.pattern for rule in rules]
    out = []
    for i in index.candidates(folded):  # the rules whose literals are not in the text cannot match
        rule = rules[i]
        if rule.scope is Scope.UNTRUSTED and not untrusted:
            continue
        match = patterns[i].search(folded)
        if match:
            out.append((rule, Finding(rule.category, rule.why, rule.weight, _snippet(folded, match))))
    return out


def _index(rules: tuple[Rule, ...]) -> tuple[literals.Index, list[re.Pattern[str]]]:
    """The rules' literal index, and their patterns as folded text needs them (`literals.caseless`)."""
    cached = _indexes.get(id(rules))
    if cached is None or cached[0] is not rules:
        if len(_indexes) > 64:
            _indexes.clear()
        patterns = [rule.pattern for rule in rules]
        cached = _indexes[id(rules)] = (rules, literals.Index(patterns), [literals.caseless(p) for p in patterns])
    return cached[1], cached[2]


_indexes: dict[int, tuple[tuple[Rule, ...], literals.Index, list[re.Pattern[str]]]] = {}


def match_rules(folded: str, source: Source, rules: Sequence[Rule] = RULES) -> list[Finding]:
    """Findings from the pattern table on already-normalised text; UNTRUSTED rules only for agent/tool."""
    return [finding for _, finding in _matching(folded, source, rules)]


def scan(text: str, source: Source = Source.USER, rules: Sequence[Rule] = RULES, *, _depth: int = 0) -> list[Finding]:
    """Every finding in `text`: rule matches on every layer, plus the structural signals."""
    norm = normalise(text)
    matched = _matching(norm.text, source, rules)
    findings = [finding for _, finding in matched]
    seen = {f.why for f in findings}
    # a rule that fires only after folding means someone hid a trigger on purpose
    hidden_triggers = [f for r, f in matched if not r.pattern.search(norm.naive)]
    if hidden_triggers:
        findings.append(Finding(Category.OBFUSCATION, "a trigger phrase only visible after removing invisible "
                                "characters, look-alike letters or spacing", 1.0, hidden_triggers[0].evidence))
    findings += directive_findings(norm.text, source)
    findings += structure_findings(norm.text, source)
    if norm.tag_chars:
        findings.append(Finding(Category.HIDDEN_TEXT, f"{norm.tag_chars} invisible Unicode tag characters", 2.0,
                                norm.hidden[:60] or "(no readable text)"))
    if norm.smuggled:
        findings.append(Finding(Category.HIDDEN_TEXT, "text smuggled in variation selectors", 2.0, norm.smuggled[:60]))
    if norm.invisible_in_words:
        weight = 0.8 if norm.invisible_in_words >= 3 else 0.4
        findings.append(Finding(Category.OBFUSCATION, f"{norm.invisible_in_words} zero-width or bidi characters "
                                "inside words", weight, f"{norm.invisible_in_words} characters"))
    if norm.bidi_controls:
        findings.append(Finding(Category.OBFUSCATION, "bidirectional override characters", 0.5,
                                f"{norm.bidi_controls} characters"))
    if norm.mixed_script_words:
        findings.append(Finding(Category.OBFUSCATION, "words mixing Latin with look-alike letters of another script", 0.5,
                                f"{norm.mixed_script_words} words"))
    if _depth >= 2:  # text hidden inside text hidden inside text is screened, one level further is not
        return findings
    layers = [("hidden", norm.hidden), ("smuggled", norm.smuggled)]
    decoded = decode_base64_runs(norm.cased)[:20]
    if decoded:
        findings.append(Finding(Category.ENCODED_PAYLOAD, "base64 that decodes to text", 0.3, decoded[0][:60]))
    layers += [("base64", d) for d in decoded]
    layers += unwrap_layers(norm.cased)  # URL- and HTML-encoding, JSON and markdown wrapping
    for layer, inner in layers:
        if not inner.strip():
            continue
        # a judgement (the directive model, the structural reading) counts once each, whichever layer it came from
        judged = {_judge(f) for f in findings if f.review_only}
        inner_findings = [f for f in scan(inner, source, rules, _depth=_depth + 1)
                          if f.why not in seen and f.category is not Category.OBFUSCATION
                          and not (f.review_only and _judge(f) in judged)]
        if inner_findings and layer in ("base64", "url", "html"):
            name = {"base64": "base64", "url": "URL encoding", "html": "HTML character references"}[layer]
            findings.append(Finding(Category.ENCODED_PAYLOAD, f"an instruction hidden in {name}", 0.6,
                                    inner_findings[0].evidence, layer))
        for f in inner_findings:
            seen.add(f.why)
            findings.append(Finding(f.category, f.why, f.weight, f.evidence, layer, f.review_only))
    return findings


def verdict_from_findings(findings: Sequence[Finding], source: Source,
                          policy: AuditPolicy | None = None) -> AuditVerdict:
    """Score the findings (sum of weights x the source's factor) and pick the action.

    Review-only findings count towards quarantine, not towards rejection.
    """
    policy = policy or DEFAULT_POLICY
    factor = policy.source_factor[source]
    raw = sum(f.weight for f in findings)
    score = round(raw * factor, 3)
    if round(sum(f.weight for f in findings if not f.review_only) * factor, 3) >= policy.reject_at:
        action = Action.REJECT
    elif score >= policy.quarantine_at:
        action = Action.QUARANTINE
    else:
        action = Action.ALLOW
    by_category: dict[Category, float] = {}
    for f in findings:
        by_category[f.category] = by_category.get(f.category, 0.0) + f.weight
    category = max(by_category, key=lambda c: by_category[c]) if by_category else None
    reasons = tuple(str(f) for f in findings) + (
        f"score {score:g} = {raw:g} x {factor:g} (source: {source.value}); quarantine at "
        f"{policy.quarantine_at:g}, reject at {policy.reject_at:g}",)
    return AuditVerdict(action, category, reasons, score, source, tuple(findings))


def _source(source: Source | str) -> Source:
    try:
        return Source(source)
    except ValueError:
        raise InvalidInputError(f"source must be one of {[s.value for s in Source]}, got {source!r}") from None


def audit(text: str, source: Source | str = Source.USER, *, policy: AuditPolicy | None = None,
          rules: Sequence[Rule] = RULES) -> AuditVerdict:
    """Screen one write. `source` is who the caller says wrote it; the text cannot change it.

    Returns ALLOW, QUARANTINE or REJECT with the reasons; InvalidInputError for a non-string or an unknown source.
    """
    if not isinstance(text, str):
        raise InvalidInputError(f"text must be a str, got {type(text).__name__}")
    src = _source(source)
    return verdict_from_findings(scan(text, src, rules), src, policy)


class WriteAudit:
    """The audit as a configured callable `(text, source) -> AuditVerdict`, for the write path.

    `extra_rules` are appended to the built-in table (see `rule` to make one).
    """

    def __init__(self, policy: AuditPolicy | None = None, *, extra_rules: Sequence[Rule] = ()) -> None:
        self.policy = policy or DEFAULT_POLICY
        self.rules: tuple[Rule, ...] = RULES + tuple(extra_rules)
        _index(self.rules)  # read the rules' literals now, not in the first write

    def __call__(self, text: str, source: Source | str = Source.USER) -> AuditVerdict:
        return audit(text, source, policy=self.policy, rules=self.rules)


def rule(category: Category, lang: str, weight: float, pattern: str, why: str, scope: Scope = Scope.ANY) -> Rule:
    """Build a rule for `WriteAudit(extra_rules=...)`; the pattern sees normalised, lower-cased text."""
    if not isinstance(weight, (int, float)) or weight <= 0:
        raise InvalidInputError("a rule's weight must be a positive number")
    try:
        compiled = re.compile(pattern, re.IGNORECASE | re.MULTILINE)
    except re.error as exc:
        raise InvalidInputError(f"bad rule pattern {pattern!r}: {exc}") from None
    return Rule(Category(category), lang, float(weight), compiled, why, Scope(scope))
