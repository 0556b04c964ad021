"""`hindsight ui` from the command line: refusals before anything opens, and a real run in a subprocess."""

from __future__ import annotations

import os
import queue
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from hindsight_core import Hindsight
from hindsight_core.cli import main
from hindsight_core.testing import FakeEmbedder

from .http import request

pytestmark = pytest.mark.timeout(120)
ROOT = Path(__file__).parents[2]
TOKEN = "s3cret-inspector-token"


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HINDSIGHT_")}
    env.update(HF_HUB_OFFLINE="1", HINDSIGHT_HOME=str(home), HINDSIGHT_EMBEDDING_MODEL="fake-hash-embedder")
    return env


def _cli_env(home: Path) -> dict[str, str | None]:
    """For CliRunner: this test's home, and no setting inherited from the shell."""
    return {"HINDSIGHT_HOME": str(home), "HINDSIGHT_STORE": None, "HINDSIGHT_QDRANT_URL": None,
            "HINDSIGHT_UI_TOKEN": None, "HINDSIGHT_EMBEDDING_MODEL": "fake-hash-embedder"}


@pytest.mark.parametrize("args, message", [
    (["--host", "0.0.0.0"], "without a token"),
    (["--host", "0.0.0.0", "--token", ""], "the token is empty"),
    (["--token", " "], "the token is empty"),
])
def test_unsafe_exposure_is_refused_before_the_store_opens(tmp_path, args, message):
    result = CliRunner().invoke(main, ["ui", *args], env=_cli_env(tmp_path))
    assert result.exit_code == 2 and message in result.output
    assert not (tmp_path / "store").exists()


def test_ui_serve_and_mcp_refuse_an_open_host_without_a_token_alike(tmp_path):
    env = {**_cli_env(tmp_path), "HINDSIGHT_SERVE_TOKEN": None, "HINDSIGHT_MCP_TOKEN": None,
           "HINDSIGHT_SERVE_TOKENS_FILE": None, "HINDSIGHT_USER_ID": "alice"}
    results = [CliRunner().invoke(main, [command, "--host", "0.0.0.0", *extra], env=env)
               for command, extra in (("ui", []), ("serve", []), ("mcp", ["--http"]))]
    assert [r.exit_code for r in results] == [2, 2, 2], [r.output for r in results]
    assert all("without a token" in r.output for r in results)


@pytest.mark.parametrize("token, message", [("abc", "at least 16 characters"), (" ", "the token is empty"),
                                            (" " + "t" * 20, "without surrounding spaces")])
def test_ui_serve_and_mcp_refuse_a_weak_token_alike(tmp_path, token, message):
    env = {**_cli_env(tmp_path), "HINDSIGHT_SERVE_TOKEN": None, "HINDSIGHT_MCP_TOKEN": None,
           "HINDSIGHT_SERVE_TOKENS_FILE": None, "HINDSIGHT_USER_ID": "alice"}
    results = [CliRunner().invoke(main, [command, "--host", "0.0.0.0", "--token", token, *extra], env=env)
               for command, extra in (("ui", []), ("serve", []), ("mcp", ["--http"]))]
    assert [r.exit_code for r in results] == [2, 2, 2], [r.output for r in results]
    assert all(message in r.output for r in results), [r.output for r in results]
    assert not (tmp_path / "store").exists()


def test_the_token_can_come_from_the_environment(tmp_path):
    result = CliRunner().invoke(main, ["ui", "--host", "0.0.0.0", "--port", "70000"],
                                env={**_cli_env(tmp_path), "HINDSIGHT_UI_TOKEN": "t" * 16})
    assert result.exit_code == 2 and "70000" in result.output  # past the token check, stopped by the port


def test_a_busy_port_is_one_line(tmp_path):
    Hindsight(path=tmp_path / "store", embedder=FakeEmbedder()).close()  # `ui` refuses a folder without a store
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(main, ["ui", "--port", str(port)], env=_cli_env(tmp_path))
    assert result.exit_code == 1
    assert result.output.strip() == (f"Error: cannot listen on 127.0.0.1:{port} (Address already in use); "
                                     "choose another --port (0 picks a free one)")


def test_hindsight_ui_serves_the_store_it_opened(tmp_path):
    with Hindsight(path=tmp_path / "store", embedder=FakeEmbedder()) as memory:
        memory.write("I'm vegetarian, so please never suggest meat dishes.", user_id="alice")
    proc = subprocess.Popen([sys.executable, "-m", "hindsight_core.cli", "ui", "--port", "0", "--token", TOKEN],
                            cwd=ROOT, env=_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, text=True)
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout], daemon=True).start()
    try:
        try:
            login_url = lines.get(timeout=60).strip()
        except queue.Empty:
            raise AssertionError("`hindsight ui` printed no URL within 60 s") from None
        assert login_url.startswith("http://127.0.0.1:") and login_url.endswith(f"/?token={TOKEN}")
        port = int(login_url.split(":")[2].split("/")[0])
        assert request(port, "GET", "/memories?user=alice").status == 401
        page = request(port, "GET", "/memories?user=alice", headers={"Authorization": f"Bearer {TOKEN}"})
        assert page.status == 200 and "never suggest meat dishes" in page.body
    finally:
        proc.terminate()
        proc.wait(timeout=15)
    assert proc.returncode == 0  # SIGTERM stops it cleanly, the store closed
    assert "hindsight inspector on http://127.0.0.1:" in proc.stderr.read()
