"""The command line reads the same everywhere: -u/--user-id, true help, counted nouns, the store's own model."""

from __future__ import annotations

import json

import pytest

from hindsight_core.cli import main

COMMANDS_WITH_USERS = ["remember", "recall", "forget", "stats", "export", "archive"]


@pytest.mark.parametrize("command", COMMANDS_WITH_USERS)
def test_every_command_that_names_a_user_takes_u_and_user_id(hs, command):
    help_text = hs(command, "--help").output
    assert "-u, --user-id" in help_text
    assert "--user " not in help_text and "--user TEXT" not in help_text  # the old spelling is hidden


def test_the_old_user_flag_still_works_beside_u(hs):
    hs("remember", "-u", "alice", "I prefer green tea over coffee in the morning.")
    hs("remember", "-u", "bob", "My sister Anna lives in Lisbon.")
    hs("remember", "-u", "carol", "I ride a blue bicycle to work.")
    report = json.loads(hs("stats", "--user", "alice", "-u", "bob", "--json").output)
    assert report["users"] == {"alice": 1, "bob": 1}
    exported = hs("export", "-u", "carol", "-").output
    rows = [json.loads(line) for line in exported.splitlines() if line.startswith('{"record"')]
    assert [row["record"]["user_id"] for row in rows] == ["carol"]


def test_the_help_names_the_default_model_and_every_token_variable(hs):
    top = hs("--help").output
    assert "multilingual-e5-small" in top and "all-MiniLM-L6-v2" not in top
    assert "HINDSIGHT_UI_TOKEN" in top and "HINDSIGHT_SERVE_TOKEN" in top
    assert "serve" in top
    serve = hs("serve", "--help").output
    assert "/mcp" in serve and "--tokens-file" in serve and "--recall-log" in serve


def test_one_memory_is_not_one_memories(hs):
    hs("remember", "-u", "alice", "I prefer green tea over coffee in the morning.")
    exported = hs("export", str(hs.home / "out.jsonl"))
    assert "exported 1 memory and 0 archived of 1 user" in exported.stderr
    imported = hs("--store", str(hs.home / "other"), "import", str(hs.home / "out.jsonl"))
    assert imported.output.startswith("imported 1 memory and 0 archived of 1 user;")


def test_the_store_remembers_its_model_so_no_flag_is_needed_afterwards(hs):
    hs("remember", "-u", "alice", "I prefer green tea over coffee in the morning.")  # built with the fake model
    found = hs("recall", "-u", "alice", "green tea", "--json", model=None)  # no --embedding-model, no variable
    assert json.loads(found.output)[0]["memory"]["embedding_model"] == "fake-hash-embedder"
    # naming another model is still honoured, and refused for a store built with this one
    other = hs("recall", "-u", "alice", "green tea", model="all-MiniLM-L6-v2", ok=False)
    assert other.exit_code == 1 and "fake-hash-embedder" in other.output


def test_serve_refuses_an_open_address_without_a_token(hs):
    out = hs("serve", "--host", "0.0.0.0", ok=False)
    assert out.exit_code == 2 and "HINDSIGHT_SERVE_TOKEN" in out.output
    short = hs("serve", "--token", "short", ok=False)
    assert short.exit_code == 2 and "at least 16 characters" in short.output


def test_main_has_a_serve_command():
    assert "serve" in main.commands
