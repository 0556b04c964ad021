"""Data integrity through the public API: loose types are refused at every entry point, an overflowing
time range is a clear error, ids are NFC-normalised, and one unreadable stored record never locks a
user out (issue 15, "Data integrity")."""

from __future__ import annotations

import io
import json
import logging
import unicodedata
import uuid
from datetime import date, datetime, timezone

import numpy as np
import pytest

from hindsight_core import Hindsight, HindsightError, InvalidInputError, MemoryRecord
from hindsight_core.maintenance import export_jsonl, import_jsonl
from hindsight_core.testing import FakeEmbedder
from hindsight_core.contract.records import record_to_dict
from hindsight_core.contract.records import record_from_payload

TEXT = "Project Orion uses the blue theme."


def count(memory, user="u"):
    return len(memory.memories(user_id=user))


# -- loose types ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("entities", [[None, 1], [None], [1], ["Maria", ""], ["  "], "abc", 7, {"Maria": 1},
                                      b"Maria"])
def test_bad_entities_are_refused_on_every_write_path(fake_memory, entities):
    with pytest.raises(InvalidInputError, match="entit"):
        fake_memory.write(TEXT, user_id="u", entities=entities, force=True)
    with pytest.raises(InvalidInputError, match="entit"):
        fake_memory.remember(TEXT, user_id="u", entities=entities, force=True)
    with pytest.raises(InvalidInputError, match="entit"):
        fake_memory.write_many([TEXT, "Another fine note about Orion."], user_id="u", entities=entities, force=True)
    assert count(fake_memory) == 0


def test_good_entities_are_kept_as_given(fake_memory):
    record = fake_memory.remember(TEXT, user_id="u", entities=("Orion", " Maria "), force=True)
    assert record.entities == ["Orion", "Maria"]
    assert fake_memory.remember("Another note on the Lyra project.", user_id="u", force=True).entities  # extracted


def test_a_bare_string_as_event_types_is_refused_not_silently_empty(fake_memory):
    fake_memory.remember("I prefer tea over coffee.", user_id="u", event_type="preference", force=True)
    with pytest.raises(InvalidInputError, match=r"event_types=\['preference'\]"):
        fake_memory.recall("tea", user_id="u", event_types="preference")
    for bad in ([None], [""], 5, {"preference": 1}):
        with pytest.raises(InvalidInputError):
            fake_memory.recall("tea", user_id="u", event_types=bad)
    assert len(fake_memory.recall("tea", user_id="u", event_types=["preference"])) == 1


@pytest.mark.parametrize("flag", ["yes", "true", 1, 0, None, "False"])
def test_forget_everything_must_be_a_real_bool(fake_memory, flag):
    fake_memory.remember(TEXT, user_id="u", force=True)
    with pytest.raises(InvalidInputError, match="True or False"):
        fake_memory.forget(user_id="u", everything=flag)
    with pytest.raises(InvalidInputError, match="True or False"):
        fake_memory.forget(user_id="u", about="Orion", dry_run=flag)
    assert count(fake_memory) == 1


@pytest.mark.parametrize("confidence", [True, False, "0.9", float("nan"), float("inf"), -0.1, 1.5, [0.5]])
def test_confidence_must_be_a_real_number_in_range(fake_memory, confidence):
    with pytest.raises(InvalidInputError, match="confidence"):
        fake_memory.write(TEXT, user_id="u", confidence=confidence, force=True)
    assert count(fake_memory) == 0


def test_a_numpy_confidence_is_a_number(fake_memory):
    record = fake_memory.remember(TEXT, user_id="u", confidence=np.float32(0.25), force=True)
    assert record.confidence == pytest.approx(0.25) and type(record.confidence) is float


@pytest.mark.parametrize("metadata", [{1: "a"}, {None: "a"}, {"outer": {2: "b"}}, {"items": [{(1, 2): "c"}]}])
def test_metadata_keys_must_be_strings_at_every_level(fake_memory, metadata):
    with pytest.raises(InvalidInputError, match="metadata keys must be strings"):
        fake_memory.write(TEXT, user_id="u", metadata=metadata, force=True)
    assert count(fake_memory) == 0


def test_force_must_be_a_real_bool(fake_memory):
    with pytest.raises(InvalidInputError, match="force"):
        fake_memory.write(TEXT, user_id="u", force="yes")


# -- time ranges ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("time_range", ["last_999999999999_days", "last_10000_years", (date(2026, 1, 1), date.max),
                                        ("2026-01-01T00:00", "9999-12-31")])
def test_overflowing_time_ranges_are_clear_errors(fake_memory, time_range):
    fake_memory.remember(TEXT, user_id="u", force=True)
    with pytest.raises(InvalidInputError, match="years 1 to 9999") as caught:
        fake_memory.recall("Orion", user_id="u", time_range=time_range)
    assert not isinstance(caught.value, OverflowError)


def test_a_long_but_valid_range_still_works(fake_memory):
    fake_memory.remember(TEXT, user_id="u", force=True)
    assert len(fake_memory.recall("Orion", user_id="u", time_range="last_1000_years")) == 1
    assert len(fake_memory.recall("Orion", user_id="u", time_range=("2026-01-01", "9999-12-30"))) == 1


# -- ids --------------------------------------------------------------------------------------------------------
def test_composed_and_decomposed_ids_are_one_user(fake_memory):
    composed, decomposed = unicodedata.normalize("NFC", "café"), unicodedata.normalize("NFD", "café")
    assert composed != decomposed
    fake_memory.remember(TEXT, user_id=decomposed, session_id=decomposed, agent_id=decomposed, force=True)
    [result] = fake_memory.recall("Orion", user_id=composed, session_id=composed, agent_id=composed)
    assert result.memory.user_id == composed and result.memory.session_id == composed
    assert fake_memory.users() == [composed]
    assert fake_memory.forget(user_id=decomposed, everything=True).count == 1
    assert count(fake_memory, composed) == 0


def test_confusable_scripts_stay_distinct_users(fake_memory):
    latin, cyrillic = "alice", "\u0430lice"  # Cyrillic a
    fake_memory.remember(TEXT, user_id=latin, force=True)
    assert fake_memory.recall("Orion", user_id=cyrillic) == []
    assert count(fake_memory, latin) == 1


# -- clock and path ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("returns", [None, "2026-01-01T00:00:00+00:00", 1767225600.0])
def test_a_clock_returning_a_non_datetime_is_a_clear_error(returns):
    with Hindsight(location=":memory:", embedder=FakeEmbedder(), clock=lambda: returns) as memory:
        with pytest.raises(InvalidInputError, match="clock returned"):
            memory.remember(TEXT, user_id="u", force=True)


def test_a_clock_that_cannot_be_called_is_refused_at_once():
    with pytest.raises(InvalidInputError, match="callable"):
        Hindsight(location=":memory:", embedder=FakeEmbedder(), clock=datetime(2026, 1, 1, tzinfo=timezone.utc))


def test_path_pointing_at_a_file_is_a_clear_error(tmp_path):
    target = tmp_path / "notes.txt"
    target.write_text("not a store")
    with pytest.raises(InvalidInputError, match="is a file"):
        Hindsight(path=target, embedder=FakeEmbedder())
    assert target.read_text() == "not a store"


@pytest.mark.parametrize("where", ["under-a-file/store", "/proc/hindsight-store"])
def test_path_in_an_unwritable_place_is_a_clear_error(tmp_path, where):
    (tmp_path / "under-a-file").write_text("x")
    path = where if where.startswith("/") else tmp_path / where
    with pytest.raises(HindsightError, match="cannot write"):
        Hindsight(path=path, embedder=FakeEmbedder())


# -- import and migrate -----------------------------------------------------------------------------------------
def _export_with(memory, **record_changes):
    memory.remember(TEXT, user_id="u", force=True)
    buffer = io.StringIO()
    export_jsonl(memory.store, buffer)
    header, line = buffer.getvalue().splitlines()
    data = json.loads(line)
    data["record"].update(record_changes)
    return [header, json.dumps(data)]


@pytest.mark.parametrize("changes", [{"entities": [None]}, {"entities": "abc"}, {"confidence": True},
                                     {"metadata": ["not", "a", "mapping"]}, {"access_count": "3"}])
def test_an_import_file_with_bad_fields_is_refused(clock, changes):
    with Hindsight(location=":memory:", embedder=FakeEmbedder(), clock=clock) as source:
        lines = _export_with(source, **changes)
    with Hindsight(location=":memory:", embedder=FakeEmbedder(), clock=clock) as target:
        with pytest.raises(InvalidInputError, match="line 2"):
            import_jsonl(target.store, target.embedder, lines)
        assert target.users() == []


# -- loading robustness -----------------------------------------------------------------------------------------
def _plant_unreadable(memory, user="u"):
    """Put a record with the types of issue 15 straight into the engine, past the write path's checks."""
    store = memory.store
    good = MemoryRecord(id=str(uuid.uuid4()), user_id=user, summary="bad", raw_content="written by an older version",
                        timestamp=memory.now(), embedding_model=memory.embedder.name)
    [point] = store._points(user, [good], [np.ones(memory.embedder.dimension, dtype=np.float32) / 8.0])
    text = {"summary": "bad", "raw_content": "written by an older version", "context": None,
            "entities": [None, 1], "metadata": {}}
    point["payload"]["sealed"] = store._keystore(user).seal(good.id, text)  # as an older writer might have
    store._upsert_points(store._shard(user, "memories"), [point])
    return good


def test_an_unreadable_record_is_set_aside_and_the_user_stays_readable_and_erasable(clock, tmp_path, caplog):
    with Hindsight(path=tmp_path / "store", embedder=FakeEmbedder(), clock=clock) as memory:
        memory.remember(TEXT, user_id="u", force=True)
        bad = _plant_unreadable(memory)
    with caplog.at_level(logging.WARNING, logger="hindsight"):
        with Hindsight(path=tmp_path / "store", embedder=FakeEmbedder(), clock=clock) as memory:
            assert [r.raw_content for r in memory.memories(user_id="u")] == [TEXT]
            assert [r.memory.raw_content for r in memory.recall("Orion", user_id="u")] == [TEXT]
            memory.remember("Project Lyra uses the red theme.", user_id="u", force=True)
            assert count(memory) == 2
            assert bad.id in caplog.text and "entities" in caplog.text
            memory.forget(user_id="u", everything=True)
            assert memory.users() == [] and count(memory) == 0


def test_migrate_refuses_to_drop_memories_it_cannot_read(clock):
    from hindsight_core.maintenance import migrate

    with Hindsight(location=":memory:", embedder=FakeEmbedder(), clock=clock) as memory:
        memory.remember(TEXT, user_id="u", force=True)
        bad = _plant_unreadable(memory)
        with pytest.raises(HindsightError, match="cannot be read"):
            migrate(memory.store, FakeEmbedder(dimension=32, name="other-hash"))
        assert bad.id in memory.store.ids_in_space("u", "memories")


@pytest.mark.parametrize("change, why", [({"entities": [None, 1]}, "entities"), ({"entities": "abc"}, "entities"),
                                         ({"metadata": {"a": 1, "b": 2} | {1: 3}}, "metadata"),
                                         ({"confidence": "high"}, "confidence"), ({"timestamp": "yesterday"}, "iso"),
                                         ({"timestamp": "2026-01-01T00:00:00"}, "timezone"),
                                         ({"layer": "dreams"}, "layer"), ({"raw_content": ""}, "raw_content"),
                                         ({"derived_from": [3]}, "derived_from")])
def test_record_from_payload_says_why_a_payload_is_unreadable(change, why):
    original = MemoryRecord(id="1", user_id="u", summary="s", raw_content="text",
                            timestamp=datetime(2026, 1, 1, tzinfo=timezone.utc))
    good = record_to_dict(original)
    assert record_from_payload(good) == (original, None)  # the one codec reads back what it wrote
    record, problem = record_from_payload({**good, **change})
    assert record is None and why in problem.lower()
    assert record_from_payload(["not", "a", "payload"]) == (None, "the payload is a list, not a mapping")
