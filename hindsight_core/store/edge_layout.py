"""Moving a store of format 2 (one Edge shard per user and space) to format 3 (shards every user shares).

Runs once, when `EdgeStore` opens a folder whose FORMAT says 2, under the store's lock (no
other process can have it open). User by user, space by space:

1. an index swap a crash interrupted is settled, and the user's old shard is loaded;
2. its points are copied as they are (ids, both vectors, the payload with its sealed text and
   `user_id`) into the shared shard of that space and vector size, and the shared shard is flushed;
3. the old shard's folder is renamed to `<space>.moved` (atomic), then removed.

The user's key files, registry entry and change journal stay where they are: the sealed text
is copied byte for byte, so every key still opens its memory, and a journal a crash left is
replayed on the shared shards by `recover`. A crash at any step is resumed on the next open:
a copy is idempotent (an upsert by id), a `.moved` folder was copied and flushed before its
rename, and FORMAT says 3 only once every user is done.
"""

from __future__ import annotations

import contextlib
import json
import logging
import shutil
from pathlib import Path
from typing import Any

from .edge_changes import upsert_points
from .edge_files import FORMAT, bucket_of, shard_exists, shard_name, write_json_atomic
from .fields import DENSE, SPARSE
from .indexing import settle_folder
from .private import open_private
from .values import SPACES

logger = logging.getLogger("hindsight_core.store")
MOVED = ".moved"


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
    with open_private(store.root / "FORMAT") as out:
        out.write(f"{FORMAT}\n")
    if moved:
        logger.info("hindsight: moved %d memories to the shared layout (format %d)", moved, FORMAT)
    return moved


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
