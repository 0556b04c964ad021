"""Stores as older formats wrote them: key files as formats 2 and 3 had them (one SQLite file a user and space,
`keys (id, key)`, in WAL mode), and shards as formats 3 and 4 had them (the users' ids in the clear, the engine's IDF
over every user of a shard)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from hindsight_core.store.edge_files import KEY_FILE, ensure_indexes, shard_dimension, user_dir_name
from hindsight_core.store.fields import DENSE, SPARSE
from hindsight_core.store.sealing import KeyFile


def write_old_key_file(path: Path, rows: list[tuple[str, bytes]]) -> None:
    db = sqlite3.connect(str(path), isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("CREATE TABLE keys (id TEXT PRIMARY KEY, key BLOB NOT NULL)")
        db.execute("BEGIN")
        db.executemany("INSERT INTO keys (id, key) VALUES (?, ?)", rows)
        db.execute("COMMIT")
    finally:
        db.close()


def old_key_file_name(space: str) -> str:
    return "keys.sqlite" if space == "memories" else f"keys-{space}.sqlite"


def write_old_key_files(users: Path, keys: KeyFile) -> None:
    """Every user's rows of `keys` into a key file of their own under `users/<folder>/` (as format 3 had them)."""
    owners: dict[tuple[str, str], list[tuple[str, bytes]]] = {}
    for user, space, memory_id, key in keys._db.execute("SELECT user, space, id, key FROM keys"):
        owners.setdefault((user, space), []).append((memory_id, bytes(key)))
    for (user, space), rows in owners.items():
        write_old_key_file(users / user / old_key_file_name(space), rows)


def old_shard_config(dimension: int):
    """A shard's settings as formats 3 and 4 made them: the engine's IDF over every point of the shard."""
    from qdrant_edge import (
        Distance,
        EdgeConfig,
        EdgeOptimizersConfig,
        EdgeSparseVectorParams,
        EdgeVectorParams,
        Modifier,
    )

    return EdgeConfig(vectors={DENSE: EdgeVectorParams(size=int(dimension), distance=Distance.Cosine)},
                      sparse_vectors={SPARSE: EdgeSparseVectorParams(modifier=Modifier.Idf)},
                      optimizers=EdgeOptimizersConfig(deleted_threshold=0.0001, vacuum_min_vector_number=1),
                      max_search_threads=1, search_pool_core=1)


def to_format_4(root: Path) -> None:
    """A store of the current format, closed, laid out as format 4 had it: every shard made again with the old
    settings and its points naming their users in the clear (in their payloads, so in the shard's log), FORMAT 4."""
    from qdrant_edge import EdgeShard, Point, ScrollRequest, SparseVector, UpdateOperation

    users = [json.loads((folder / "user.json").read_text())["user_id"] for folder in (root / "users").iterdir()]
    keys = KeyFile(root / KEY_FILE)
    named = {keys.of(user_dir_name(user), "memories").tenant(): user for user in users}
    keys.close()
    for folder in sorted(p for p in (root / "shards").iterdir() if p.is_dir()):
        old = EdgeShard.load(str(folder))
        made = folder.with_name(folder.name + ".f4")
        new = EdgeShard.create(str(made), old_shard_config(shard_dimension(folder.name)))
        offset = None
        while True:
            batch, offset = old.scroll(ScrollRequest(offset=offset, limit=512, with_payload=True,
                                                     with_vector=[DENSE, SPARSE]))
            points = []
            for p in batch:
                payload = dict(p.payload)
                payload["user_id"] = named[payload["user_id"]]
                vectors = {DENSE: list(p.vector[DENSE])}
                if SPARSE in p.vector:
                    vectors[SPARSE] = SparseVector(list(p.vector[SPARSE].indices), list(p.vector[SPARSE].values))
                points.append(Point(id=p.id, vector=vectors, payload=payload))
            if points:
                new.update(UpdateOperation.upsert_points(points))
            if offset is None:
                break
        ensure_indexes(new)
        new.flush()
        new.close()
        old.close()
        shutil.rmtree(folder)
        made.rename(folder)
    (root / "FORMAT").write_text("4\n")


def to_format_3(root: Path) -> None:
    """A store of the current format, closed, laid out as format 3 had it: a key file per user, FORMAT 3."""
    to_format_4(root)
    keys = KeyFile(root / KEY_FILE)
    write_old_key_files(root / "users", keys)
    keys.close()
    for suffix in ("", "-wal", "-shm"):
        (root / (KEY_FILE + suffix)).unlink(missing_ok=True)
    (root / "FORMAT").write_text("3\n")
