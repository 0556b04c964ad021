"""Real processes around one `hindsight serve`: the CLI, two Python processes, an MCP host and the inspector
share one store; a SIGKILL loses no acknowledged write; a client's failures are `HindsightError`s."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from hindsight_core import StoreUnavailableError
from hindsight_core.remote import HindsightClient, ServerAuthError
from hindsight_core.remote.discovery import read_record, record_path

from ..mcp._process import HINDSIGHT, free_port, http_get, server_env
from .conftest import FAKE, start

pytestmark = pytest.mark.timeout(300)
ROOT = Path(__file__).resolve().parents[2]
SHARED = "mcp-user"  # the user the served MCP endpoint acts for


def cli(home: Path, *args: str, input: str | None = None) -> subprocess.CompletedProcess:
    env = server_env(home)
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run([*HINDSIGHT, *args], env=env, capture_output=True, text=True, timeout=120, input=input)


def python_process(url: str, text: str) -> list[str]:
    """Another Python process: writes `text` through a client, then lists every memory of the shared user."""
    code = ("import json, sys; from hindsight_core.remote import HindsightClient\n"
            "with HindsightClient(sys.argv[1], caller='notebook') as c:\n"
            "    c.write(sys.argv[2], user_id=sys.argv[3], force=True)\n"
            "    print(json.dumps([m.raw_content for m in c.memories(user_id=sys.argv[3])]))\n")
    out = subprocess.run([sys.executable, "-c", code, url, text, SHARED], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True)
    return json.loads(out.stdout)


async def mcp_calls(url: str, *steps: tuple[str, dict]) -> list:
    async with httpx2.AsyncClient(timeout=30) as http:
        async with Client(streamable_http_client(url + "/mcp", http_client=http)) as client:
            return [await client.call_tool(name, args) for name, args in steps]


def test_the_cli_two_python_processes_an_mcp_host_and_the_inspector_see_each_others_writes(served):
    home, url = served["home"], served["url"]
    assert read_record(home / "store").url == url  # what the CLI finds beside the store
    stored = cli(home, "remember", "-u", SHARED, "I prefer green tea over coffee in the morning.")
    assert stored.returncode == 0 and stored.stdout.startswith("stored "), stored.stderr

    seen_a = python_process(url, "My sister Anna lives in Lisbon.")
    assert seen_a == ["I prefer green tea over coffee in the morning.", "My sister Anna lives in Lisbon."]
    seen_b = python_process(url, "I ride a blue bicycle to work.")
    assert seen_b == seen_a + ["I ride a blue bicycle to work."]

    written, found = anyio.run(lambda: mcp_calls(url, ("memory_write", {"what_to_remember": "My favourite editor is Neovim."}),
                                                 ("memory_search", {"what_am_i_looking_for": "blue bicycle"})))
    assert written.structured_content["kept"] is True
    assert "I ride a blue bicycle to work." in [r["memory"] for r in found.structured_content["results"]]

    recalled = cli(home, "recall", "-u", SHARED, "--json", "Neovim editor")
    assert recalled.returncode == 0, recalled.stderr
    assert json.loads(recalled.stdout)[0]["memory"]["raw_content"] == "My favourite editor is Neovim."
    status, page = http_get(f"{url}/memories?user={SHARED}")
    assert status == 200
    for text in ("green tea", "Anna lives in Lisbon", "blue bicycle", "Neovim"):
        assert text in page.decode()
    # the recall log names who asked: the MCP host's search, then the CLI's recall
    with HindsightClient(url) as client:
        callers = [(e["caller"], e["query"]) for e in client.recall_log(user_id=SHARED)]
    assert callers[:2] == [("cli", "Neovim editor"), ("mcp", "blue bicycle")]


def test_sigkill_during_writes_loses_no_acknowledged_write(tmp_path):
    port, server = start(tmp_path)
    user = "durable"
    with server as process:
        url = f"http://127.0.0.1:{port}"
        writer = subprocess.Popen([sys.executable, "-m", "tests.serve._writer", url, user, "100000"], cwd=ROOT,
                                  stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
        acknowledged: list[str] = []
        assert writer.stdout is not None
        while len(acknowledged) < 40:  # kill the server in the middle of a stream of writes
            line = writer.stdout.readline()
            assert line and not line.startswith("ERROR"), line
            acknowledged.append(line.strip())
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
        rest, _ = writer.communicate(timeout=120)
    lines = rest.splitlines()
    assert lines and lines[-1].startswith("ERROR StoreUnavailableError")  # the client's failure, not httpx's
    acknowledged += [line for line in lines if not line.startswith("ERROR")]
    assert record_path(tmp_path / "store").exists() and read_record(tmp_path / "store") is None  # dead pid: ignored
    port2, again = start(tmp_path)
    with again:
        with HindsightClient(f"http://127.0.0.1:{port2}") as client:
            kept = {m.id for m in client.memories(user_id=user)}
    assert set(acknowledged) <= kept
    assert len(acknowledged) >= 40


def test_a_client_gets_hindsight_errors_for_a_server_down_or_a_wrong_token(tmp_path):
    with HindsightClient(f"http://127.0.0.1:{free_port()}", timeout=5) as client:
        with pytest.raises(StoreUnavailableError, match="no hindsight server answers"):
            client.recall("tea", user_id="alice")
    tokens = tmp_path / "tokens.json"
    tokens.write_text(json.dumps({"alice": "alice-token-7f3c9e1a2b4d6f80", "bob": "bob-token-0a1b2c3d4e5f6a7b8c"}))
    port, server = start(tmp_path, "--token", "server-token-1234567890abcdef", "--tokens-file", str(tokens))
    with server:
        url = f"http://127.0.0.1:{port}"
        for token in (None, "not-a-known-token-00"):
            with HindsightClient(url, token=token) as client, pytest.raises(ServerAuthError):
                client.users()
        with HindsightClient(url, token="alice-token-7f3c9e1a2b4d6f80") as alice:
            alice.write("I prefer green tea over coffee in the morning.", user_id="alice")
            assert alice.users() == ["alice"]
            with pytest.raises(Exception) as refused:
                alice.memories(user_id="bob")
            assert "cannot reach the memories of 'bob'" in str(refused.value)
            with pytest.raises(Exception, match="needs the server's own token"):
                alice.consolidate_all()
        with HindsightClient(url, token="server-token-1234567890abcdef") as admin:
            assert admin.users() == ["alice"] and len(admin.memories(user_id="alice")) == 1
        # MCP on the same port, with the same per-user tokens: alice's memory is not bob's
        status, body = http_get(f"{url}/mcp", method="POST", body=b"{}", headers={"Content-Type": "application/json"})
        assert status == 401 and "needs an 'Authorization: Bearer <token>' header" in body.decode()

        async def as_user(token: str, *steps: tuple[str, dict]) -> list:
            async with httpx2.AsyncClient(timeout=30, headers={"Authorization": f"Bearer {token}"}) as http:
                async with Client(streamable_http_client(url + "/mcp", http_client=http)) as client:
                    return [await client.call_tool(name, args) for name, args in steps]

        question = ("memory_search", {"what_am_i_looking_for": "green tea", "how_many_results": 20})
        [bob] = anyio.run(lambda: as_user("bob-token-0a1b2c3d4e5f6a7b8c", question))
        [alice_found] = anyio.run(lambda: as_user("alice-token-7f3c9e1a2b4d6f80", question))
        assert bob.structured_content == {"count": 0, "results": []}
        assert alice_found.structured_content["count"] == 1
        status, _ = http_get(f"{url}/memories?user=alice")
        assert status == 401  # the inspector wants the server's token too
        status, _ = http_get(f"{url}/healthz")
        assert status == 200


def _raw(port: int, request: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        chunks = []
        while True:
            data = sock.recv(65536)
            if not data:
                break
            chunks.append(data)
    return b"".join(chunks)


@pytest.mark.parametrize("length", [b"-1", b"abc", b"99999999999"])
def test_a_bad_or_huge_content_length_is_a_clean_refusal(served, length):
    answer = _raw(served["port"], b"POST /api/v1/users HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Length: %s\r\n"
                                  b"Connection: close\r\n\r\n{}" % (served["port"], length))
    status = int(answer.split(b" ", 2)[1])
    assert status == (413 if length == b"99999999999" else 400)
    assert http_get(served["url"] + "/healthz")[0] == 200  # and the server is still there


def test_a_body_over_the_limit_while_streaming_is_refused(served):
    """No Content-Length (chunked): the bytes are counted as they come, and the 17th MB is refused."""
    import threading

    port = served["port"]
    head = b"POST /api/v1/users HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nTransfer-Encoding: chunked\r\n\r\n" % port
    chunk = b"x" * (1024 * 1024)
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        def send() -> None:
            try:
                sock.sendall(head)
                for _ in range(17):
                    sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                sock.sendall(b"0\r\n\r\n")
            except OSError:
                pass  # the server stopped reading once it had refused

        sender = threading.Thread(target=send, daemon=True)
        sender.start()
        answer = sock.recv(65536)  # read the answer as soon as it comes, before the connection is torn down
        sender.join(timeout=30)
    assert int(answer.split(b" ", 2)[1]) == 413


def test_host_and_origin_checks(served):
    url = served["url"]
    assert http_get(url + "/", headers={"Host": f"evil.example:{served['port']}"})[0] == 403  # DNS rebinding
    status, _ = http_get(url + "/api/v1/users", method="POST", body=b"{}", headers={"Origin": "http://evil.example"})
    assert status == 403  # a web page of another origin
    status, _ = http_get(url + "/api/v1/users", method="POST", body=b"{}")
    assert status == 200


def test_the_cli_names_the_process_holding_the_store_and_what_to_run(tmp_path):
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from hindsight_core.store import EdgeStore; "
                               "s = EdgeStore(sys.argv[1]); print('open', flush=True); time.sleep(120)",
         str(tmp_path / "store")], stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert holder.stdout.readline().strip() == "open"
        out = cli(tmp_path, "stats")
    finally:
        holder.kill()
        holder.wait(timeout=30)
    assert out.returncode == 1
    assert f"held by process {holder.pid} (" in out.stderr and "EdgeStore" in out.stderr
    assert "`hindsight serve`" in out.stderr and "url=" not in out.stderr


def test_upkeep_that_needs_the_store_to_itself_says_to_stop_the_server(served):
    out = cli(served["home"], "archive", "--dry-run")
    assert out.returncode == 1
    assert f"pid {served['process'].pid}" in out.stderr and "stop the server" in out.stderr


def test_clean_exit_removes_the_record_and_the_cli_opens_the_store_again(tmp_path):
    port, server = start(tmp_path)
    with server as process:
        assert read_record(tmp_path / "store").pid == process.pid
        assert cli(tmp_path, "remember", "-u", "alice", "I prefer green tea over coffee.").returncode == 0
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
    assert not record_path(tmp_path / "store").exists()
    out = cli(tmp_path, "--embedding-model", "fake-hash-embedder", "stats", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["memories"] == 1


def test_an_mcp_host_starting_hindsight_mcp_goes_through_the_server(served):
    """What Claude Desktop does (`hindsight mcp` over stdio) while `hindsight serve` holds the store."""
    from mcp import StdioServerParameters

    env = server_env(served["home"])
    env["PYTHONPATH"] = str(ROOT)
    params = StdioServerParameters(command=HINDSIGHT[0], args=[*HINDSIGHT[1:], "mcp", "--user-id", "stdio-user"],
                                   env=env)

    async def session():
        with anyio.fail_after(120):
            async with Client(params) as client:
                written = await client.call_tool("memory_write", {"what_to_remember": "I prefer oat milk in my coffee."})
                stats = await client.call_tool("memory_stats", {})
                return written, stats

    written, stats = anyio.run(session)
    assert written.structured_content["kept"] is True, written
    assert stats.structured_content["memories"] == 1
    with HindsightClient(served["url"]) as client:
        assert [m.raw_content for m in client.memories(user_id="stdio-user")] == ["I prefer oat milk in my coffee."]


def test_hindsight_ui_points_to_the_servers_inspector(served):
    out = cli(served["home"], "ui")
    assert out.returncode == 0 and out.stdout.strip() == served["url"] + "/"
    assert f"pid {served['process'].pid}" in out.stderr


@pytest.mark.parametrize("body", [b"[1, 2]", b"{not json", b"[" * 100_000, b'{"user_id": "a", "timestamp": '
                                  b'{"$datetime": "yesterday"}, "text": "x"}'])
def test_a_malformed_body_is_a_400_that_says_why(served, body):
    name = "write" if b"timestamp" in body else "users"
    status, answer = http_get(f"{served['url']}/api/v1/{name}", method="POST", body=body)
    assert status == 400
    assert json.loads(answer)["error"]["type"] == "InvalidInputError"


def test_a_second_server_on_the_same_store_names_the_first(served):
    out = cli(served["home"], "serve", "--port", "0")
    assert out.returncode == 1
    assert f"(pid {served['process'].pid}) already serves this store at {served['url']}" in out.stderr


def journal_a_write(store: Path, text: str, user: str) -> None:
    """Leave `text` acknowledged and unstored in the store's write-queue journal, as a process whose writer
    stopped (or that was killed) leaves it."""
    from hindsight_core import Hindsight
    from hindsight_core.session.write_queue import WriteQueue
    from hindsight_core.testing import FakeEmbedder

    memory = Hindsight(path=store, embedder=FakeEmbedder())
    queue = WriteQueue(memory)
    memory.store.close()  # the store goes away under the queue: the write stays journaled
    queue.submit([text], user_id=user)
    with pytest.raises(StoreUnavailableError, match="stay journaled"):
        queue.flush()
    queue.close()
    memory.close()


def test_serve_stores_a_journal_it_finds_at_start(tmp_path):
    journal_a_write(tmp_path / "store", "My locker code is 4711.", "alice")
    port, server = start(tmp_path)
    with server:
        with HindsightClient(f"http://127.0.0.1:{port}") as client:
            assert [m.raw_content for m in client.memories(user_id="alice")] == ["My locker code is 4711."]
    assert "stored 1 write(s) an earlier process had acknowledged" in (tmp_path / f"serve-{port}.log").read_text()


def test_the_cli_stores_a_journal_it_finds_and_says_so(tmp_path):
    journal_a_write(tmp_path / "store", "My locker code is 4711.", "alice")
    out = cli(tmp_path, "--embedding-model", FAKE, "recall", "-u", "alice", "--json", "locker code")
    assert out.returncode == 0, out.stderr
    assert [r["memory"]["raw_content"] for r in json.loads(out.stdout)] == ["My locker code is 4711."]
    assert "stored 1 write(s) an earlier process had acknowledged" in out.stderr
    again = cli(tmp_path, "--embedding-model", FAKE, "stats", "--json")
    assert again.returncode == 0 and "earlier process" not in again.stderr  # replayed once
    assert json.loads(again.stdout)["memories"] == 1
