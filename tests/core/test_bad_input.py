"""Every bad input gets a clear error from the HindsightError tree, and nothing is half-written."""

from datetime import datetime

import pytest

from hindsight_core import (
    EmptyTextError,
    Hindsight,
    HindsightConfig,
    HindsightError,
    InvalidInputError,
    InvalidUserIdError,
    Limits,
    TextTooLargeError,
)
from hindsight_core.testing import FakeEmbedder


def count(memory, user="u"):
    return len(memory.memories(user_id=user))


@pytest.mark.parametrize("text", ["", "   ", "\n\t", "\x00\x01\x02", None, 42, b"bytes"])
def test_empty_or_non_text_is_refused(fake_memory, text):
    with pytest.raises(InvalidInputError):
        fake_memory.remember(text, user_id="u", force=True)


def test_empty_text_error_type(fake_memory):
    with pytest.raises(EmptyTextError):
        fake_memory.remember("  ", user_id="u")
    with pytest.raises(EmptyTextError):
        fake_memory.recall("", user_id="u")


def test_oversized_text_is_refused_with_the_limit_in_the_message(fake_memory):
    with pytest.raises(TextTooLargeError, match="32,768 bytes"):
        fake_memory.remember("x" * 40_000, user_id="u", force=True)
    with pytest.raises(TextTooLargeError):  # multi-byte: 11,000 chars x 3 bytes
        fake_memory.remember("中" * 11_000, user_id="u", force=True)
    assert count(fake_memory) == 0


def test_limit_is_configurable(clock):
    config = HindsightConfig(limits=Limits(max_text_bytes=10))
    with Hindsight(location=":memory:", embedder=FakeEmbedder(), clock=clock, config=config) as memory:
        with pytest.raises(TextTooLargeError):
            memory.remember("more than ten bytes", user_id="u", force=True)


@pytest.mark.parametrize("user_id", [None, "", "   ", "*", "%", "all", "alice\x00", "ali\u200bce", " alice",
                                     "a" * 300, 7, ["alice"]])
def test_bad_user_ids_are_refused_everywhere(fake_memory, user_id):
    with pytest.raises(InvalidUserIdError):
        fake_memory.remember("Project Orion uses the blue theme.", user_id=user_id, force=True)
    with pytest.raises(InvalidUserIdError):
        fake_memory.recall("Orion", user_id=user_id)
    with pytest.raises(InvalidUserIdError):
        fake_memory.forget(user_id=user_id, everything=True)


def test_missing_user_id_never_searches_everyone(fake_memory):
    fake_memory.remember("Project Orion uses the blue theme.", user_id="u", force=True)
    with pytest.raises(InvalidInputError, match=r"recall needs user_id=\.\.\."):
        fake_memory.recall("Orion")  # user_id is keyword-only and required: an error of ours, not a TypeError


def test_control_characters_are_stripped_not_stored(fake_memory):
    record = fake_memory.remember("Project\x07 Orion\x1b uses the blue theme.", user_id="u", force=True)
    assert record.raw_content == "Project Orion uses the blue theme."


def test_bad_options(fake_memory):
    for kwargs in ({"k": 0}, {"k": -1}, {"k": 10**9}, {"k": "5"}, {"k": True}, {"time_range": "last_fortnight"},
                   {"layers": ["dreams"]}, {"time_range": ("2026-05-01", "2026-04-01")}):
        with pytest.raises(InvalidInputError):
            fake_memory.recall("Orion", user_id="u", **kwargs)
    for kwargs in ({"source": "god"}, {"confidence": 2}, {"layer": "working"}, {"event_type": ""},
                   {"timestamp": datetime(2026, 1, 1)}, {"metadata": {"a": object()}},
                   {"metadata": {"a": {"b": {"c": {"d": {"e": 1}}}}}}, {"metadata": {"x": "y" * 20_000}},
                   {"session_id": "s\x00"}):
        with pytest.raises(InvalidInputError):
            fake_memory.remember("Project Orion uses the blue theme.", user_id="u", force=True, **kwargs)
    assert count(fake_memory) == 0


def test_a_bad_item_in_a_batch_stores_none(fake_memory):
    with pytest.raises(InvalidInputError):
        fake_memory.write_many(["Project Orion uses the blue theme.", "", "Another fine note."], user_id="u",
                               force=True)
    with pytest.raises(InvalidInputError):
        fake_memory.write_many("not a list", user_id="u")
    assert count(fake_memory) == 0


def test_huge_batches_are_refused_fast(clock):
    config = HindsightConfig(limits=Limits(max_batch=100))
    with Hindsight(location=":memory:", embedder=FakeEmbedder(), clock=clock, config=config) as memory:
        with pytest.raises(InvalidInputError, match="limit is 100"):
            memory.write_many(["note"] * 101, user_id="u")


def test_a_failing_store_write_stores_nothing(fake_memory, monkeypatch):
    fake_memory.remember("Project Orion uses the blue theme.", user_id="u", force=True)

    def broken(*args, **kwargs):
        raise HindsightError("disk full")

    monkeypatch.setattr(fake_memory.store, "commit", broken)
    with pytest.raises(HindsightError, match="disk full"):
        fake_memory.remember("Project Orion uses the red theme.", user_id="u", force=True)
    assert count(fake_memory) == 1


def test_closed_instance_refuses_work(clock):
    memory = Hindsight(location=":memory:", embedder=FakeEmbedder(), clock=clock)
    memory.close()
    with pytest.raises(HindsightError):
        memory.recall("Orion", user_id="u")


def test_a_broken_clock_is_caught(clock):
    with Hindsight(location=":memory:", embedder=FakeEmbedder(), clock=lambda: datetime(2026, 1, 1)) as memory:
        with pytest.raises(InvalidInputError, match="timezone"):
            memory.remember("Project Orion uses the blue theme.", user_id="u", force=True)
