"""Key files as formats 2 and 3 wrote them: one SQLite file a user and space, `keys (id, key)`, in WAL mode."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from hindsight_core.store.edge_files import KEY_FILE
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


def to_format_3(root: Path) -> None:
    """A store of the current format, closed, laid out as format 3 had it: a key file per user, FORMAT 3."""
    keys = KeyFile(root / KEY_FILE)
    write_old_key_files(root / "users", keys)
    keys.close()
    for suffix in ("", "-wal", "-shm"):
        (root / (KEY_FILE + suffix)).unlink(missing_ok=True)
    (root / "FORMAT").write_text("3\n")
