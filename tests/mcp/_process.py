"""Running `hindsight mcp` as a real subprocess, with bounded waits and a guaranteed kill."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Iterator, Sequence

_SCRIPT = Path(sys.executable).with_name("hindsight")
#: the installed console script, as users (and the Docker image) run it
HINDSIGHT = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "hindsight_core.cli"]
START_TIMEOUT = 120.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_env(home: Path, **extra: str) -> dict[str, str]:
    """The test process's environment minus any HINDSIGHT_* setting, plus a private store and `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HINDSIGHT_")}
    env.update(HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false", HINDSIGHT_HOME=str(home))
    env.update(extra)
    return env


def http_get(url: str, headers: dict[str, str] | None = None, method: str = "GET",
             body: bytes | None = None) -> tuple[int, bytes]:
    request = urllib.request.Request(url, headers=headers or {}, method=method, data=body)
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


@contextlib.contextmanager
def running(argv: Sequence[str], env: dict[str, str], port: int, log: Path) -> Iterator[subprocess.Popen]:
    """Start a server, wait (bounded) until /healthz answers, and always kill it afterwards."""
    with open(log, "wb") as out:
        proc = subprocess.Popen(list(argv), env=env, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + START_TIMEOUT
            while True:
                if proc.poll() is not None:
                    raise AssertionError(f"server exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
                try:
                    if http_get(f"http://127.0.0.1:{port}/healthz")[0] == 200:
                        break
                except OSError:
                    pass
                if time.monotonic() > deadline:
                    raise AssertionError(f"server not up after {START_TIMEOUT}s:\n{log.read_text()[-3000:]}")
                time.sleep(0.2)
            yield proc
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=15)
