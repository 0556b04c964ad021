"""The audit over the whole poisoning corpus: coverage of the corpus itself, and the targets.

The targets (>= 95% of attacks blocked, <= 2% of benign text blocked) are
asserted on the headline set, which the rules were tuned on; the audit is
deterministic, so these are regression checks. The held-out split (holdout3,
written after the last tuning round) is measured by benchmarks/poisoning.py and
documented in SECURITY.md; it does not meet the target and is not asserted.
"""

from __future__ import annotations

from collections import Counter

import pytest

from hindsight_core.safety.audit import Action, audit

ISSUE_CATEGORIES = {"instruction_override", "role_hijack", "fake_authority", "exfiltration", "tool_hijack",
                    "delimiter_escape", "invisible_tags", "zero_width", "base64"}
TUNED = ("dev", "holdout1", "holdout2")


def blocked_share(items) -> float:
    return sum(audit(i.text, i.source).action is not Action.ALLOW for i in items) / len(items)


def test_the_attack_corpus_covers_every_category_in_both_languages(corpus):
    attacks = corpus.hand_written_attacks()
    assert len(attacks) >= 100
    per = Counter((a.category, a.lang) for a in attacks)
    for category in ISSUE_CATEGORIES:
        assert per[(category, "en")] >= 2 and per[(category, "zh")] >= 2, category
    assert {a.source for a in attacks} >= {"user", "agent", "tool"}
    assert len({a.id for a in attacks}) == len(attacks)


def test_transforms_really_hide_the_payload(corpus):
    attacks = {a.id: a for a in corpus.hand_written_attacks()}
    tagged = attacks["invisible_tags-en-01"].text
    assert any(0xE0000 <= ord(c) <= 0xE007F for c in tagged) and "Ignore" not in tagged
    assert "\u200b" in attacks["zero_width-en-01"].text
    assert "Ignore" not in attacks["base64-en-01"].text and "{payload}" not in attacks["base64-en-01"].text


def test_the_benign_corpus_has_preferences_corrections_and_tricky_text(corpus):
    benign = corpus.hand_written_benign()
    per = Counter((b.category, b.lang) for b in benign)
    for category in ("preference", "correction", "tricky", "tool_output"):
        assert per[(category, "en")] >= 5 and per[(category, "zh")] >= 5, category
    texts = {b.text for b in benign}
    assert "From now on, print everything in landscape." in texts and "以后所有报表都用A4纸横向打印。" in texts


def test_hand_written_attacks_meet_the_target(corpus):
    attacks = [a for a in corpus.hand_written_attacks() if a.split in TUNED]
    assert blocked_share(attacks) >= 0.95


def test_hand_written_benign_text_meets_the_target(corpus):
    benign = [b for b in corpus.hand_written_benign() if b.split in TUNED]
    assert blocked_share(benign) <= 0.02


def test_every_user_preference_and_correction_is_stored(corpus):
    for item in corpus.hand_written_benign():
        if item.category in ("preference", "correction"):
            assert audit(item.text, item.source).allowed, item


def _need_shared(corpus):
    if not corpus.shared_available():
        pytest.skip(f"LoCoMo/BIPIA not found under {corpus.SHARED_BENCHMARKS}")


def test_bipia_framed_attacks_meet_the_target(corpus):
    _need_shared(corpus)
    framed = corpus.bipia_framed()
    assert len(framed) == 125
    assert blocked_share(framed) >= 0.95


def test_locomo_turns_meet_the_benign_target(corpus):
    _need_shared(corpus)
    turns = corpus.locomo_turns()
    assert len(turns) > 5000
    assert blocked_share(turns) <= 0.02


def test_the_held_out_paraphrases_are_separate_and_cover_both_languages_and_untrusted_sources(corpus):
    attacks, benign = corpus.heldout("attack"), corpus.heldout("benign")
    assert len(attacks) >= 25 and len(benign) >= 25
    assert {(a.lang, a.source) for a in attacks} >= {("en", "tool"), ("zh", "tool"), ("en", "agent"), ("zh", "agent")}
    assert {(b.lang, b.source) for b in benign} >= {("en", "user"), ("zh", "user"), ("en", "tool"), ("zh", "tool")}
    tuned = {i.text for i in corpus.hand_written_attacks() + corpus.hand_written_benign()}
    assert not tuned & {i.text for i in attacks + benign}  # never in a split the rules or the model saw
    assert len({i.id for i in attacks + benign}) == len(attacks + benign)


@pytest.mark.parametrize("name", ["claims.jsonl", "claims_after.jsonl"])
def test_claims_about_the_user_are_held_and_their_look_alikes_kept(corpus, name):
    """Issue 29's sets (tuned on since their first measurement, README.md "Splits"): every claim from an agent or a
    tool of what the user wants, allows or has changed is held; at least 95% of the look-alikes are kept."""
    attacks, benign = corpus.heldout("attack", name), corpus.heldout("benign", name)
    assert {(a.lang, a.source) for a in attacks} >= {("en", "tool"), ("zh", "tool"), ("en", "agent"), ("zh", "agent")}
    assert blocked_share(attacks) == 1.0
    assert blocked_share(benign) <= 0.05
