"""The write audit: screens text for memory poisoning before it is stored.

Text written into memory today is pasted into a system prompt tomorrow, so a
write is screened for instruction-like or dangerous content, in English and
Chinese, without a model:

    audit(text, source) -> AuditVerdict(action, category, reasons, score, findings)

`action` is ALLOW, QUARANTINE (kept out of recall, for review) or REJECT.

How a verdict is reached:

1. **Normalise.** NFKC (full-width letters become ASCII), invisible characters
   stripped (zero-width, bidi controls, Unicode tag characters), look-alike
   letters of any script inside Latin words folded (Unicode's confusables), s p a c e d letters joined,
   lower-cased, whitespace collapsed. Text hidden in tag characters or
   variation selectors is decoded, and so is any base64 run that decodes to
   text; each is screened like the visible text.
2. **Match** the rules in `RULES`, one readable table of
   (category, language, weight, pattern, scope). A rule with scope UNTRUSTED
   (text that addresses the assistant: "in your response…", "from now on…")
   only counts when the source is an agent or a tool: the same sentence is a
   legitimate preference when the user says it. Rules with scope ANY (role
   changes, overrides, fake authority, exfiltration, tool calls, delimiters)
   count from every source.
3. **Structural signals** add their own findings: tag characters, variation-
   selector smuggling, zero-width characters inside words, bidi controls,
   mixed-script words, decodable base64, and (strongest) a rule that matches
   only after normalisation, i.e. a trigger someone took care to hide.
4. **Read the shape of an order** (agent and tool writes only, `safety.directives`):
   a logistic model over cue features (a standing rule or a relay with an act
   that sends people, money or data; payment details, links or contacts with
   an order to use them) adds one review-only finding: what an agent or a tool
   writes is data about the world, not instructions for the assistant.
5. **Read the structure of an order** (agent and tool writes only, `safety.structure`, with the
   per-language lexicon of `safety.lexicon`: English, Chinese, French, Spanish, German): who is
   addressed (the assistant, an AI, the memory; "you" in a tool's output), the mood (an order verb
   first, an obligation or standing rule, a stated redirect) and the target (payments, credentials,
   tools, sending data out, the memory itself, the agent's role or rules, steering people). An order
   addressed to the agent, or one acting on such a target, adds one review-only finding. Run on every
   unwrapped layer (URL, HTML, JSON, markdown, base64), after normalisation. Never for the user.
   The facade also reads each session's recent agent/tool writes together
   (`safety.session_window`): an order split across writes is held when its last piece arrives.
6. **Score** = sum of the matched weights x the source's factor (user and
   system 0.8, agent 1.2, tool 1.5 by default). REJECT at 1.0, QUARANTINE at 0.5;
   review-only findings count towards quarantine, never towards rejection.

The source is always the caller's word (`Source`); nothing in the text can
change it ("source: user" inside a tool result counts against it, not for it).

Where things live: the rule table in `safety/rules.py` (data), the directive
cues in `safety/cues.py` (data) and their fitted weights in
`safety/directive_weights.py` (regenerate with benchmarks/train_directives.py),
normalisation in `safety/normalise.py`, matching and scoring in
`safety/screening.py`, the verdict types in `safety/verdict.py`. This module is
the public face and re-exports them.

Screening by cues is still evaded by some paraphrases; it is a first line, cheap
and predictable. See SECURITY.md for measured figures and what it does not catch.
"""

from __future__ import annotations

from .normalise import Normalised, decode_base64_runs, normalise
from .rules import RULES
from .screening import WriteAudit, audit, match_rules, rule, scan, verdict_from_findings
from .verdict import DEFAULT_POLICY, Action, AuditPolicy, AuditVerdict, Category, Finding, Rule, Scope

__all__ = ["DEFAULT_POLICY", "RULES", "Action", "AuditPolicy", "AuditVerdict", "Category", "Finding", "Normalised",
           "Rule", "Scope", "WriteAudit", "audit", "decode_base64_runs", "match_rules", "normalise", "rule", "scan",
           "verdict_from_findings"]
