"""A mistyped --store, an export to a full disk, an import with one bad line (issue 29): refused, and nothing half done."""

from __future__ import annotations

import json
import uuid

import pytest

from hindsight_core.testing import FakeEmbedder

GOOD = "I keep the Orion receipts in the blue folder."


@pytest.mark.parametrize("command", [("recall", "-u", "alice", "receipts"), ("stats",), ("stats", "--json"),
                                     ("export", "-"), ("forget", "-u", "alice", "--about", "receipts"),
                                     ("archive", "--dry-run"), ("migrate", "--abort"), ("ui", "--port", "0")])
def test_a_read_only_command_on_a_folder_without_a_store_refuses_and_creates_nothing(hs, tmp_path, command):
    typo = tmp_path / "stroe"
    result = hs("--store", str(typo), *command, ok=False)
    assert result.exit_code == 1, result.output
    assert f"no hindsight store at {typo}" in result.output and "Traceback" not in result.output
    assert "no memories found" not in result.output
    assert not typo.exists()


def test_a_write_creates_the_store_and_says_so_once(hs, tmp_path):
    folder = tmp_path / "new-store"
    first = hs("--store", str(folder), "remember", "-u", "alice", GOOD, "--force")
    assert f"created a new store at {folder}" in first.output
    second = hs("--store", str(folder), "remember", "-u", "alice", "A second memory about the receipts.", "--force")
    assert "created a new store" not in second.output
    assert json.loads(hs("--store", str(folder), "stats", "--json").stdout)["memories"] == 2


def test_an_export_to_a_full_disk_is_one_error_and_no_claim(hs):
    hs("remember", "-u", "alice", GOOD, "--force")
    result = hs("export", "/dev/full", ok=False)
    assert result.exit_code == 1 and "No space left on device" in result.output
    assert "exported" not in result.output and result.exception is None or isinstance(result.exception, SystemExit)


def test_an_export_that_fails_leaves_the_old_file_whole(hs, tmp_path, monkeypatch):
    hs("remember", "-u", "alice", GOOD, "--force")
    target = tmp_path / "export.jsonl"
    target.write_text("the previous export\n", encoding="utf-8")
    import hindsight_core.maintenance.transfer as transfer

    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(transfer.os, "fsync", full_disk)
    result = hs("export", str(target), ok=False)
    assert result.exit_code == 1 and "No space left on device" in result.output and "exported" not in result.output
    assert target.read_text(encoding="utf-8") == "the previous export\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".export.jsonl")] == []


def record(i: int) -> str:
    return json.dumps({"record": {
        "id": str(uuid.uuid4()), "user_id": f"user-{i % 3}", "summary": f"Fact {i}.",
        "raw_content": f"Fact number {i} about the Orion project.", "timestamp": "2026-03-15T09:00:00+00:00",
        "layer": "episodic", "event_type": "fact", "confidence": 0.8, "source": "user", "status": "active",
        "embedding_model": FakeEmbedder().name, "entities": [], "metadata": {}}})


def test_an_import_with_a_bad_line_302_stores_nothing(hs, tmp_path):
    lines = [json.dumps({"format": "hindsight-export", "version": 1, "vectors": False})]
    lines += [record(i) for i in range(2, 302)] + ['{"record": {"id": "not a memory"}}'] + [record(i)
                                                                                          for i in range(303, 400)]
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = hs("import", str(path), ok=False)
    assert result.exit_code == 1 and "line 302" in result.output and "Traceback" not in result.output
    assert "imported" not in result.output
    hs("remember", "-u", "alice", GOOD, "--force")  # the store exists now: count what the import left
    assert json.loads(hs("stats", "--json").stdout)["memories"] == 1
    good = tmp_path / "good.jsonl"
    good.write_text("\n".join(lines[:301] + lines[302:]) + "\n", encoding="utf-8")
    assert "imported 397 memories" in hs("import", str(good)).output  # the control: the same file, fixed


def test_an_import_through_the_api_is_all_or_nothing(tmp_path):
    from hindsight_core import EdgeStore, HindsightError, maintenance

    lines = [json.dumps({"format": "hindsight-export", "version": 1, "vectors": False})]
    lines += [record(i) for i in range(2, 600)] + ["not json"]
    store = EdgeStore(tmp_path / "store")
    try:
        with pytest.raises(HindsightError, match="line 600"):
            maintenance.import_jsonl(store, FakeEmbedder(), lines, batch_size=50)
        assert sum(store.count(u) for u in store.users()) == 0
    finally:
        store.close()
