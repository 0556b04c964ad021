"""The audit's vocabulary: actions, categories, rule rows, findings, verdicts and the scoring policy.

Plain frozen dataclasses and enums with no behaviour beyond validation; the rule table (`rules`), the text folding
(`normalise`) and the scoring (`screening`) all speak in these terms.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping

from ..errors import InvalidInputError
from ..types import Source


class Action(str, enum.Enum):
    """What the store should do with a write."""

    ALLOW = "allow"
    QUARANTINE = "quarantine"
    REJECT = "reject"


class Category(str, enum.Enum):
    """The kinds of poisoning the audit recognises."""

    INSTRUCTION_OVERRIDE = "instruction_override"
    ROLE_HIJACK = "role_hijack"
    FAKE_AUTHORITY = "fake_authority"
    EXFILTRATION = "exfiltration"
    TOOL_HIJACK = "tool_hijack"
    DELIMITER_ESCAPE = "delimiter_escape"
    DIRECTIVE = "directive"            # untrusted text telling the assistant how to answer
    MALICIOUS_CODE = "malicious_code"
    HIDDEN_TEXT = "hidden_text"        # Unicode tag characters, variation-selector smuggling
    OBFUSCATION = "obfuscation"        # zero-width splits, look-alikes, bidi controls
    ENCODED_PAYLOAD = "encoded_payload"


class Scope(str, enum.Enum):
    ANY = "any"              # suspicious whoever wrote it
    UNTRUSTED = "untrusted"  # suspicious only from an agent or a tool


@dataclass(frozen=True)
class Rule:
    """One row of the pattern table; `pattern` is matched against normalised text."""

    category: Category
    lang: str
    weight: float
    pattern: re.Pattern[str]
    why: str
    scope: Scope = Scope.ANY


@dataclass(frozen=True)
class Finding:
    """One reason for suspicion: which rule or signal, how much it weighs, what it saw, where."""

    category: Category
    why: str
    weight: float
    evidence: str
    layer: str = "text"  # text | hidden (tag characters) | base64 | smuggled (variation selectors)
    #: a judgement rather than a match (the directive detector): it can send a write to review, never reject it
    review_only: bool = False

    def __str__(self) -> str:
        where = "" if self.layer == "text" else f" [in {self.layer} text]"
        return f"{self.category.value}: {self.why}{where} ({self.evidence!r}, +{self.weight:g})"


@dataclass(frozen=True)
class AuditVerdict:
    """The audit's verdict on one write.

    `category` is the category that weighed most (None when nothing was found); `reasons` are readable lines, the last
    one showing how the score was reached.
    """

    action: Action
    category: Category | None
    reasons: tuple[str, ...]
    score: float
    source: Source
    findings: tuple[Finding, ...] = ()

    @property
    def allowed(self) -> bool:
        return self.action is Action.ALLOW

    def __str__(self) -> str:
        return f"{self.action.value} ({self.category.value if self.category else 'clean'}): " + "; ".join(self.reasons)


_DEFAULT_FACTORS = MappingProxyType({Source.USER: 0.8, Source.SYSTEM: 0.8, Source.AGENT: 1.2, Source.TOOL: 1.5})


@dataclass(frozen=True)
class AuditPolicy:
    """Thresholds and per-source factors. Score = sum of weights x factor[source]."""

    quarantine_at: float = 0.5
    reject_at: float = 1.0
    source_factor: Mapping[Source, float] = field(default_factory=lambda: _DEFAULT_FACTORS)

    def __post_init__(self) -> None:
        if not 0 < self.quarantine_at <= self.reject_at:
            raise InvalidInputError("AuditPolicy needs 0 < quarantine_at <= reject_at")
        missing = [s.value for s in Source if s not in self.source_factor]
        if missing:
            raise InvalidInputError(f"AuditPolicy.source_factor has no factor for {missing}")


DEFAULT_POLICY = AuditPolicy()
