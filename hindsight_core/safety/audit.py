"""The write audit: screens text for memory poisoning before it is stored.

Text written into memory today is pasted into a system prompt tomorrow, so a write is screened for instruction-like or
dangerous content, in English and Chinese, without a model:

    audit(text, source) -> AuditVerdict(action, category, reasons, score, findings)

`action` is ALLOW, QUARANTINE (kept out of recall, for review) or REJECT. The text is normalised (`normalise`, hidden
layers decoded too) and matched against `RULES` (`rules`; scope UNTRUSTED counts only for agent and tool writes);
structural signals and, for agent and tool writes, the shape of an order (`directives`, `structure`, `session_window`)
add findings. The score is the matched weights × the source's factor (`AuditPolicy`); review-only findings count towards
quarantine, never rejection. The source is always the caller's word (`Source`). This module re-exports the parts;
SECURITY.md says what cue screening does not catch.
"""

from __future__ import annotations

from .normalise import Normalised, decode_base64_runs, normalise
from .rules import RULES
from .screening import WriteAudit, audit, match_rules, rule, scan, verdict_from_findings
from .verdict import DEFAULT_POLICY, Action, AuditPolicy, AuditVerdict, Category, Finding, Rule, Scope

__all__ = ["DEFAULT_POLICY", "RULES", "Action", "AuditPolicy", "AuditVerdict", "Category", "Finding", "Normalised",
           "Rule", "Scope", "WriteAudit", "audit", "decode_base64_runs", "match_rules", "normalise", "rule", "scan",
           "verdict_from_findings"]
