"""The write audit: screens text for memory poisoning before it is stored.

Text written into memory today is pasted into a system prompt tomorrow, so a write is screened for instruction-like or
dangerous content, in English and Chinese, without a model:

    audit(text, source) -> AuditVerdict(action, category, reasons, score, findings)

`action` is ALLOW, QUARANTINE (kept out of recall, for review) or REJECT. The text is normalised (`safety.normalise`,
hidden layers decoded and screened too), matched against `RULES` (`safety.rules`; a rule of scope UNTRUSTED counts only
when an agent or a tool wrote it), given structural findings (hidden characters, mixed scripts, base64, a rule that
matches only after normalisation) and, for agent and tool writes, review-only findings on the shape of an order
(`directives`, `structure`, `session_window`). The score is the matched weights × the source's factor (`AuditPolicy`);
review-only findings count towards quarantine, never towards rejection.

The source is always the caller's word (`Source`). This module is the public face and re-exports the parts. Screening by
cues is a first line, still evaded by some paraphrases: SECURITY.md says what it does not catch.
"""

from __future__ import annotations

from .normalise import Normalised, decode_base64_runs, normalise
from .rules import RULES
from .screening import WriteAudit, audit, match_rules, rule, scan, verdict_from_findings
from .verdict import DEFAULT_POLICY, Action, AuditPolicy, AuditVerdict, Category, Finding, Rule, Scope

__all__ = ["DEFAULT_POLICY", "RULES", "Action", "AuditPolicy", "AuditVerdict", "Category", "Finding", "Normalised",
           "Rule", "Scope", "WriteAudit", "audit", "decode_base64_runs", "match_rules", "normalise", "rule", "scan",
           "verdict_from_findings"]
