"""Store maintenance, one module per operation: statistics, export and import, archiving, and re-embedding (migration).

These are the operations behind `hindsight stats|export|import|archive|migrate`; they work on the store directly, so run
them while no agent is writing to the same store. Export is JSON Lines: a header line
`{"format": "hindsight-export", "version": 1, ...}`, then one line per memory (`record`, `vector`, `archived`); a
memory whose model differs from the importing store's is re-embedded on import. Archive moves memories with no
activity for N days out of recall, `restore` moves them back. Migration re-embeds every memory into staging
collections (the checkpoint of a resumable run), swapped in user by user at the end.
"""

from __future__ import annotations

from .archiving import ArchiveReport, archive, archived_count, last_activity, restore
from ..contract.results import RETENTION_EDGES, StoreStats, TransferSummary
from .common import EXPORT_FORMAT, EXPORT_VERSION, MIGRATION_KEY, Progress, maintainable
from .migration import MigrationPlan, MigrationReport, abort_migration, migrate, migration_in_progress, plan_migration
from .stats import stats
from .transfer import export_jsonl, import_jsonl

__all__ = ["ArchiveReport", "EXPORT_FORMAT", "EXPORT_VERSION", "MIGRATION_KEY", "MigrationPlan",
           "MigrationReport", "Progress", "RETENTION_EDGES", "StoreStats", "TransferSummary", "abort_migration",
           "archive", "archived_count", "export_jsonl", "import_jsonl", "last_activity", "maintainable", "migrate",
           "migration_in_progress", "plan_migration", "restore", "stats"]
