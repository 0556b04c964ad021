"""`hindsight serve` under hostile or careless clients: bounded MCP sessions, a recall log bounded across users,
upkeep of every user's data for the server's own token only, clean 400s for bad values, strict framing, requests
on a deadline, and a warning when it runs without a token."""

from __future__ import annotations

import socket
import time
from datetime import datetime, timezone

import httpx
import pytest

from hindsight_core import Hindsight, HindsightError
from hindsight_core.mcp.sessions import SessionLimits
from hindsight_core.remote import HindsightClient
from hindsight_core.remote.recall_log import RecallLog
from hindsight_core.remote.runner import BackgroundServer, ServeOptions
from hindsight_core.testing import FakeEmbedder

pytestmark = pytest.mark.timeout(180)

ADMIN = "server-token-1234567890abcdef"
ALICE = "alice-token-7f3c9e1a2b4d6f80"


@pytest.fixture
def local(tmp_path):
    with Hindsight(path=tmp_path / "store", embedder=FakeEmbedder()) as memory:
        yield memory


def raw(port: int, request: bytes, *, wait: float = 30.0) -> bytes:
    """Send `request` as it is and read until the server closes the connection (or `wait` s pass: a hang)."""
    with socket.create_connection(("127.0.0.1", port), timeout=wait) as sock:
        sock.sendall(request)
        chunks = []
        while True:
            try:
                data = sock.recv(65536)
            except socket.timeout:
                raise AssertionError(f"the server kept a half-sent request open for {wait} s") from None
            if not data:
                return b"".join(chunks)
            chunks.append(data)


def status_of(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1])


# -- MCP sessions --------------------------------------------------------------------------------
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "test", "version": "0"}}}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def open_session(url: str, token: str | None = None) -> httpx.Response:
    headers = {**MCP_HEADERS, **({"Authorization": f"Bearer {token}"} if token else {})}
    return httpx.post(url + "mcp", json=INITIALIZE, headers=headers, timeout=30)


def ping(url: str, session: str, token: str | None = None) -> int:
    headers = {**MCP_HEADERS, "mcp-session-id": session, "mcp-protocol-version": "2025-06-18"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return httpx.post(url + "mcp", json={"jsonrpc": "2.0", "id": 2, "method": "ping"}, headers=headers,
                      timeout=30).status_code


def test_a_full_server_closes_its_least_recently_used_session_instead_of_refusing(local):
    with BackgroundServer(local, ServeOptions(port=0, mcp_user="alice", mcp_sessions=SessionLimits(total=3))) as server:
        opened = [open_session(server.url) for _ in range(3)]
        assert all(r.status_code == 200 and r.headers.get("mcp-session-id") for r in opened)
        assert ping(server.url, opened[0].headers["mcp-session-id"]) == 200  # the first is now the most recent
        fourth = open_session(server.url)
        assert fourth.status_code == 200, fourth.text  # before: 503 "Too many open sessions" for ten minutes
        assert ping(server.url, opened[1].headers["mcp-session-id"]) == 404  # the least recently used went
        assert [ping(server.url, r.headers["mcp-session-id"]) for r in (opened[0], opened[2], fourth)] == [200] * 3


BOB = "bob-token-0f1e2d3c4b5a69788"


def test_one_token_cannot_take_every_mcp_session(local):
    """Red team finding 5: Bob's token opens sessions in a loop; Alice still gets one, and it keeps working."""
    limits = SessionLimits(total=6, per_user=2)
    with BackgroundServer(local, ServeOptions(port=0, user_tokens={ALICE: "alice", BOB: "bob"},
                                              mcp_sessions=limits)) as server:
        bobs = [open_session(server.url, BOB) for _ in range(12)]
        assert all(r.status_code == 200 for r in bobs)  # his own oldest sessions are closed, not his new ones
        assert [ping(server.url, r.headers["mcp-session-id"], BOB) for r in bobs[-3:]] == [404, 200, 200]
        alices = open_session(server.url, ALICE)
        assert alices.status_code == 200, alices.text  # before: 503 until Bob's sessions were idle for 10 minutes
        more = [open_session(server.url, BOB) for _ in range(6)]
        assert all(r.status_code == 200 for r in more)
        assert ping(server.url, alices.headers["mcp-session-id"], ALICE) == 200  # Bob's loop never closes hers


def test_a_full_server_closes_a_session_of_whoever_holds_the_most(local):
    limits = SessionLimits(total=4, per_user=4)
    with BackgroundServer(local, ServeOptions(port=0, user_tokens={ALICE: "alice", BOB: "bob"},
                                              mcp_sessions=limits)) as server:
        alices = open_session(server.url, ALICE).headers["mcp-session-id"]
        bobs = [open_session(server.url, BOB).headers["mcp-session-id"] for _ in range(3)]
        assert ping(server.url, alices, ALICE) == 200  # Alice's is the most recently used now
        assert open_session(server.url, ALICE).status_code == 200
        assert ping(server.url, alices, ALICE) == 200 and ping(server.url, bobs[0], BOB) == 404


def test_an_idle_mcp_session_is_closed(local):
    with BackgroundServer(local, ServeOptions(port=0, mcp_user="alice", mcp_sessions=SessionLimits(idle=0.5))) as server:
        session = open_session(server.url).headers["mcp-session-id"]
        ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
        for _ in range(120):  # bounded: the session is closed a moment after it goes idle
            answer = httpx.post(server.url + "mcp", json=ping, timeout=30,
                                headers={**MCP_HEADERS, "mcp-session-id": session, "mcp-protocol-version": "2025-06-18"})
            if answer.status_code == 404:
                break
            time.sleep(0.5)
        assert answer.status_code == 404, answer.text


def test_the_default_mcp_bounds_are_hindsights(local):
    from hindsight_core.mcp.sessions import MAX_SESSIONS, SESSION_IDLE_SECONDS

    from hindsight_core.remote.runner import make_app

    app, _ = make_app(local, ServeOptions(port=0, mcp_user="alice"), 8765)
    quota = app.app  # the sessions shared between users, in front of mcp's manager
    [manager] = [r.app.session_manager for r in quota.app.router.routes if hasattr(r.app, "session_manager")]
    assert (manager.max_sessions, manager.session_idle_timeout) == (MAX_SESSIONS, SESSION_IDLE_SECONDS)
    assert quota.limits == SessionLimits() and quota.limits.per_user < MAX_SESSIONS
    assert MAX_SESSIONS <= 1000 and SESSION_IDLE_SECONDS <= 3600


# -- the recall log across users -----------------------------------------------------------------
def test_the_recall_log_is_bounded_across_users(local):
    log = RecallLog(lambda: datetime(2026, 3, 1, tzinfo=timezone.utc), max_entries=5, max_total=10)
    local.write("I prefer green tea in the morning.", user_id="alice", force=True)
    found = local.recall("tea", user_id="alice", reinforce=False)  # a recall that showed something is kept
    for n in range(40):
        log.add(f"user-{n}", f"query {n}", found, caller="api")
    kept = [e.query for n in range(40) for e in log.entries(f"user-{n}")]
    assert kept == [f"query {n}" for n in range(30, 40)]  # the newest ten, whoever asked
    for n in range(12):  # one user's own cap still holds, and the other users' oldest go first
        log.add("busy", f"busy {n}", found, caller="api")
    assert [e.query for e in log.entries("busy")] == [f"busy {n}" for n in range(11, 6, -1)]
    assert sum(len(log.entries(f"user-{n}")) for n in range(40)) == 5


# -- upkeep rights ---------------------------------------------------------------------------------
def test_compacting_every_users_data_needs_the_servers_own_token(local):
    options = ServeOptions(port=0, token=ADMIN, user_tokens={ALICE: "alice"})
    with BackgroundServer(local, options) as server:
        with HindsightClient(server.url, token=ALICE, queue_journal=False) as alice:
            alice.write("I prefer green tea in the morning.", user_id="alice", force=True)
            with pytest.raises(HindsightError, match="needs the server.s own token"):
                alice.compact()
        with HindsightClient(server.url, token=ADMIN, queue_journal=False) as admin:
            assert isinstance(admin.compact(), int)


# -- bad values, framing, deadlines ----------------------------------------------------------------
@pytest.mark.parametrize("spec", [[1, 2], "yesterday", [{"$datetime": "2026-01-01T00:00:00+00:00"}]])
def test_a_bad_timerange_is_a_400_that_says_what_to_send(local, spec):
    with BackgroundServer(local) as server:
        answer = httpx.post(server.url + "api/v1/recall", timeout=30, json={
            "user_id": "alice", "query": "tea", "time_range": {"$timerange": spec}})
    assert answer.status_code == 400, answer.text
    error = answer.json()["error"]
    assert error["type"] == "InvalidInputError" and "$timerange is [start, end]" in error["message"]


def test_a_request_with_both_content_length_and_chunked_encoding_is_refused(local):
    with BackgroundServer(local) as server:
        body = b'{"user_id": "alice", "text": "smuggled", "force": true}'
        answer = raw(server.port, b"POST /api/v1/write HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Length: 4\r\n"
                                  b"Transfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n"
                                  % (server.port, len(body), body))
        assert status_of(answer) == 400 and b"both Content-Length and Transfer-Encoding" in answer
    assert local.memories(user_id="alice") == []


def test_a_request_that_stops_half_way_is_cut_off(local):
    with BackgroundServer(local, ServeOptions(port=0, request_timeout=1.0)) as server:
        head = b"POST /api/v1/users HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" % server.port
        assert raw(server.port, head) == b""  # a head that never ends: the connection is closed
        assert raw(server.port, b"") == b""  # a connection that never asks
        answer = raw(server.port, head + b"Content-Length: 100\r\n\r\n{\"a\": ")  # a body that stops
        assert status_of(answer) == 408, answer
        assert httpx.post(server.url + "api/v1/users", json={}, timeout=30).status_code == 200  # others go on


def test_serve_without_a_token_warns(served):
    log = (served["home"] / f"serve-{served['port']}.log").read_text()
    assert "warning: no token: any program on this machine can read and change every user's memories" in log
