"""server.json beside the store: written and read back, ignored once its process is gone or is another program."""

from __future__ import annotations

import os
import subprocess
import sys

from hindsight_core.remote.discovery import ServerRecord, holder, read_record, record_path, remove_record, write_record


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
