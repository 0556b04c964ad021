"""A forget made through a `HindsightClient` reaches this process's copies of the user's words, as on the
embedded store: the write queue settles or drops the user's writes first, its local journal keeps no byte of
the forgotten text, and the conversation policy (`TurnLog`) fences what it remembered. Against a live server."""

from __future__ import annotations

import asyncio

import pytest

from hindsight_core import Source
from hindsight_core.errors import InvalidInputError
from hindsight_core.remote import HindsightClient
from hindsight_core.session.turns import Turn, TurnLog
from hindsight_core.session.write_queue import WriteQueue

from ..files import files_holding

pytestmark = pytest.mark.timeout(300)

CANARY = "4921-CANARY"
PIN = f"My card PIN is {CANARY}."
PIN_ZH = f"我的银行卡密码是 {CANARY}，别告诉别人。"
ANSWER = f"Noted, your card PIN is {CANARY}."
NEXT = "Book me a table for two at the harbour restaurant on Friday."
PORTO = "I moved to Porto last spring."


def stored(client: HindsightClient, user: str) -> dict[str, str | None]:
    return {r.raw_content: r.context for r in client.memories(user_id=user)}


def target(how: str, text: str) -> dict:
    return {"about": text} if how == "about" else {"everything": True}


@pytest.fixture
def client(served, tmp_path):
    with HindsightClient(served["url"], queue_journal=tmp_path / "journal") as client:
        yield client


@pytest.mark.parametrize("how", ["about", "everything"])
@pytest.mark.parametrize("pin", [PIN, PIN_ZH], ids=["en", "zh"])
def test_a_forget_through_the_client_wins_over_its_queued_writes(client, user, how, pin):
    """Handed over, forgotten at once, then a flush: nothing of it is stored after the forget returned."""
    other = f"{user}-bob"
    queue = WriteQueue(client, linger=600)  # the writer would wait ten minutes unless someone waits for it
    queue.submit([pin], user_id=user)
    queue.offer_turns([Turn(pin, Source.USER)], user_id=user, session_id="s-1")
    queue.submit([PORTO], user_id=other)
    client.forget(user_id=user, **target(how, pin))
    queue.flush()
    assert stored(client, user) == {}  # before: the queued turn was stored after the forget
    assert list(stored(client, other)) == [PORTO]
    queue.close()


@pytest.mark.parametrize("how", ["about", "everything"])
def test_the_clients_journal_keeps_no_byte_of_what_was_forgotten(client, user, tmp_path, how):
    queue = WriteQueue(client, linger=600)
    queue.submit([PIN], user_id=user)
    queue.submit([PORTO], user_id=user)
    folder = tmp_path / "journal"
    assert files_holding(folder, CANARY)  # waiting in the journal, in the clear (what the check looks for)
    client.forget(user_id=user, **target(how, PIN))
    assert files_holding(folder, CANARY) == []  # UTF-8, UTF-16 and base64, in every file of the journal
    queue.flush()
    assert stored(client, user) == ({PORTO: None} if how == "about" else {})
    queue.close()


def test_the_dropped_turns_are_fenced_when_the_history_comes_again(client, user):
    queue, log = WriteQueue(client, linger=600), TurnLog(client)
    queue.offer_turns([Turn(PIN, Source.USER), Turn(ANSWER, Source.AGENT)], user_id=user, session_id="s-1", log=log)
    client.forget(user_id=user, everything=True)
    queue.offer_turns([Turn(PIN, Source.USER), Turn(ANSWER, Source.AGENT), Turn(NEXT, Source.USER)],
                      user_id=user, session_id="s-1", log=log)
    queue.flush()
    assert stored(client, user) == {NEXT: None}
    queue.close()


@pytest.mark.parametrize("how", ["everything", "memory_id", "about"])
def test_a_turnlog_on_a_client_hears_its_forgets(client, user, how):
    log = TurnLog(client)
    log.offer([Turn(PIN, Source.USER)], user_id=user, session_id="s-1")
    pin = client.memories(user_id=user)[0]
    client.forget(user_id=user, **({"memory_id": pin.id} if how == "memory_id" else target(how, PIN)))
    log.offer([Turn(NEXT, Source.USER)], user_id=user, session_id="s-1")
    assert stored(client, user) == {NEXT: None}  # before: {NEXT: PIN}, the forgotten PIN as the next context


def test_listeners_hear_the_clients_forgets_with_what_the_server_removed(client, user):
    heard: list = []
    client.before_forget(lambda event: heard.append(event))
    client.on_forget(lambda event: heard.append(event) or 1)
    client.remember(PIN, user_id=user, force=True)
    assert client.forget(user_id=user, about=PIN, dry_run=True).count == 1
    assert [type(e).__name__ for e in heard] == ["Forgetting"] and heard[0].dry_run  # a dry run removes nothing
    receipt = client.forget(user_id=user, about=PIN)
    assert receipt.count == 1 and receipt.working_messages == 1
    assert heard[-1].texts == frozenset({PIN}) and heard[-1].about == PIN and heard[-1].user_id == user
    asyncio.run(client.aforget(user_id=user, everything=True))
    assert heard[-2].everything and heard[-1].everything
    heard.clear()
    with pytest.raises(InvalidInputError):
        client.forget(user_id=user)  # no target: the server refuses it, the listeners are not disturbed
    assert heard == []


def test_the_langchain_middleware_over_a_client_never_brings_a_forgotten_pin_back(client):
    """The issue's reproduction through the adapter: PIN, forget everything, one more turn in the same thread."""
    from ..langchain.test_middleware import AFTER, pin_then_forget

    records = pin_then_forget(client, {"everything": True})
    assert AFTER in [r.raw_content for r in records]  # the next turn was stored ...
    assert all("4921" not in r.raw_content + (r.context or "") for r in records)  # ... without the PIN as context


# -- a forget made by another process (red team finding 9) -------------------------------------------
def forget_elsewhere(served, user: str, how: str) -> None:
    """Forget the PIN through another client, or through the CLI (another process), never through `client`."""
    if how == "cli":
        from .test_processes import cli

        done = cli(served["home"], "forget", "-u", user, "--everything", "--yes")
        assert done.returncode == 0, done.stderr
        return
    with HindsightClient(served["url"], queue_journal=False) as other:
        other.forget(user_id=user, **target(how, PIN))


@pytest.mark.parametrize("how", ["everything", "about", "cli"])
def test_a_forget_made_by_another_process_reaches_the_turnlog(client, served, user, how):
    log = TurnLog(client)
    log.offer([Turn(PIN, Source.USER)], user_id=user, session_id="s-1")
    assert list(stored(client, user)) == [PIN]
    forget_elsewhere(served, user, how)
    log.offer([Turn(NEXT, Source.USER)], user_id=user, session_id="s-1")
    assert stored(client, user) == {NEXT: None}  # before: {NEXT: PIN}, the forgotten PIN as the next context


def test_a_forget_elsewhere_fences_the_agents_answer_to_a_forgotten_turn(client, served, user):
    """The answer to a turn said before the forget, handed over after it (LlamaIndex does), is not stored."""
    queue, log = WriteQueue(client, linger=0), TurnLog(client)
    queue.offer_turns([Turn(PIN, Source.USER)], user_id=user, session_id="s-1", log=log)
    queue.flush()
    forget_elsewhere(served, user, "everything")
    queue.offer_turns([Turn(PIN, Source.USER), Turn(ANSWER, Source.AGENT), Turn(NEXT, Source.USER)],
                      user_id=user, session_id="s-1", log=log)
    queue.flush()
    assert stored(client, user) == {NEXT: None}
    queue.close()


def test_only_a_forget_moves_the_count_a_client_reads(client, served, user):
    assert client.forgets_made_elsewhere(user) is False  # the first ask only records the count
    client.remember(PORTO, user_id=user, force=True)
    client.recall("Porto", user_id=user)
    assert client.forgets_made_elsewhere(user) is False  # writes and recalls are not forgets
    with HindsightClient(served["url"], queue_journal=False) as other:
        other.forget(user_id=user, about=PORTO, dry_run=True)
        assert client.forgets_made_elsewhere(user) is False  # nor is a dry run
        other.forget(user_id=user, about=PORTO)
    assert client.forgets_made_elsewhere(user) is True
    assert client.forgets_made_elsewhere(user) is False


def test_the_langchain_middleware_hears_a_forget_made_from_the_cli(client, served, user):
    """The finding's reproduction through the adapter: PIN, a forget from the CLI, one more turn in the thread."""
    from langgraph.checkpoint.memory import InMemorySaver

    from ..langchain.helpers import says
    from ..langchain.test_middleware import AFTER, PIN as SAID, PIN_ANSWER, agent_for, settle

    agent, _ = agent_for(client, [PIN_ANSWER, "Booked: Friday at 8 pm, a table for two."],
                         checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "thread-1"}}
    agent.invoke(says(SAID), config, context={"user_id": user})
    settle(client)
    forget_elsewhere(served, user, "cli")
    agent.invoke(says(AFTER), config, context={"user_id": user})
    settle(client)
    records = client.memories(user_id=user)
    assert AFTER in [r.raw_content for r in records]
    assert all("4921" not in r.raw_content + (r.context or "") for r in records)
