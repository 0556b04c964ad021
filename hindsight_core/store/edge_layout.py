"""Moving older layouts forward: format 2 (one Edge shard per user and space) to 3 (shards every user shares),
3 (a key file per user) to 4 (one key file per store), and 4 (user ids in the clear in the shards, keyword IDF
over every user of a shard) to 5 (each user's tenant in their place, the IDF the asking user's own).

Each runs once, when `EdgeStore` opens a folder whose FORMAT says less, under the store's lock (no
other process can have it open).

Format 2 to 3 (`migrate_to_shared`), user by user, space by space:

1. an index swap a crash interrupted is settled, and the user's old shard is loaded;
2. its points are copied as they are (ids, both vectors, the payload with its sealed text and
   `user_id`) into the shared shard of that space and vector size, and the shared shard is flushed;
3. the old shard's folder is renamed to `<space>.moved` (atomic), then removed.

The user's key files, registry entry and change journal stay where they are: the sealed text
is copied byte for byte, so every key still opens its memory, and a journal a crash left is
replayed on the shared shards by `recover`. A crash at any step is resumed on the next open:
a copy is idempotent (an upsert by id), a `.moved` folder was copied and flushed before its
rename, and FORMAT says 3 only once every user is done.

Format 3 to 4 (`move_key_files`): every user's key files (`users/<folder>/keys.sqlite`, and
`keys-<space>.sqlite` for another space) are read, their rows added to the store's key file
(`sealing.KeyFile`, under the user's folder name and the space), and that file is synced; only
then are the old files removed, and FORMAT says 4 once all are. A crash before the sync leaves
the old files in place (the rows are added again: none is replaced); after it, the rest are
removed on the next open. The store serves nobody until this is done, so no key deleted by a
forget can come back from an old file.

Format 4 to 5 (`rebuild_shards`), shard by shard: a new shard is made beside the old one
(`<name>.rebuilding/`, with plain BM25 weights: `keywords`), every point copied into it with
its `user_id` replaced by the user's tenant (`sealing.KeyStore.tenant`), flushed and marked
(`REBUILT`); the old folder is renamed to `<name>.format4`, the new one to `<name>`, and the
old one removed, its write-ahead log with it: the log of a format-4 shard held every user id
it was ever given, a forgotten user's too. A crash before the first rename leaves the old shard
(the copy is made again); after it, the next open finishes the renames. FORMAT says 5 once every
shard is rebuilt. The vector index is built again in the background (`indexing`), as after any
write.
"""

from __future__ import annotations

import contextlib
import json
import logging
import shutil
import sqlite3
from pathlib import Path
from typing import Any

from .edge_changes import upsert_points
from .edge_files import (
    FORMAT,
    KEY_FILE,
    MAKING,
    bucket_of,
    ensure_indexes,
    shard_config,
    shard_dimension,
    shard_exists,
    shard_name,
    write_json_atomic,
)
from .fields import DENSE, SPARSE
from .indexing import COPY, INDEX_SUFFIX, OLD, settle_folder
from .private import make_private, open_private
from .values import MEMORIES, SPACES

logger = logging.getLogger("hindsight_core.store")
MOVED = ".moved"
#: the format whose users share the shards (each still with a key file of their own)
SHARED_SHARDS = 3
#: the format with one key file per store
ONE_KEY_FILE = 4
#: a shard rebuilt for format 5 (its folder holds this file), the copy being made, the old shard being removed
REBUILT, REBUILDING, FORMER = "hindsight-format", ".rebuilding", ".format4"


def old_spaces(user_folder: Path) -> list[str]:
    """The spaces a format-2 user folder still holds as shards of their own."""
    return [space for space in SPACES if shard_exists(user_folder / space) or
            (user_folder / (space + ".old")).exists() or (user_folder / (space + MOVED)).exists()]


def migrate_to_shared(store: Any) -> int:
    """Move every user's own shards into the shared shards; returns the points moved. Resumable."""
    moved = 0
    users = sorted(p for p in (store.root / "users").iterdir() if p.is_dir()) \
        if (store.root / "users").is_dir() else []
    for folder in users:
        try:
            entry = json.loads((folder / "user.json").read_text(encoding="utf-8"))
            user_id, dimension = entry["user_id"], int(entry["dimension"])
        except (OSError, ValueError, KeyError, TypeError):
            logger.warning("hindsight: %s holds no readable user.json; left as it is", folder)
            continue
        spaces = dict(entry.get("spaces") or {})
        for space in old_spaces(folder):
            moved += _move_space(store, folder, user_id, space, dimension)
            spaces[space] = dimension
        for leftover in ("memories.indexing", "index.json"):
            path = folder / leftover
            if path.is_dir():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)
        if spaces != entry.get("spaces"):
            entry = {**entry, "spaces": spaces or {"memories": dimension}, "format": FORMAT}
            write_json_atomic(folder / "user.json", entry)
            store._users.pop(user_id, None)
    _write_format(store.root, SHARED_SHARDS)
    if moved:
        logger.info("hindsight: moved %d memories to the shared layout (format %d)", moved, SHARED_SHARDS)
    return moved


def _write_format(root: Path, version: int) -> None:
    with open_private(root / "FORMAT") as out:
        out.write(f"{version}\n")


def old_key_files(user_folder: Path) -> list[tuple[str, Path]]:
    """The key files a format-3 user folder holds, with their spaces (`keys.sqlite` is the memories')."""
    found = []
    for path in sorted(user_folder.glob("keys*.sqlite")):
        space = MEMORIES if path.name == KEY_FILE else path.name[len("keys-"):-len(".sqlite")]
        if space in SPACES:
            found.append((space, path))
    return found


def _read_key_file(path: Path) -> list[tuple[str, bytes]] | None:
    """The rows (id, key) of an older key file, its log included; None if it cannot be read."""
    try:
        db = sqlite3.connect(str(path), isolation_level=None)
        try:
            return [(str(i), bytes(k)) for i, k in db.execute("SELECT id, key FROM keys")]
        finally:
            db.close()
    except sqlite3.Error as exc:
        logger.warning("hindsight: cannot read the key file %s (%s); left where it is, its memories will be "
                       "reported unreadable", path, exc)
        return None


def move_key_files(store: Any) -> int:
    """Move every user's own key files into the store's key file; returns the keys moved. Resumable."""
    users = sorted(p for p in (store.root / "users").iterdir() if p.is_dir()) \
        if (store.root / "users").is_dir() else []
    done: list[Path] = []
    moved = 0
    for folder in users:
        for space, path in old_key_files(folder):
            rows = _read_key_file(path)
            if rows is not None:
                store._key_file.add((folder.name, space), rows)
                moved += len(rows)
                done.append(path)
    if done:
        store._key_file.sync()  # on disk before the files they came from go
    for path in done:
        for suffix in ("", "-wal", "-shm", "-journal"):
            path.with_name(path.name + suffix).unlink(missing_ok=True)
    for folder in users:
        for leftover in folder.glob("keys*.sqlite.new*"):  # a key file a killed process was making
            leftover.unlink(missing_ok=True)
    _write_format(store.root, ONE_KEY_FILE)
    if moved:
        logger.info("hindsight: moved %d keys of %d users into the store's key file (format %d)",
                    moved, len(users), ONE_KEY_FILE)
    return moved


def rebuild_shards(store: Any) -> int:
    """Make every shard again with tenants in place of user ids and plain BM25 weights; returns the points copied.
    Resumable."""
    folder = store.root / "shards"
    entries = [p.name for p in folder.iterdir() if p.is_dir()] if folder.is_dir() else []
    # a shard whose index swap a crash interrupted may stand only as `<name>.old` (`_rebuild` settles it first)
    names = sorted({name.removesuffix(REBUILDING).removesuffix(FORMER).removesuffix(OLD) for name in entries
                    if not name.endswith((MAKING, COPY))})
    copied = 0
    for name in names:
        store._close_shard(name)  # an earlier step of the move may have opened it
        copied += _rebuild(store, folder / name)
    _write_format(store.root, FORMAT)
    if copied:
        logger.info("hindsight: rebuilt the shards of %d memories (format %d)", copied, FORMAT)
    for name in names:  # the rebuilt shards have no vector index yet: built in the background, as after writes
        if name.startswith(MEMORIES + "-") and store._indexer is not None:
            with store._lock:
                shard = store._open_shard(name, create=False)
                if shard is not None:
                    store._indexer.maybe_start(name, shard, folder / name)
    return copied


def _rebuild(store: Any, target: Path) -> int:
    from qdrant_edge import EdgeShard, ScrollRequest

    made, former = target.with_name(target.name + REBUILDING), target.with_name(target.name + FORMER)
    if former.exists():  # killed between the renames: the copy was complete and flushed before the first
        if not target.exists():
            made.rename(target)
        shutil.rmtree(former)
        return 0
    shutil.rmtree(made, ignore_errors=True)  # a copy a killed process was making
    settle_folder(target)
    if not shard_exists(target) or (target / REBUILT).exists():
        return 0
    old = EdgeShard.load(str(target))
    new = EdgeShard.create(str(made), shard_config(shard_dimension(target.name)))
    count, tenants = 0, {}
    try:
        ensure_indexes(new)
        offset = None
        while True:
            batch, offset = old.scroll(ScrollRequest(offset=offset, limit=512, with_payload=True,
                                                     with_vector=[DENSE, SPARSE]))
            points = [_as_point(p) for p in batch]
            for point in points:
                user_id = point["payload"].get("user_id")
                if isinstance(user_id, str):
                    if user_id not in tenants:
                        tenants[user_id] = store._tenant(user_id)
                    point["payload"]["user_id"] = tenants[user_id]
            if points:
                upsert_points(new, points)  # a new shard: nothing of anyone's to keep
            count += len(points)
            if offset is None:
                break
        new.flush()
    finally:
        with contextlib.suppress(Exception):
            old.close()
        with contextlib.suppress(Exception):
            new.close()
    with open_private(made / REBUILT) as out:
        out.write(f"{FORMAT}\n")
    make_private(made)
    # how many points the old shard's last index build covered: the new shard has no index yet
    target.with_name(target.name + INDEX_SUFFIX).unlink(missing_ok=True)
    target.rename(former)
    made.rename(target)
    shutil.rmtree(former)
    return count


def _move_space(store: Any, user_folder: Path, user_id: str, space: str, dimension: int) -> int:
    from qdrant_edge import EdgeShard, ScrollRequest

    source, done = user_folder / space, user_folder / (space + MOVED)
    if done.exists():  # copied and flushed before the rename: only the removal was left
        shutil.rmtree(done, ignore_errors=True)
        return 0
    settle_folder(source)
    if not shard_exists(source):
        return 0
    target = store._open_shard(shard_name(space, dimension, bucket_of(user_id)), create=True)
    old = EdgeShard.load(str(source))
    count = 0
    try:
        offset = None
        while True:
            batch, offset = old.scroll(ScrollRequest(offset=offset, limit=512, with_payload=True,
                                                     with_vector=[DENSE, SPARSE]))
            points = [_as_point(p) for p in batch if (p.payload or {}).get("user_id") == user_id]
            if points:
                upsert_points(target, points, user_id)
                count += len(points)
            if offset is None:
                break
    finally:
        with contextlib.suppress(Exception):
            old.close()
    target.flush()
    source.rename(done)
    shutil.rmtree(done, ignore_errors=True)
    return count


def _as_point(point: Any) -> dict:
    vectors = point.vector or {}
    sparse = vectors.get(SPARSE)
    return {"id": str(point.id), "dense": list(vectors[DENSE]),
            "sparse": [list(sparse.indices), list(sparse.values)] if sparse is not None else [[], []],
            "payload": dict(point.payload or {})}
