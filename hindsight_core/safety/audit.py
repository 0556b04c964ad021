"""The write audit: screens text for memory poisoning before it is stored.

Text written into memory today is pasted into a system prompt tomorrow, so a write is screened for
instruction-like or dangerous content, in English and Chinese, without a model:

    audit(text, source) -> AuditVerdict(action, category, reasons, score, findings)

`action` is ALLOW, QUARANTINE (kept out of recall, for review) or REJECT. How a verdict is reached:

1. **Normalise** (`safety.normalise`): NFKC, invisible characters stripped, look-alike letters folded, spaced
   letters joined; text hidden in tag characters, variation selectors or base64 is decoded and screened too.
2. **Match** the rules of `RULES` (`safety.rules`, one table of category, language, weight, pattern, scope). A
   rule with scope UNTRUSTED (text that addresses the assistant) counts only when an agent or a tool wrote it;
   rules with scope ANY count from every source.
3. **Structural signals** add findings: hidden characters, mixed-script words, decodable base64, and (strongest)
   a rule that matches only after normalisation.
4. **The shape and the structure of an order** (agent and tool writes only: `safety.directives`,
   `safety.structure`, and across a session's recent writes `safety.session_window`) add review-only findings.
5. **Score** = the matched weights × the source's factor (`AuditPolicy`); review-only findings count towards
   quarantine, never towards rejection.

The source is always the caller's word (`Source`); nothing in the text can change it. This module is the public
face and re-exports the parts. Screening by cues is a first line, cheap and predictable, and still evaded by some
paraphrases: SECURITY.md has the figures and what it does not catch.
"""

from __future__ import annotations

from .normalise import Normalised, decode_base64_runs, normalise
from .rules import RULES
from .screening import WriteAudit, audit, match_rules, rule, scan, verdict_from_findings
from .verdict import DEFAULT_POLICY, Action, AuditPolicy, AuditVerdict, Category, Finding, Rule, Scope

__all__ = ["DEFAULT_POLICY", "RULES", "Action", "AuditPolicy", "AuditVerdict", "Category", "Finding", "Normalised",
           "Rule", "Scope", "WriteAudit", "audit", "decode_base64_runs", "match_rules", "normalise", "rule", "scan",
           "verdict_from_findings"]
