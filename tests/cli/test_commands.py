"""The everyday commands: help, configuration precedence, remember, recall, forget, stats."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

from hindsight_core import Hindsight
from hindsight_core.contract.checks import ONE_TARGET
from hindsight_core.testing import FakeEmbedder

from ..files import files_containing
from .conftest import FAKE

PREFERENCE = "From now on, print all my reports in A4 landscape."
ALLERGY = "I am allergic to peanuts, so never suggest dishes with peanuts."


def test_help_shows_every_setting_and_its_variable(hs):
    out = hs("--help").stdout
    for name in ("HINDSIGHT_HOME", "HINDSIGHT_QDRANT_URL", "HINDSIGHT_REDIS_URL", "HINDSIGHT_EMBEDDING_MODEL",
                 "HINDSIGHT_USER_ID", "HINDSIGHT_MCP_TOKEN"):
        assert name in out
    for command in ("demo", "remember", "recall", "forget", "stats", "export", "import", "migrate", "archive", "mcp"):
        assert f"  {command} " in out


def test_every_option_of_every_command_says_what_it_does():
    import click

    from hindsight_core.cli import main

    def silent(command: click.Command, path: str) -> list[str]:
        found = [f"{path} {p.opts[-1]}" for p in command.params
                 if isinstance(p, click.Option) and not p.hidden and not p.help]
        for name, sub in getattr(command, "commands", {}).items():
            found += silent(sub, f"{path} {name}")
        return found

    assert silent(main, "hindsight") == []


def test_a_flag_beats_its_environment_variable(hs, tmp_path):
    flag_store, env_store = tmp_path / "from-flag", tmp_path / "from-env"
    hs("--store", str(flag_store), "remember", "-u", "alice", PREFERENCE, HINDSIGHT_STORE=str(env_store))
    hs("remember", "-u", "alice", ALLERGY, HINDSIGHT_STORE=str(env_store))
    with Hindsight(path=flag_store, embedder=FakeEmbedder()) as memory:
        assert [m.raw_content for m in memory.memories(user_id="alice")] == [PREFERENCE]
    with Hindsight(path=env_store, embedder=FakeEmbedder()) as memory:
        assert [m.raw_content for m in memory.memories(user_id="alice")] == [ALLERGY]
    # and without either, the default: HINDSIGHT_HOME/store
    hs("remember", "-u", "alice", PREFERENCE)
    assert (hs.store).is_dir()
    # the user id from the environment, the flag winning over it
    hs("remember", PREFERENCE, HINDSIGHT_USER_ID="bob")
    hs("remember", "-u", "carol", PREFERENCE, HINDSIGHT_USER_ID="bob")
    with Hindsight(path=hs.store, embedder=FakeEmbedder()) as memory:
        assert memory.users() == ["alice", "bob", "carol"]


def test_remember_recall_forget_with_the_real_model(hs):
    stored = hs("remember", "-u", "alice", PREFERENCE, model=None).stdout
    assert stored.startswith("stored ") and "preference" in stored
    memory_id = stored.split()[1]
    skipped = hs("remember", "-u", "alice", "what time is it?", model=None).stdout
    assert skipped.startswith("not stored: skip") and "small talk" in skipped
    hs("remember", "-u", "alice", ALLERGY, model=None)

    table = hs("recall", "-u", "alice", "Get the sales summary ready for the board handout.", model=None).stdout
    header, first, *rest = table.splitlines()
    assert header.split()[:6] == ["#", "score", "ret.", "type", "date", "memory"]
    assert first.split()[0] == "1" and float(first.split()[1]) > 0 and PREFERENCE[:30] in first
    why = " ".join(line.strip() for line in rest).split(" 2 ")[0]  # the first result's wrapped explanation
    assert memory_id in why and "dense #1" in why and "retention 90%" in why  # the core's explanation, as it now reads

    as_json = json.loads(hs("recall", "-u", "alice", "reports printed", "--json", model=None).stdout)
    assert as_json[0]["memory"]["id"] == memory_id and as_json[0]["score"] > 0
    assert as_json[0]["memory"]["access_count"] == 0  # looking from the command line does not reinforce

    preview = hs("forget", "-u", "alice", "--about", "how my reports are printed", "--dry-run", model=None).stdout
    assert preview.startswith("would forget 1 memory") and memory_id in preview
    gone = hs("forget", "-u", "alice", "--id", memory_id, model=None).stdout
    assert gone.startswith("forgot 1 memory")
    assert memory_id not in hs("recall", "-u", "alice", "reports printed", "--json", model=None).stdout


def test_forget_needs_exactly_one_target_and_confirms_everything(hs):
    hs("remember", "-u", "alice", PREFERENCE)
    result = hs("forget", "-u", "alice", ok=False)
    assert result.exit_code == 2 and ONE_TARGET in result.output  # the core's message, as every face gives it
    result = hs("forget", "-u", "alice", "--about", "reports", "--everything", ok=False)  # asked before confirming
    assert result.exit_code == 2 and ONE_TARGET in result.output and "for good?" not in result.output
    result = hs("forget", "-u", "alice", "--everything", input="n\n", ok=False)
    assert result.exit_code == 1 and "Aborted" in result.output
    assert "forgot 1 memory" in hs("forget", "-u", "alice", "--everything", input="y\n").stdout
    result = hs("forget", "-u", "alice", "--id", "no-such-id", ok=False)
    assert result.exit_code == 1 and "Error: no memory 'no-such-id'" in result.output


def test_errors_are_one_clear_line(hs):
    result = hs("remember", "-u", "*", PREFERENCE, ok=False)
    assert result.exit_code == 1 and "looks like a wildcard" in result.output
    result = hs("recall", "-u", "alice", "x", "--time-range", "someday", ok=False)
    assert result.exit_code == 1 and "unknown time range" in result.output and "Traceback" not in result.output
    assert "pair" not in result.output and "'2026-01-01..2026-01-31'" in result.output  # what a shell can type
    result = hs("recall", "x", ok=False)
    assert result.exit_code == 2 and "--user-id" in result.output


def test_stats(hs):
    now = datetime.now(timezone.utc)
    with Hindsight(path=hs.store, embedder=FakeEmbedder()) as memory:
        memory.remember(PREFERENCE, user_id="alice")
        memory.remember(ALLERGY, user_id="alice")
        memory.write("The staging server restart took 14 minutes.", user_id="bob", force=True,
                     event_type="task_result", timestamp=now - timedelta(days=400))
    hs("archive", "--user", "alice", "--older-than", "0")
    hs("remember", "-u", "alice", "My favourite editor is Neovim and I use it for all my Python work.")

    data = json.loads(hs("stats", "--json").stdout)
    assert data["memories"] == 2 and data["archived"] == 2 and data["users"] == {"alice": 1, "bob": 1}
    assert data["layers"]["episodic"] == 2 and data["statuses"]["active"] == 2 and data["statuses"]["archived"] == 2
    assert data["below_threshold"] == 1 and data["retention_histogram"]["0.0-0.1"] == 1  # bob's faded restart
    assert data["store_bytes"] > 10_000

    text = hs("stats").stdout
    assert "memories: 2" in text and "archived: 2" in text and "episodic 2" in text and "B on disk" in text
    assert json.loads(hs("stats", "--json", "--user", "bob").stdout)["users"] == {"bob": 1}


def test_the_fake_model_name_is_only_a_test_aid(hs):
    """Memories stored with the fake embedder cannot be read with the real one by mistake.

    Naming no model reads the store with the model it was built with (the store remembers it); naming the
    real one is refused with the way out.
    """
    hs("remember", "-u", "alice", PREFERENCE, model=FAKE)
    result = hs("recall", "-u", "alice", "reports", model="multilingual-e5-small", ok=False)
    assert result.exit_code == 1 and "hindsight migrate" in result.output
    assert PREFERENCE in hs("recall", "-u", "alice", "reports", model=None).output


def test_forget_leaves_no_trace_in_the_store_files(hs):
    secret = "The door code for the Zanzibar office is 7781."
    memory_id = hs("remember", "-u", "alice", secret, "--force").stdout.split()[1]
    hs("remember", "-u", "alice", PREFERENCE)

    def traces() -> list[str]:
        return files_containing(hs.store, "Zanzibar")

    assert traces() == []  # sealed: stored, yet in no file in the clear ...
    assert "Zanzibar" in hs("recall", "-u", "alice", "Zanzibar office door code").stdout  # ... and recalled
    keys = hs.store  # the store's key file, keys.sqlite, with its log
    assert any(memory_id.encode() in p.read_bytes() for p in keys.rglob("keys.sqlite"))  # its key is on disk
    hs("forget", "-u", "alice", "--id", memory_id)
    assert traces() == []
    assert not any(memory_id.encode() in p.read_bytes() for p in keys.rglob("keys.sqlite*"))  # the key is gone


def test_stats_can_draw_a_plot(hs, tmp_path):
    from PIL import Image

    hs("remember", "-u", "alice", "From now on, print all my reports in A4 landscape.")
    out = tmp_path / "stats.png"
    hs("stats", "--plot", str(out))
    assert Image.open(out).size == (1000, 400)
