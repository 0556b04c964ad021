"""The vector index of a shard, built off the caller's path once enough points are unindexed.

Builds are keyed by the shard's name (`memories-d384`). Qdrant Edge builds its HNSW index only in
`EdgeShard.optimize()`, which holds Python's GIL for its whole run, so the build runs in a child process, on a copy:
under the store's lock the shard is flushed and copied to `memories.indexing/`, and from then on every change the store
applies to it is also kept (`record`); a child loads the copy and runs `optimize()` while the caller goes on; then the
kept changes (each idempotent) are applied to the copy, and under the lock, with the last few, the live folder is
renamed to `memories.old/`, the copy to `memories/`, and the shard is reopened. A build starts when the unindexed points
reach `threshold` and a quarter of those indexed at the last build; a change that removes or rebuilds the shard cancels
it.

Compaction (forgetting for good) runs the same way, on a copy taken after the deletes; the caller waits for the swap
(`wait_compacted`) holding neither the store's lock nor the GIL. A compaction cancels a running index build, and one
asked for while another runs is served by the next, with every other asked for meanwhile. If a compaction fails or is
cancelled, `wait_compacted` says so and the caller compacts in its own process.

A crash at any step leaves the live folder (or `memories.old/`, which `settle_folder` puts back on the next open); a
leftover copy is removed. Nothing acknowledged lives only in the copy.
"""

from __future__ import annotations

import contextlib
import json
import logging
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, Callable

from .edge_changes import apply_change
from .private import make_private, open_private

logger = logging.getLogger("hindsight_core.store")

_BUILD = "import sys; from qdrant_edge import EdgeShard; s = EdgeShard.load(sys.argv[1]); s.optimize(); s.flush(); s.close()"
#: a compaction's child: the same work (`optimize()` vacuums what was deleted and builds the index)
_COMPACT = _BUILD
COPY, OLD = ".indexing", ".old"
INDEX_SUFFIX = ".index.json"  # beside the shard: how many points the last build indexed


def settle_folder(folder: Path) -> None:
    """Finish or undo an index swap a crash interrupted (called before a shard folder is opened)."""
    old, copy = folder.with_name(folder.name + OLD), folder.with_name(folder.name + COPY)
    if old.exists():
        if folder.exists():
            shutil.rmtree(old, ignore_errors=True)  # the swap was done; only the clean-up was left
        else:
            old.rename(folder)  # crashed between the two renames: the old folder holds everything
    if copy.exists():
        shutil.rmtree(copy, ignore_errors=True)


def _copy_tree(source: Path, target: Path) -> None:
    """Copy a shard folder, keeping holes (Edge preallocates 32 MiB files sparsely).

    The write-ahead log goes too: Edge ignores a change numbered below a point's version, so a copy with a fresh log
    would silently drop the changes replayed onto it.
    """
    if shutil.which("cp") and sys.platform.startswith("linux"):
        if subprocess.run(["cp", "-r", "--sparse=always", str(source), str(target)],
                          capture_output=True).returncode == 0:
            return
        shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(source, target)


def _read_indexed(folder: Path) -> int:
    """Points the user's shard had when its index was last built (0 if never)."""
    try:
        return int(json.loads(folder.with_name(folder.name + INDEX_SUFFIX).read_text(encoding="utf-8"))["points"])
    except (OSError, ValueError, KeyError, TypeError):
        return 0


def _write_indexed(folder: Path, points: int) -> None:
    with contextlib.suppress(OSError):  # only a hint: without it the next build comes sooner
        with open_private(folder.with_name(folder.name + INDEX_SUFFIX)) as out:
            out.write(json.dumps({"points": points}))


class _Build:
    def __init__(self, user_id: str, folder: Path, points: int, *, covers: int = 0, compaction: bool = False) -> None:
        self.user_id, self.folder, self.points = user_id, folder, points
        self.covers = covers  # the compactions asked for before its copy was taken: its swap serves them
        self.compaction = compaction
        self.failed = False
        self.copy = folder.with_name(folder.name + COPY)
        self.changes: list[tuple[str, Any]] = []
        self.process: subprocess.Popen | None = None
        self.cancelled = False
        self.applied = 0  # changes already applied to the copy


class IndexBuilder:
    """Starts, watches and swaps in background index builds for one `EdgeStore` (see the module docstring).

    `threshold`: unindexed points of one shard that start a build. `lock` is the store's lock; `close_shard(key)` closes
    the store's open shard of that key (the `user_id` arguments below) so the next call loads the swapped folder.
    """

    def __init__(self, threshold: int, lock: threading.RLock, close_shard: Callable[[str], None],
                 open_shard: Callable[[str], Any] | None = None) -> None:
        self.threshold = int(threshold)
        self._lock = lock
        self._close_shard = close_shard
        self._open_shard = open_shard  # the live shard by key (to start a compaction that follows another)
        self._builds: dict[str, _Build] = {}
        self._indexed: dict[str, int] = {}  # points a user's shard had when its last build started
        self.completed: list[tuple[str, int]] = []  # (user, points indexed), for tests and benchmarks
        self._idle = threading.Condition(lock)
        self._finishing: set[str] = set()
        # compactions per shard key: asked for, served by a swap, and given up (the caller compacts in-process)
        self._asked: dict[str, int] = {}
        self._served: dict[str, int] = {}
        self._failed: dict[str, int] = {}
        self.compactions: list[tuple[str, int]] = []  # (key, compactions it served), for tests and benchmarks
        self._closed = False

    def building(self, user_id: str) -> bool:
        return user_id in self._builds

    def maybe_start(self, user_id: str, shard: Any, folder: Path) -> bool:
        """Start a build if the user's unindexed points passed the threshold (call under the store's lock)."""
        if user_id in self._builds or user_id in self._finishing:
            return False
        points = int(shard.info().points_count)
        indexed = self._indexed.get(user_id)
        if indexed is None:
            indexed = self._indexed[user_id] = _read_indexed(folder)
        # each build indexes the whole shard: wait for a quarter more points, so a big store is not rebuilt often
        if points - indexed < max(self.threshold, indexed // 4):
            return False
        self._start(user_id, shard, folder, points, compaction=False)
        return True

    def _start(self, key: str, shard: Any, folder: Path, points: int, *, compaction: bool) -> None:
        """Copy the live shard (under the store's lock) and start the child on the copy."""
        build = _Build(key, folder, points, covers=self._asked.get(key, 0), compaction=compaction)
        shard.flush()
        shutil.rmtree(build.copy, ignore_errors=True)
        _copy_tree(folder, build.copy)
        build.process = subprocess.Popen([sys.executable, "-c", _COMPACT if compaction else _BUILD, str(build.copy)],
                                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self._builds[key] = build
        self._finishing.add(key)  # until its thread is done, even if cancelled: it may hold the copy open
        self._indexed[key] = points
        threading.Thread(target=self._finish, args=(build,), name="hindsight-index", daemon=True).start()

    def compact(self, key: str, shard: Any, folder: Path) -> int:
        """Ask for the shard's deleted points to leave its segment files, in a child (under the store's lock, after
        the deletes); returns the ticket `wait_compacted` waits for."""
        ticket = self._asked[key] = self._asked.get(key, 0) + 1
        build = self._builds.get(key)
        if build is not None and not build.compaction:  # copied before the deletes; the compaction indexes too
            self._drop(key)
        if key not in self._builds and key not in self._finishing:
            self._start(key, shard, folder, int(shard.info().points_count), compaction=True)
        # else a compaction runs (copied before these deletes) or a cancelled build is finishing: when it is done,
        # `_finish` starts the one that serves this ticket
        return ticket

    def wait_compacted(self, key: str, ticket: int, timeout: float | None = None) -> bool:
        """Wait until a swap served the ticket (True), or its compaction failed or was cancelled (False: compact
        in-process). Call without holding the store's lock."""
        with self._idle:
            self._idle.wait_for(lambda: self._served.get(key, 0) >= ticket or self._failed.get(key, 0) >= ticket,
                                timeout)
            return self._served.get(key, 0) >= ticket

    def record(self, user_id: str, kind: str, change: Any) -> None:
        """Keep a change applied to the live shard during a build, to apply to the copy (under the lock)."""
        build = self._builds.get(user_id)
        if build is not None:
            build.changes.append((kind, change))

    def cancel(self, user_id: str) -> None:
        """Drop the user's build (the shard is being removed or rebuilt); under the lock. The compactions asked
        for are given up: their callers compact in-process."""
        self._drop(user_id)
        self._failed[user_id] = self._asked.get(user_id, 0)
        self._idle.notify_all()

    def _drop(self, user_id: str) -> None:
        build = self._builds.pop(user_id, None)
        if build is not None:
            build.cancelled = True
            if build.process is not None and build.process.poll() is None:
                build.process.kill()
            self._indexed.pop(user_id, None)
            self._idle.notify_all()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until no build is running (for tests, benchmarks and `close`)."""
        with self._idle:
            return self._idle.wait_for(lambda: not self._builds and not self._finishing, timeout)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            for key in set(self._asked):  # a caller waiting for a compaction compacts in-process (or fails: closed)
                self._failed[key] = self._asked[key]
            self._idle.notify_all()
            for user_id in list(self._builds):
                build = self._builds[user_id]
                self.cancel(user_id)
                if build.process is not None:
                    build.process.wait()
                shutil.rmtree(build.copy, ignore_errors=True)

    def _finish(self, build: _Build) -> None:
        assert build.process is not None
        _, err = build.process.communicate()  # waits without holding the GIL
        copy = None
        if build.process.returncode == 0 and not build.cancelled:
            try:  # most of the changes made meanwhile go onto the copy before the store's lock is taken
                copy = self._catch_up(build)
            except Exception as exc:
                logger.warning("hindsight: the new index could not catch up: %s", exc)
                build.cancelled = build.failed = True
        with self._lock:
            try:
                if build.cancelled or self._builds.get(build.user_id) is not build:
                    if copy is not None:
                        copy.close()
                    if build.failed:
                        self._give_up(build)
                    return
                if build.process.returncode != 0:
                    logger.warning("hindsight: building the index for a user failed: %s",
                                   err.decode(errors="replace")[-500:])
                    self._indexed.pop(build.user_id, None)
                    self._give_up(build)
                    return
                self._swap(build, copy)
                copy = None
                _write_indexed(build.folder, build.points)
                served = build.covers - self._served.get(build.user_id, 0)
                self._served[build.user_id] = max(self._served.get(build.user_id, 0), build.covers)
                if build.compaction:
                    self.compactions.append((build.user_id, served))
                else:
                    self.completed.append((build.user_id, build.points))
            except Exception as exc:  # the live shard is untouched unless the swap's renames ran
                logger.warning("hindsight: swapping in the new index failed: %s", exc)
                self._indexed.pop(build.user_id, None)
                self._give_up(build)
            finally:
                if copy is not None:
                    with contextlib.suppress(Exception):
                        copy.close()
                if self._builds.get(build.user_id) is build:
                    del self._builds[build.user_id]
                with contextlib.suppress(OSError):
                    if build.copy.exists():
                        shutil.rmtree(build.copy, ignore_errors=True)
                self._finishing.discard(build.user_id)
                self._follow_up(build)
                self._idle.notify_all()

    def _give_up(self, build: _Build) -> None:
        """A build that failed: the compactions it would have served are compacted by their callers."""
        self._failed[build.user_id] = max(self._failed.get(build.user_id, 0), build.covers)

    def _follow_up(self, build: _Build) -> None:
        """Under the lock, once a build is done: start the compaction that serves those asked for since it began."""
        key = build.user_id
        waiting = self._asked.get(key, 0) > max(self._served.get(key, 0), self._failed.get(key, 0))
        if not waiting or key in self._builds or key in self._finishing:
            return
        try:
            shard = self._open_shard(key) if self._open_shard is not None and not self._closed else None
            if shard is None:
                raise RuntimeError("the shard cannot be opened")
            self._start(key, shard, build.folder, int(shard.info().points_count), compaction=True)
        except Exception as exc:  # the callers compact in-process
            logger.warning("hindsight: a compaction could not start in a child process: %s", exc)
            self._failed[key] = self._asked.get(key, 0)

    def _catch_up(self, build: _Build) -> Any:
        """Open the indexed copy and apply the changes kept so far (outside the store's lock); returns the copy."""
        from qdrant_edge import EdgeShard

        copy = EdgeShard.load(str(build.copy))
        try:
            done = len(build.changes)  # appends happen under the lock; this prefix is stable
            for kind, change in build.changes[:done]:
                apply_change(copy, kind, change)
            build.applied = done
        except BaseException:
            copy.close()
            raise
        return copy

    def _swap(self, build: _Build, copy: Any) -> None:
        """Under the store's lock: the last changes onto the copy, then the copy in place of the live folder."""
        try:
            for kind, change in build.changes[build.applied:]:
                apply_change(copy, kind, change)
            copy.flush()
        finally:
            copy.close()
        self._close_shard(build.user_id)  # flushes and closes the live shard; the next call loads the new one
        old = build.folder.with_name(build.folder.name + OLD)
        build.folder.rename(old)
        build.copy.rename(build.folder)
        shutil.rmtree(old, ignore_errors=True)
        make_private(build.folder)  # built in a child process, whose files follow the umask
