"""Store maintenance (a package, one module per operation): statistics, export and import, archiving, and re-embedding (migration).

These are the operations behind `hindsight stats|export|import|archive|migrate`;
the command line only parses arguments and prints what these return. They work
on the store directly (a `MemoryStore`), so run them while no agent is
writing to the same store.

Export format (JSON Lines): a header line
`{"format": "hindsight-export", "version": 1, ...}`, then one line per memory:
`{"record": <every MemoryRecord field>, "vector": [...], "archived": {...}}`.
Vectors are exported by default, so an import into a store using the same
embedding model is exact and needs no model; a memory whose model differs from
the importing store's (or that was exported without vectors) is re-embedded
from its text on import and its `embedding_model` updated.

Archive: memories with no activity (creation or recall) for N days move to a
per-user archive collection, out of recall, with their status set to
`archived`; `restore` moves them back with their old status.

Migration: every memory (archive included) is re-embedded with the new model
into staging collections, which double as the checkpoint: an interrupted run
resumes where it stopped. Only when every user is staged are the staging copies
swapped in, user by user, and the user registry updated.
"""

from __future__ import annotations

from .archiving import ArchiveReport, archive, archived_count, last_activity, restore
from ..contract.results import RETENTION_EDGES, StoreStats, TransferSummary
from .common import EXPORT_FORMAT, EXPORT_VERSION, MIGRATION_KEY, Progress, maintainable
from .migration import (
                        MigrationPlan,
                        MigrationReport,
                        abort_migration,
                        migrate,
                        migration_in_progress,
                        plan_migration,
)
from .stats import stats
from .transfer import export_jsonl, import_jsonl

__all__ = ["ArchiveReport", "EXPORT_FORMAT", "EXPORT_VERSION", "MIGRATION_KEY", "MigrationPlan",
           "MigrationReport", "Progress", "RETENTION_EDGES", "StoreStats", "TransferSummary", "abort_migration",
           "archive", "archived_count", "export_jsonl", "import_jsonl", "last_activity", "maintainable", "migrate",
           "migration_in_progress", "plan_migration", "restore", "stats"]
