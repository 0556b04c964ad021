"""server.json beside the store: written and read back, ignored once its process is gone or is another program."""

from __future__ import annotations

import os
import subprocess
import sys

from hindsight_core.remote.discovery import ServerRecord, read_record, record_path, remove_record, write_record
from hindsight_core.store.holder import holder


def test_a_record_is_read_back_only_while_its_serve_process_lives(tmp_path):
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", "serve"])
    try:
        write_record(tmp_path, ServerRecord("http://127.0.0.1:9", sleeper.pid, "t" * 20))
        assert oct(record_path(tmp_path).stat().st_mode & 0o777) == "0o600"
        assert read_record(tmp_path) == ServerRecord("http://127.0.0.1:9", sleeper.pid, "t" * 20)
    finally:
        sleeper.kill()
        sleeper.wait(timeout=10)
    assert read_record(tmp_path) is None  # its process is gone


def test_a_reused_pid_running_something_else_is_not_the_server(tmp_path):
    other = subprocess.Popen([sys.executable, "-c", "import time; print('up', flush=True); time.sleep(60)"],
                             stdout=subprocess.PIPE, text=True)
    try:
        assert other.stdout.readline().strip() == "up"  # it runs python now (a busy machine may not have exec'd yet)
        write_record(tmp_path, ServerRecord("http://127.0.0.1:9", other.pid))
        assert read_record(tmp_path) is None
    finally:
        other.kill()
        other.wait(timeout=10)


def test_only_the_owner_removes_its_record(tmp_path):
    write_record(tmp_path, ServerRecord("http://127.0.0.1:9", os.getpid() + 1))
    remove_record(tmp_path, os.getpid())
    assert record_path(tmp_path).exists()  # a newer server's record is left alone
    remove_record(tmp_path, os.getpid() + 1)
    assert not record_path(tmp_path).exists()
    assert read_record(tmp_path) is None and holder(tmp_path) is None  # no record, no lock: nothing to name


HOLDER = """
import fcntl, sys, time
lock = open(sys.argv[1] + "/LOCK", "a+")
fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
print("held", flush=True)
time.sleep(60)
"""


def test_the_store_in_use_message_names_the_holder_without_its_secrets(tmp_path):
    secret = "s3cr3t-token-0123456789abcdef"
    args = [str(tmp_path), "serve", "--token", secret, f"--qdrant-api-key={secret}",
            "--qdrant-url", f"https://admin:{secret}@qdrant.example:6333", "--port", "8765"]
    process = subprocess.Popen([sys.executable, "-c", HOLDER, *args], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout.readline().strip() == "held"
        found = holder(tmp_path)
        assert found is not None and found.pid == process.pid
        shown = str(found)
        assert secret not in shown
        assert "--token ***" in shown and "--qdrant-api-key=***" in shown and "https://***@qdrant.example" in shown
        assert "--port 8765" in shown and "serve" in shown  # the rest is kept: it says which process it is
    finally:
        process.kill()
        process.wait(timeout=10)
