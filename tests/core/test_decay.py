"""The decay formula against hand-computed values, with a frozen clock."""

import math

import pytest

from hindsight_core import DecayConfig, Hindsight, HindsightConfig
from hindsight_core.decay import effective_rate, is_spaced, retention
from hindsight_core.testing import FakeEmbedder


def test_retention_formula_by_hand():
    # exp(-0.05 * 10) * 0.8 = 0.6065306597 * 0.8
    assert retention(0.8, 0.05, 10) == pytest.approx(0.48522452777, rel=1e-9)
    assert retention(0.9, 0.01, 0) == pytest.approx(0.9)
    assert retention(1.0, 0.02, 34.657359) == pytest.approx(0.5, rel=1e-6)  # half-life ln2/0.02


def test_effective_rate_is_divided_by_spaced_recalls():
    assert effective_rate(0.05, 0, 0.5) == pytest.approx(0.05)
    assert effective_rate(0.05, 2, 0.5) == pytest.approx(0.025)  # 0.05 / (1 + 0.5*2)


def test_spacing(clock):
    start = clock()
    assert not is_spaced(start, clock.advance(hours=11), 12)
    assert is_spaced(start, clock.advance(hours=1), 12)


def test_stored_memory_decays_as_computed(fake_memory, clock):
    record = fake_memory.remember("The staging deploy is done.", user_id="u")  # task_result: λ = 0.05, c = 0.7
    assert record.event_type == "task_result"
    assert record.decay_rate == 0.05 and record.confidence == 0.7
    clock.advance(days=10)
    assert fake_memory.retention_of(record) == pytest.approx(0.7 * math.exp(-0.5), rel=1e-6)
    results = fake_memory.recall("staging deploy", user_id="u", reinforce=False)
    assert results[0].retention == pytest.approx(0.7 * math.exp(-0.5), rel=1e-5)


def test_preferences_fade_slower_than_task_results(fake_memory, clock):
    pref = fake_memory.remember("From now on, print reports in landscape.", user_id="u")
    task = fake_memory.remember("The staging deploy is done.", user_id="u")
    clock.advance(days=60)
    assert fake_memory.retention_of(pref) == pytest.approx(0.9 * math.exp(-0.6), rel=1e-6)
    assert fake_memory.retention_of(task) == pytest.approx(0.7 * math.exp(-3.0), rel=1e-6)
    # decay ranks, it never hides: the faded task result still comes back, below the fresher preference
    found = [r.memory.id for r in fake_memory.recall("any plans for the billing deploy this weekend?", user_id="u",
                                                       reinforce=False)]
    assert task.id in found
    faded = next(r for r in fake_memory.recall("staging deploy", user_id="u", reinforce=False))
    assert faded.memory.id == task.id and "faded" in faded.explanation.notes


def test_spaced_recall_reinforces_and_massed_recall_counts_once(fake_memory, clock):
    task = fake_memory.remember("The staging deploy is done.", user_id="u")
    clock.advance(days=5)
    for _ in range(3):  # three recalls within minutes: one spaced repetition
        fake_memory.recall("staging deploy", user_id="u")
        clock.advance(minutes=5)
    record = fake_memory.get(task.id, user_id="u")
    assert record.access_count == 3 and record.spaced_recalls == 1
    reinforced_at = record.last_accessed
    clock.advance(days=10)
    elapsed = (clock() - reinforced_at).total_seconds() / 86400
    expected = 0.7 * math.exp(-(0.05 / 1.5) * elapsed)
    assert fake_memory.retention_of(record) == pytest.approx(expected, rel=1e-6)
    # and without reinforcement it would be far lower
    assert expected > 0.7 * math.exp(-0.05 * 15) * 1.5


def test_reinforcement_survives_reopen(tmp_path, clock):
    with Hindsight(path=tmp_path, embedder=FakeEmbedder(), clock=clock) as memory:
        task = memory.remember("The staging deploy is done.", user_id="u")
        clock.advance(days=1)
        memory.recall("staging deploy", user_id="u")
    with Hindsight(path=tmp_path, embedder=FakeEmbedder(), clock=clock) as memory:
        record = memory.get(task.id, user_id="u")
        assert record.access_count == 1 and record.spaced_recalls == 1


def test_decay_rates_are_configurable(clock):
    config = HindsightConfig(decay=DecayConfig(rates={"task_result": 0.5}, retention_threshold=0.2))
    with Hindsight(location=":memory:", embedder=FakeEmbedder(), clock=clock, config=config) as memory:
        task = memory.remember("The staging deploy is done.", user_id="u")
        assert task.decay_rate == 0.5
        clock.advance(days=3)  # 0.7 * e^-1.5 = 0.156 < 0.2
        found = memory.recall("staging deploy", user_id="u")[0]
        assert found.memory.id == task.id and found.retention == pytest.approx(0.7 * math.exp(-1.5), rel=1e-6)
        assert "faded" in found.explanation.notes  # below the configured threshold: marked, never hidden


def test_bad_decay_config_is_refused():
    from hindsight_core import InvalidInputError

    with pytest.raises(InvalidInputError):
        DecayConfig(rates={"preference": -1})
    with pytest.raises(InvalidInputError):
        DecayConfig(retention_threshold=1.5)


@pytest.mark.model
def test_a_correction_never_fades_faster_than_what_it_corrects(real_embedder, clock):
    """The gate files "I've gone vegetarian" as a fact and the ribeye it replaces as a preference, each with its
    kind's rate; the correction takes the slower one, so nine months on it has not faded below the old value."""
    from datetime import timedelta

    from hindsight_core import Hindsight

    with Hindsight(location=":memory:", embedder=real_embedder, clock=clock) as memory:
        old = memory.write("I love a good ribeye steak, medium rare.", user_id="u").record
        clock.advance(days=2)
        new = memory.write("I've gone vegetarian, no more steak.", user_id="u").record
        later = clock() + timedelta(days=270)
        assert new.decay_rate <= old.decay_rate
        assert memory.retention_of(new, later) >= memory.retention_of(old, later)
