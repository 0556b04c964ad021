"""The embedded store's files: the root folder and its lock, user folders, the change journal, shard settings.

Layout under the store's root (format 5; a store of an earlier layout is refused with how to move its memories):

    LOCK                       held by the one process that has the store open
    FORMAT                     the layout version
    keys.sqlite                every user's per-memory keys of the sealed text (`sealing`)
    meta/<key>.json            store metadata (e.g. a migration in progress)
    shards/<space>-d<dim>-<bucket>/   Edge shards per space and vector size, one of `BUCKETS` by a hash of the user
    shards/<name>.indexing/    a copy being indexed in a child process (`indexing`); <name>.making/: being made
    users/<sha256(user)[:32]>/user.json     the user id, embedding model and dimension, and the user's spaces
    users/<sha256(user)[:32]>/journal/<id>.json     a multi-step change, written before it is applied
"""

from __future__ import annotations

import base64
import fcntl
import hashlib
import json
import os
import shutil
import time
import uuid
from pathlib import Path
from typing import IO, Any

import numpy as np

from ..errors import HindsightError, StoreInUseError, StoreUnavailableError
from .fields import DENSE, FLOAT_INDEXED, KEYWORD_INDEXED, SPARSE
from .holder import holder
from .private import open_private, private_folder
from .values import SPACES

#: the layout this version reads (1 was qdrant-client's local mode, 2 one Edge shard per user, 3 a key file per user,
#: 4 user ids in the clear and keyword IDF over every user of a shard)
FORMAT = 5
KEY_FILE = "keys.sqlite"


def earlier_layout(root: Path) -> bool:
    """Whether `root` holds a store written in an earlier layout (Qdrant local mode, or an Edge format below this one)."""
    if (root / "collection").is_dir() and (root / "meta.json").is_file():
        return True
    try:
        return int((root / "FORMAT").read_text().strip()) < FORMAT
    except (OSError, ValueError):  # no FORMAT file: a new store, or users written before it existed
        return (root / "users").is_dir() and any((root / "users").iterdir())


def open_root(root: Path) -> IO[str]:
    """Make the store's folders and take its lock; returns the locked file (kept open while the store is).

    Nothing is released yet, so a store of an earlier layout is not moved: it is refused, untouched, with how
    to move its memories (an export by the version that wrote it, an import into a new store)."""
    if root.exists() and not root.is_dir():
        raise StoreUnavailableError(f"{root} is a file, not a folder; give the folder for the store")
    if earlier_layout(root):
        raise StoreUnavailableError(
            f"{root} holds a store written by an earlier hindsight, in a layout this version does not read; "
            f"nothing has been changed. Export it with the version that wrote it (`hindsight --store {root} "
            "export memories.jsonl`), then import that here (`hindsight --store NEW_FOLDER import memories.jsonl`)")
    try:
        fresh = not root.exists() or not any(root.iterdir())
        if fresh or (root / "FORMAT").exists():  # a folder of the store's own (never a folder it was put in)
            private_folder(root)
        private_folder(root / "users")
        private_folder(root / "meta")
        lock_file = open_private(root / "LOCK", "a+")
    except OSError as exc:
        raise StoreUnavailableError(f"cannot use {root} for the store ({exc.strerror}); "
                                    "give a folder this process can write") from exc
    try:
        fcntl.flock(lock_file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        lock_file.close()
        found = holder(root)
        raise StoreInUseError(
            f"the embedded store at {root} is held by {found or 'another process'}. One process at a time opens an "
            "embedded store: stop that process, or run `hindsight serve` on the store in its place and reach it "
            "from each process with HindsightClient") from None
    if not (root / "FORMAT").exists():
        with open_private(root / "FORMAT") as out:
            out.write(f"{FORMAT}\n")
    return lock_file


#: every user's points are spread over this many shards per space (by a hash of the user id): a compaction,
#: which rewrites a shard's segments, costs a sixteenth of the store's memories, while the shards, their threads
#: and their open files stay a fixed number whatever the users
BUCKETS = 16


def bucket_of(user_id: str) -> int:
    return int(user_dir_name(user_id)[:8], 16) % BUCKETS


def shard_name(space: str, dimension: int, bucket: int) -> str:
    return f"{space}-d{int(dimension)}-{int(bucket):02d}"


def shard_dimension(name: str) -> int:
    return int(name.rsplit("-d", 1)[1].split("-")[0])


def shard_exists(folder: Path) -> bool:
    return (folder / "edge_config.json").exists() or (folder / "segments").exists()


TEMPORARY_PREFIX = "hindsight-mem-"
#: a shard being made, renamed to its name once the engine has made it
MAKING = ".making"


def remove_abandoned_temporaries(parent: Path) -> int:
    """Remove the temporary stores (`location=":memory:"`) a killed process of this user left in `parent`.

    One is abandoned when nobody holds its lock; one made in the last minute is left alone (its process may not have
    taken the lock yet). Their keys were never on disk, so what they hold is ciphertext; this takes that away too.
    """
    removed = 0
    for folder in parent.glob(TEMPORARY_PREFIX + "*"):
        try:
            made = folder.stat()
            if made.st_uid != os.getuid() or time.time() - made.st_mtime < 60 or not (folder / "LOCK").exists():
                continue
            with open(folder / "LOCK", "a+") as lock:
                fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)  # raises while its process lives
                shutil.rmtree(folder)
                removed += 1
        except OSError:
            continue
    return removed


def user_dir_name(user_id: str) -> str:
    return hashlib.sha256(user_id.encode("utf-8")).hexdigest()[:32]


def meta_path(root: Path, key: str) -> Path:
    return root / "meta" / f"{hashlib.sha256(key.encode()).hexdigest()[:32]}.json"


def write_json_atomic(path: Path, value: Any, *, durable: bool = True) -> None:
    """Write, fsync, rename, fsync the folder: a reader sees the old file or the new one.

    `durable=False` leaves out both fsyncs: the file survives a killed process (the kernel holds it), as the
    engine's own log does with `sync="normal"`, but a power cut may leave it missing or empty."""
    tmp = path.with_name(path.name + f".{uuid.uuid4().hex}.tmp")
    text = json.dumps(value, ensure_ascii=False)  # in one piece: json.dump streams through the pure-Python encoder
    with open_private(tmp) as handle:
        handle.write(text)
        handle.flush()
        if durable:
            os.fsync(handle.fileno())
    os.replace(tmp, path)
    if not durable:
        return
    fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def journaled(entry: dict[str, Any]) -> dict[str, Any]:
    """A change as its journal file holds it: dense vectors as base64 float32 (JSON floats cost ~1 ms a vector)."""
    return {**entry, "upserts": [{**p, "dense": base64.b64encode(np.asarray(p["dense"], dtype="<f4").tobytes())
                                  .decode("ascii")} for p in entry["upserts"]]}


def from_journal(entry: dict[str, Any]) -> dict[str, Any]:
    """The change a journal file holds (vectors written as lists by older versions are read as they are)."""
    return {**entry, "upserts": [{**p, "dense": np.frombuffer(base64.b64decode(p["dense"]), dtype="<f4").tolist()}
                                 if isinstance(p["dense"], str) else p for p in entry.get("upserts", [])]}


def shard_config(dimension: int) -> Any:
    from qdrant_edge import Distance, EdgeConfig, EdgeOptimizersConfig, EdgeSparseVectorParams, EdgeVectorParams

    return EdgeConfig(
        vectors={DENSE: EdgeVectorParams(size=int(dimension), distance=Distance.Cosine)},
        # plain BM25 weights: the IDF is the asking user's own (`keywords`), never one over every user of the shard
        sparse_vectors={SPARSE: EdgeSparseVectorParams()},
        # vacuum on optimize() as soon as anything was deleted: forgotten vectors leave the segments
        optimizers=EdgeOptimizersConfig(deleted_threshold=0.0001, vacuum_min_vector_number=1),
        # one search thread a shard (Edge starts eight by default): threads stay few with every bucket open
        max_search_threads=1, search_pool_core=1,
    )


def ensure_indexes(shard: Any) -> None:
    """The payload indexes filters and the ranking formula read; those a shard lacks (written by an older
    version) are built once, when it is opened."""
    from qdrant_edge import PayloadSchemaType, UpdateOperation

    from qdrant_edge import KeywordIndexParams

    have = set(shard.info().payload_schema)
    if "user_id" not in have:  # the tenant: every request filters on it
        shard.update(UpdateOperation.create_field_index("user_id", KeywordIndexParams(is_tenant=True)))
    for names, kind in ((KEYWORD_INDEXED, PayloadSchemaType.Keyword), (FLOAT_INDEXED, PayloadSchemaType.Float)):
        for name in names:
            if name not in have:
                shard.update(UpdateOperation.create_field_index(name, kind))


def check_space(space: str) -> None:
    if space not in SPACES:
        raise HindsightError(f"unknown store space {space!r}; spaces are {SPACES}")

