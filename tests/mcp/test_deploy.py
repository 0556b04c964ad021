"""The deployment files. Docker cannot run in CI, so: the compose file's structure, and the image's
command line (entry point, environment, health check) run directly on this machine."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
import yaml

from ._process import HINDSIGHT, free_port, http_get, running, server_env

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "deploy-token-5d1e8f2a9c7b3e40"


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def dockerfile() -> tuple[list[str], dict[str, str], list[str]]:
    """(the RUN lines in order, the ENV settings, ENTRYPOINT + CMD) of the Dockerfile."""
    text = re.sub(r"\\\n\s*", " ", (ROOT / "Dockerfile").read_text())
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    runs = [line[4:] for line in lines if line.startswith("RUN ")]
    env: dict[str, str] = {}
    for line in lines:
        if line.startswith("ENV "):
            env.update(part.split("=", 1) for part in shlex.split(line[4:]))
    entrypoint = next(json.loads(line[11:]) for line in lines if line.startswith("ENTRYPOINT "))
    cmd = next(json.loads(line[4:]) for line in lines if line.startswith("CMD "))
    healthcheck = next(line for line in lines if line.startswith("HEALTHCHECK "))
    health = json.loads(healthcheck[healthcheck.index("CMD ") + 4:])
    return runs, env, entrypoint + cmd + ["\0"] + health


def test_compose_services_ports_and_volumes(compose):
    services = compose["services"]
    assert set(services) == {"hindsight", "qdrant", "redis"}
    app = services["hindsight"]
    assert app["depends_on"] == {"qdrant": {"condition": "service_healthy"}, "redis": {"condition": "service_healthy"}}
    for name, service in services.items():
        assert service["healthcheck"]["test"][0] in ("CMD", "CMD-SHELL"), name
    # the stores are reachable inside the compose network only; the MCP port only on the host's loopback
    assert "ports" not in services["qdrant"] and "ports" not in services["redis"]
    assert app["ports"] == ["127.0.0.1:8765-8766:8765"] and app["deploy"]["replicas"] == 2  # two workers
    assert app["environment"]["HINDSIGHT_QDRANT_URL"] == "http://qdrant:6333"
    assert app["environment"]["HINDSIGHT_REDIS_URL"].startswith("redis://redis:6379")
    assert "?" in app["environment"]["HINDSIGHT_SERVE_TOKEN"]  # compose refuses to start without a token
    assert "8765/healthz" in app["healthcheck"]["test"][-1]
    named = set(compose["volumes"])
    assert named == {"hindsight-data", "qdrant-data", "redis-data"}
    mounts = {name: [v.split(":")[0] for v in s.get("volumes", [])] for name, s in services.items()}
    assert mounts == {"hindsight": ["hindsight-data"], "qdrant": ["qdrant-data"], "redis": ["redis-data"]}
    assert services["qdrant"]["image"].startswith("qdrant/qdrant:v1.")  # pinned, not :latest


def test_dockerfile_installs_cpu_torch_before_hindsight():
    runs, env, _ = dockerfile()
    torch = next(i for i, r in enumerate(runs) if "torch==" in r)
    package = next(i for i, r in enumerate(runs) if re.search(r"pip install \"?\.\[", r))
    assert torch < package and "download.pytorch.org/whl/cpu" in runs[torch]
    assert "mcp" in runs[package]
    assert env["HINDSIGHT_SERVE_HOST"] == "0.0.0.0" and env["HF_HUB_OFFLINE"] == "1"


def test_the_images_command_line_serves_when_run_directly(tmp_path, compose):
    """Run ENTRYPOINT + CMD with the image's ENV and compose's settings (store and port made local)."""
    _, image_env, command = dockerfile()
    serve, health = command[:command.index("\0")], command[command.index("\0") + 1:]
    assert serve[0] == "hindsight"
    port = free_port()
    compose_env = {k: _defaults(str(v)) for k, v in compose["services"]["hindsight"]["environment"].items()
                   if k not in ("HINDSIGHT_QDRANT_URL", "HINDSIGHT_REDIS_URL", "HINDSIGHT_SERVE_TOKEN")}
    env = server_env(tmp_path, **{**image_env, **compose_env})  # compose overrides the image
    # what differs on a test machine: a private store, a free port on loopback, the fast embedder, a token
    env.update(HINDSIGHT_HOME=str(tmp_path / "data"), HINDSIGHT_SERVE_HOST="127.0.0.1", HINDSIGHT_SERVE_PORT=str(port),
               HINDSIGHT_SERVE_TOKEN=TOKEN, HINDSIGHT_EMBEDDING_MODEL="fake-hash-embedder")
    with running([*HINDSIGHT, *serve[1:]], env, port, tmp_path / "server.log"):
        probe = subprocess.run([sys.executable if health[0] == "python" else health[0], *health[1:]], env=env,
                               capture_output=True, text=True, timeout=30)
        assert probe.returncode == 0, probe.stderr
        status, _ = http_get(f"http://127.0.0.1:{port}/mcp", method="POST", body=b"{}",
                             headers={"Content-Type": "application/json"})
        assert status == 401
        tools = anyio.run(_list_tools, f"http://127.0.0.1:{port}/mcp")
        status, _ = http_get(f"http://127.0.0.1:{port}/api/v1/users", method="POST", body=b"{}",
                             headers={"Authorization": f"Bearer {TOKEN}"})
        assert status == 200  # the API beside MCP, on the same port
    assert "memory_search" in tools
    assert (tmp_path / "data" / "store").is_dir()  # HINDSIGHT_HOME=/data in the image: the volume holds the store


def _defaults(value: str) -> str:
    """Compose's `${NAME:-default}` with NAME unset."""
    return re.sub(r"\$\{[A-Z_]+:-([^}]*)\}", r"\1", value)


async def _list_tools(url: str) -> set[str]:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    with anyio.fail_after(60):
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30) as http:
            async with Client(streamable_http_client(url, http_client=http)) as client:
                return {t.name for t in (await client.list_tools()).tools}
