"""A write queue over `HindsightClient` keeps what it acknowledged: a private local journal, replayed on the next
start, so SIGKILLed client processes lose no acknowledged write."""

from __future__ import annotations

import logging
import os
import signal
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from hindsight_core import Hindsight
from hindsight_core.remote import HindsightClient
from hindsight_core.remote.local_journal import FOLDER_NAME, ClientJournal
from hindsight_core.session.queue_journal import JOURNAL_NAME, QueueJournal
from hindsight_core.remote.runner import BackgroundServer, ServeOptions
from hindsight_core.session.write_queue import WriteQueue, write_queue
from hindsight_core.testing import FakeEmbedder

from ..mcp._process import free_port
from .conftest import start

pytestmark = pytest.mark.timeout(600)
ROOT = Path(__file__).resolve().parents[2]


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_the_journal_is_private_whatever_the_umask_and_keyed_by_server_and_token(tmp_path, monkeypatch, served):
    monkeypatch.setenv("HINDSIGHT_HOME", str(tmp_path / "home"))
    old = os.umask(0o022)
    try:
        client = HindsightClient(served["url"], token="alice-token")
        queue = WriteQueue(client)  # the adapters' queue journals there
        queue.submit(["My locker code is 4711."], user_id="journal-modes")
        queue.flush()
        path = client.local_journal()
        assert path is not None and queue.journal == path and queue.durable
    finally:
        os.umask(old)
    assert path.is_relative_to(tmp_path / "home" / FOLDER_NAME)
    for folder in (tmp_path / "home" / FOLDER_NAME, path.parent.parent, path.parent):
        assert mode(folder) == 0o700, folder
    written = [p for p in path.parent.iterdir() if p.name.startswith(JOURNAL_NAME)]
    assert written and all(mode(p) == 0o600 for p in written), [(p.name, oct(mode(p))) for p in written]
    other_token = HindsightClient(client.url, token="bob-token")
    other_server = HindsightClient(f"http://127.0.0.1:{free_port()}", token="alice-token")
    assert len({path.parent.parent, other_token.local_journal().parent.parent,
                other_server.local_journal().parent.parent}) == 3
    queue.close()
    for c in (client, other_token, other_server):
        c.close()


def test_processes_writing_to_one_server_hold_slots_of_their_own_and_a_free_slots_writes_are_gathered(tmp_path):
    url = f"http://127.0.0.1:{free_port()}"
    first, second = ClientJournal(url, None, tmp_path), ClientJournal(url, None, tmp_path)
    assert first.path != second.path  # one journal per live process: neither replays the other's writes
    journal = QueueJournal(second.path)
    journal.add(journal.encode({"kind": "write", "user_id": "alice", "texts": ["left behind"], "options": {}}))
    journal.close()
    second.release()  # its process ended with a write journaled
    third = ClientJournal(url, None, tmp_path)
    assert third.path == second.path
    [(_, entry)] = QueueJournal(third.path).pending()
    assert entry["texts"] == ["left behind"]
    first.release()
    fourth = ClientJournal(url, None, tmp_path)  # takes slot 0 and gathers nothing more: slot 1 is held
    assert fourth.path == first.path and QueueJournal(fourth.path).pending() == []
    third.release()
    fifth = ClientJournal(url, None, tmp_path / "elsewhere")
    fourth.release()
    fifth.release()


def test_a_client_can_keep_its_queue_in_memory(tmp_path):
    with HindsightClient(f"http://127.0.0.1:{free_port()}", queue_journal=False) as client:
        queue = WriteQueue(client)
        assert queue.journal is None and not queue.durable
        queue.close()


_CHILD = textwrap.dedent("""
    import sys
    from hindsight_core.remote import HindsightClient
    from hindsight_core.session.write_queue import write_queue

    url, folder, round_ = sys.argv[1], sys.argv[2], int(sys.argv[3])
    client = HindsightClient(url, queue_journal=folder)
    queue = write_queue(client)                 # replays what the killed process before this one left
    print("REPLAYING", queue.pending, flush=True)
    for n in range(40):
        text = f"Round {round_} fact {n}: the locker code is {1000 * round_ + n}."
        queue.submit([text], user_id="durable", session_id=f"r{round_}", force=True, merge_duplicates=False)
        sys.stdout.write(f"ACK {text}\\n")  # one write: a kill never leaves half an acknowledgement
        sys.stdout.flush()
    queue.flush()
    print("DONE", flush=True)
""")


def test_sigkilled_client_processes_lose_no_acknowledged_write(tmp_path):
    """20 rounds: a client process hands writes to its queue and is SIGKILLed after a few acknowledgements."""
    port, server = start(tmp_path)
    url = f"http://127.0.0.1:{port}"
    folder = tmp_path / "client-journal"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    acknowledged: list[str] = []
    replayed = 0
    with server:
        for round_ in range(20):
            child = subprocess.Popen([sys.executable, "-c", _CHILD, url, str(folder), str(round_)],
                                     stdout=subprocess.PIPE, text=True, env=env)
            assert child.stdout is not None
            kill_after = 3 + (7 * round_) % 30  # a different moment each round, always mid-stream
            seen = 0
            for line in child.stdout:
                if line.startswith("REPLAYING"):
                    replayed += int(line.split()[1])
                elif line.startswith("ACK ") and line.endswith("\n"):
                    acknowledged.append(line[4:].rstrip("\n"))
                    seen += 1
                    if seen == kill_after:
                        break
            child.send_signal(signal.SIGKILL)
            rest, _ = child.communicate(timeout=60)  # what it printed before the kill landed
            # only whole lines count: a kill may cut the last one (with PYTHONUNBUFFERED, print writes in pieces)
            acknowledged += [line[4:].rstrip("\n") for line in rest.splitlines(keepends=True)
                             if line.startswith("ACK ") and line.endswith("\n")]
        with HindsightClient(url, queue_journal=folder) as client:
            before = {m.raw_content for m in client.memories(user_id="durable")}
            write_queue(client).flush()  # the next start replays the last round's journal
            stored = {m.raw_content for m in client.memories(user_id="durable")}
    assert len(acknowledged) >= 20 * 3
    missing = [text for text in acknowledged if text not in stored]
    print(f"{len(missing)} of {len(acknowledged)} acknowledged writes lost over 20 SIGKILLs")
    assert missing == [], f"{len(missing)} of {len(acknowledged)} acknowledged writes lost"
    assert replayed > 0 or len(before) < len(stored)  # the journal, not luck, kept them


def test_a_journal_folder_that_is_a_link_is_refused(tmp_path):
    from hindsight_core import StoreUnavailableError

    url = f"http://127.0.0.1:{free_port()}"
    first = ClientJournal(url, None, tmp_path / "mine")
    key = first.server.name
    first.release()
    (tmp_path / "theirs").mkdir()
    (tmp_path / "linked").mkdir()
    (tmp_path / "linked" / key).symlink_to(tmp_path / "theirs")
    with pytest.raises(StoreUnavailableError, match="not a link"):
        ClientJournal(url, None, tmp_path / "linked")


# -- a rotated token, another spelling of the URL (red team finding 12) ---------------------------------
OLD_TOKEN, NEW_TOKEN = "server-token-old-0123456789ab", "server-token-new-0123456789ab"
ALICE, BOB = "alice-token-0123456789abcdef", "bob-token-0123456789abcdef01"
SAID = ["My locker code is 4711.", "I prefer aisle seats.", "My dentist is Dr Silva."]


def acknowledged_while_down(memory: Hindsight, options: ServeOptions, token: str, folder: Path, user: str) -> None:
    """A client hands writes to its queue once its server went down, and its process ends without sending them."""
    with BackgroundServer(memory, options) as server:
        client = HindsightClient(server.url, token=token, queue_journal=folder)
        client.config  # what a hand-over checks against, read while the server was up
    queue = WriteQueue(client)
    for text in SAID:
        queue.submit([text], user_id=user, force=True)
    queue.close()  # the writer could not reach the server: the writes stay journaled
    client.close()


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_writes_journaled_before_a_token_rotation_are_stored_after_it(tmp_path, host):
    port, folder = free_port(), tmp_path / "journal"
    with Hindsight(path=tmp_path / "store", embedder=FakeEmbedder()) as memory:
        acknowledged_while_down(memory, ServeOptions(port=port, token=OLD_TOKEN), OLD_TOKEN, folder, "alice")
        with BackgroundServer(memory, ServeOptions(port=port, token=NEW_TOKEN)):  # restarted with a new token
            with HindsightClient(f"http://{host}:{port}/", token=NEW_TOKEN, queue_journal=folder) as client:
                write_queue(client).flush()
            assert {m.raw_content for m in memory.memories(user_id="alice")} == set(SAID)  # before: none of them


def test_another_users_journal_is_not_sent_with_a_token_that_does_not_reach_them(tmp_path, caplog):
    port, folder = free_port(), tmp_path / "journal"
    with Hindsight(path=tmp_path / "store", embedder=FakeEmbedder()) as memory:
        options = ServeOptions(port=port, user_tokens={ALICE: "alice", BOB: "bob"})
        acknowledged_while_down(memory, options, BOB, folder, "bob")
        with BackgroundServer(memory, options):
            with caplog.at_level(logging.WARNING):
                with HindsightClient(f"http://127.0.0.1:{port}", token=ALICE, queue_journal=folder) as alice:
                    write_queue(alice).flush()
            assert memory.memories(user_id="bob") == []  # Alice's token neither sends nor drops Bob's writes
            assert any("3 writes journaled with another token" in r.getMessage() for r in caplog.records)
            with HindsightClient(f"http://127.0.0.1:{port}", token=BOB, queue_journal=folder) as bob:
                write_queue(bob).flush()
            assert {m.raw_content for m in memory.memories(user_id="bob")} == set(SAID)
