"""Working-memory backends: the same behaviour in process and on Redis, then what only Redis does.

These tests need a real redis-server on 127.0.0.1:6379 (`bash scripts/services.sh start`,
which `make test` runs). Without one they skip with one line, or fail where services are
required (`tests/services.py`).
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import shutil
import socket
import subprocess
import sys
import time
import uuid
from datetime import datetime, timedelta, timezone

import pytest

from hindsight_core import Hindsight, HindsightError, InvalidInputError, RuleBasedGate, Source, StoreUnavailableError
from hindsight_core.testing import FakeEmbedder, FrozenClock
from hindsight_core.working import InProcessBackend, RedisBackend, WorkingMemory

from ..services import missing

#: the port `scripts/services.sh` starts Redis on (the same variable moves both)
REDIS_URL = f"redis://127.0.0.1:{os.environ.get('HINDSIGHT_TEST_REDIS_PORT', '6379')}/0"
T0 = datetime(2026, 3, 15, 9, 0, tzinfo=timezone.utc)


@pytest.fixture
def redis_prefix():
    """A fresh key prefix on the local Redis; every key under it is deleted afterwards."""
    try:
        import redis
    except ImportError:
        missing("the redis package is not installed (the redis extra)")
    client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2, socket_timeout=5)
    try:
        client.ping()
    except redis.exceptions.RedisError:
        missing(f"Redis is not reachable at {REDIS_URL}")
    prefix = f"hindsight-test:{uuid.uuid4().hex}:"
    yield prefix
    stale = list(client.scan_iter(match=prefix + "*"))
    if stale:
        client.delete(*stale)
    client.close()


@pytest.fixture(params=["local", "redis"])
def make_backend(request):
    """Makes backends that share one store: the same in-process dict, or the same Redis and key prefix."""
    made: list = []
    if request.param == "local":
        shared = InProcessBackend()

        def factory(**options):
            return InProcessBackend(**options) if options else shared
    else:
        prefix = request.getfixturevalue("redis_prefix")

        def factory(**options):
            backend = RedisBackend(REDIS_URL, prefix=prefix, **options)
            made.append(backend)
            return backend
    yield factory
    for backend in made:
        backend.close()


def session(make_backend, clock=None, **options) -> WorkingMemory:
    options.setdefault("user_id", "ana")
    return WorkingMemory(options.pop("session_id", "chat-1"), backend=make_backend(), embedder=FakeEmbedder(),
                         clock=clock or FrozenClock(T0), **options)


# -- the same behaviour on every backend ----------------------------------------------------------

def test_messages_round_trip_and_are_shared_between_objects(make_backend):
    clock = FrozenClock(T0)
    writer = session(make_backend, clock)
    first = writer.append("user", "以后所有报表都用A4纸横向打印", metadata={"turn": 1, "tags": ["打印"]})
    clock.advance(minutes=2)
    second = writer.append("assistant", "Noted: A4 landscape from now on.")
    reader = session(make_backend, FrozenClock(T0 + timedelta(hours=1)))  # another object, another backend client
    assert reader.messages() == [first, second]
    assert reader.messages()[0].timestamp == T0 and reader.messages()[0].metadata == {"turn": 1, "tags": ["打印"]}
    assert len(reader) == 2


def test_sessions_and_users_are_kept_apart(make_backend):
    pairs = [("a/b", "c"), ("a", "b/c"), (None, "c"), ("a", "c"), ("a:b", "c"), ("a", "b:c")]
    for user, sid in pairs:
        session(make_backend, user_id=user, session_id=sid).append("user", f"I am {user} in {sid}")
    for user, sid in pairs:
        assert [m.content for m in session(make_backend, user_id=user, session_id=sid).messages()] == \
               [f"I am {user} in {sid}"]


def test_window_is_the_same_as_in_process(make_backend):
    clock = FrozenClock(T0)
    wm = session(make_backend, clock, context_limit=70)  # available 56 of the 80 the five messages cost
    reference = WorkingMemory("chat-1", user_id="ana", embedder=FakeEmbedder(), clock=clock, context_limit=70)
    texts = ["Confirmed: the brochure prints at 300 dpi on A3 glossy paper.", "Haha, thanks! How's your day?",
             "Let's plan the offsite at the lake lodge.", "The lodge costs 4,800 euros for two nights.",
             "Which paper and resolution did we settle on for the brochure?"]
    for i, text in enumerate(texts):
        message = wm.append("user" if i % 2 == 0 else "assistant", text)
        reference.extend([{"role": message.role, "content": message.content, "timestamp": message.timestamp}])
        clock.advance(minutes=3)
    ours, theirs = wm.window(), reference.window()
    assert [m.content for m in ours.messages] == [m.content for m in theirs.messages]
    assert [(s.priority, s.kept) for s in ours.scores] == [(s.priority, s.kept) for s in theirs.scores]
    assert texts[0] in [m.content for m in ours.messages] and texts[1] not in [m.content for m in ours.messages]


def test_end_session_hands_messages_to_long_term_memory_through_the_gate(make_backend, fake_memory, clock):
    wm = session(make_backend, clock, memory=fake_memory)
    wm.append("user", "hi")
    clock.advance(minutes=1)
    wm.append("user", "From now on, print all my reports in A4 landscape.")
    clock.advance(minutes=1)
    wm.append("assistant", "Understood: I will print every report in A4 landscape from now on.")
    wm.append("system", "You are a helpful assistant. Always answer in English.")
    results = wm.end_session()
    assert [r.stored for r in results] == [False, True, True]  # 'hi' skipped; the system prompt is not offered
    assert results[0].decision.reasons == ("small talk or a trivial request",)
    stored = fake_memory.memories(user_id="ana")
    assert [m.raw_content for m in stored] == ["From now on, print all my reports in A4 landscape.",
                                               "Understood: I will print every report in A4 landscape from now on."]
    assert [m.source for m in stored] == [Source.USER, Source.AGENT]
    assert {m.session_id for m in stored} == {"chat-1"} and stored[0].timestamp == T0 + timedelta(minutes=1)
    assert stored[0].event_type == "preference"
    assert wm.messages() == [] and wm.window().messages == ()


def test_end_session_keeps_what_another_process_appended_meanwhile(make_backend, clock):
    other = session(make_backend, clock)
    appended = []

    def gate(text, source=Source.USER):  # runs inside end_session, between reading and dropping
        if not appended:
            appended.append(other.append("user", "a late message from another worker"))
        return RuleBasedGate()(text, source)

    with Hindsight(location=":memory:", embedder=FakeEmbedder(), clock=clock, gate=gate) as memory:
        wm = session(make_backend, clock, memory=memory)
        wm.append("user", "My manager Priya Raman approves the travel budget.")
        assert [r.stored for r in wm.end_session()] == [True]
    assert wm.messages() == appended


def test_a_failed_hand_off_drops_nothing(make_backend, clock):
    memory = Hindsight(location=":memory:", embedder=FakeEmbedder(), clock=clock)
    memory.close()
    wm = session(make_backend, clock, memory=memory)
    wm.append("user", "My manager Priya Raman approves the travel budget.")
    with pytest.raises(StoreUnavailableError, match="closed"):  # not the input's fault
        wm.end_session()
    assert len(wm) == 1


def test_end_session_without_hand_off_and_clear(make_backend, clock):
    wm = session(make_backend, clock)
    wm.append("user", "My manager Priya Raman approves the travel budget.")
    with pytest.raises(InvalidInputError, match="memory="):
        wm.end_session()
    assert wm.end_session(hand_off=False) == [] and len(wm) == 0
    wm.append("user", "again")
    wm.clear()
    assert wm.messages() == []
    anonymous = session(make_backend, clock, user_id=None, session_id="anon")
    anonymous.append("user", "My manager Priya Raman approves the travel budget.")
    with Hindsight(location=":memory:", embedder=FakeEmbedder(), clock=clock) as memory:
        with pytest.raises(InvalidInputError, match="user_id"):
            anonymous.end_session(memory=memory)
    assert len(anonymous) == 1


def test_async_end_session(make_backend, fake_memory, clock):
    wm = session(make_backend, clock, memory=fake_memory)

    async def run():
        await wm.aappend("user", "From now on, print all my reports in A4 landscape.")
        return await wm.aend_session()

    assert [r.stored for r in asyncio.run(run())] == [True] and len(wm) == 0


def test_in_process_sessions_expire_after_their_ttl():
    now = [100.0]
    backend = InProcessBackend(ttl_seconds=60, monotonic=lambda: now[0])
    wm = WorkingMemory("s", backend=backend, embedder=FakeEmbedder())
    wm.append("user", "first")
    now[0] += 59
    wm.append("user", "second")  # refreshes the TTL
    now[0] += 59
    assert [m.content for m in wm.messages()] == ["first", "second"]
    now[0] += 1
    assert wm.messages() == []


# -- Redis only ----------------------------------------------------------------------------------------

def _append_many(prefix: str, tag: str, count: int, barrier) -> None:
    backend = RedisBackend(REDIS_URL, prefix=prefix)
    wm = WorkingMemory("shared", user_id="ana", backend=backend)
    barrier.wait(timeout=60)
    for i in range(count):
        wm.append("user", f"{tag}-{i}")
    backend.close()


def test_two_processes_append_at_once_and_no_message_is_lost(redis_prefix):
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(2)
    workers = [context.Process(target=_append_many, args=(redis_prefix, tag, 300, barrier)) for tag in "ab"]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
    assert [w.exitcode for w in workers] == [0, 0]
    reader = WorkingMemory("shared", user_id="ana", backend=RedisBackend(REDIS_URL, prefix=redis_prefix))
    contents = [m.content for m in reader.messages()]
    assert len(contents) == 600 and len({m.id for m in reader.messages()}) == 600
    for tag in "ab":
        assert [c for c in contents if c.startswith(tag + "-")] == [f"{tag}-{i}" for i in range(300)]


def test_redis_sessions_expire_after_their_ttl_and_appends_refresh_it(redis_prefix):
    # the waits leave a second of slack either way, and expiry is polled for: a busy machine cannot fail this
    backend = RedisBackend(REDIS_URL, prefix=redis_prefix, ttl_seconds=3)
    wm = WorkingMemory("short", backend=backend, embedder=FakeEmbedder())
    wm.append("user", "first")
    assert 0 < backend.ttl(wm.key) <= 3
    time.sleep(2)
    wm.append("user", "second")
    time.sleep(2)  # 4 s after the first append: only the refresh by the second keeps the session
    assert [m.content for m in wm.messages()] == ["first", "second"]
    for _ in range(100):
        if not wm.messages():
            break
        time.sleep(0.1)
    assert wm.messages() == [] and backend.ttl(wm.key) is None
    assert RedisBackend(REDIS_URL, prefix=redis_prefix).ttl_seconds == 3600  # the default: one hour


def test_unreachable_redis_is_a_clear_error():
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(StoreUnavailableError, match="Start redis-server") as caught:
        RedisBackend(f"redis://:hunter2@127.0.0.1:{port}/0", timeout_seconds=1)
    assert "hunter2" not in str(caught.value) and "***" in str(caught.value)
    assert isinstance(caught.value, HindsightError)
    with pytest.raises(InvalidInputError, match="redis://"):
        RedisBackend("http://127.0.0.1:6379")


def test_redis_going_away_mid_session_is_a_clear_error(tmp_path):
    server = shutil.which("redis-server")
    if server is None:
        missing("redis-server is not installed")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen([server, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                "--appendonly", "no", "--dir", str(tmp_path)], stdout=subprocess.DEVNULL)
    try:
        backend = None
        for _ in range(50):
            try:
                backend = RedisBackend(f"redis://127.0.0.1:{port}/0", timeout_seconds=1)
                break
            except StoreUnavailableError:
                time.sleep(0.1)
        assert backend is not None, "the temporary redis-server did not start"
        wm = WorkingMemory("s", backend=backend, embedder=FakeEmbedder())
        wm.append("user", "before the outage")
    finally:
        process.terminate()
        process.wait(timeout=10)
    with pytest.raises(StoreUnavailableError):
        wm.append("user", "during the outage")
    with pytest.raises(StoreUnavailableError):
        wm.messages()


def test_the_core_does_not_import_redis():
    code = ("import sys, hindsight_core, hindsight_core.working, hindsight_core.session.context; "
            "print('redis' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_forgetting_reaches_working_memory_copies(make_backend, clock):
    from hindsight_core import Hindsight
    from hindsight_core.testing import FakeEmbedder

    with Hindsight(location=":memory:", embedder=FakeEmbedder(), clock=clock) as memory:
        backend = make_backend()
        first = WorkingMemory("s1", user_id="ana", memory=memory, backend=backend)
        second = WorkingMemory("s2", user_id="ana", memory=memory, backend=backend)
        other = WorkingMemory("s1", user_id="bob", memory=memory, backend=backend)
        secret = "My locker code at the Orion office is 7781."
        for wm in (first, second, other):
            wm.append("user", secret)
            wm.append("user", "The Orion kickoff is on Monday.")
        record = memory.remember(secret, user_id="ana", force=True)
        receipt = memory.forget(user_id="ana", memory_id=record.id)
        assert receipt.working_messages == 2  # both of ana's sessions, never bob's
        assert [m.content for m in first.messages()] == ["The Orion kickoff is on Monday."]
        assert secret in [m.content for m in other.messages()]
        memory.remember("The Orion kickoff is on Monday.", user_id="ana", force=True)
        assert memory.forget(user_id="ana", everything=True).working_messages == 2
        assert first.messages() == [] and second.messages() == []
        assert len(other.messages()) == 2
