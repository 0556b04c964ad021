"""The import paths from before the stage folders still work, and give the very same objects."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

import hindsight_core
from hindsight_core._moved import MOVED

#: what the old `hindsight_core.semantic` offered, now spread over the write rules and consolidation
SEMANTIC_NAMES = ["is_duplicate", "is_conflict", "attributes_of", "consolidation_candidates", "may_group",
                  "find_groups", "group_around", "Group", "extractive_summary", "llm_summary", "SummaryRejected",
                  "ConsolidationReport", "STANDING_TYPES"]


def _fresh_import(old: str):
    sys.modules.pop(old, None)
    return importlib.import_module(old)


@pytest.mark.parametrize("old", sorted(set(MOVED) - {"hindsight_core.audit"}))
def test_an_old_path_warns_and_forwards_every_name(old):
    with pytest.warns(DeprecationWarning, match="moved: import from"):
        module = _fresh_import(old)
    home = importlib.import_module(MOVED[old][0])
    names = [n for n in vars(home) if not n.startswith("_")]
    assert names
    for name in names:
        assert getattr(module, name) is getattr(home, name), name
    with pytest.raises(AttributeError, match="moved to"):
        module.no_such_name  # noqa: B018


def test_the_old_semantic_module_offers_its_names_from_their_new_homes():
    module = _fresh_import("hindsight_core.semantic")
    from hindsight_core.consolidate import groups, plan
    from hindsight_core.write import rules
    for name in SEMANTIC_NAMES:
        assert getattr(module, name) is not None
    assert module.is_conflict is rules.is_conflict and module.find_groups is groups.find_groups
    assert module.ConsolidationReport is plan.ConsolidationReport


def test_the_old_audit_module_does_not_rebind_the_audit_function():
    from hindsight_core.audit import WriteAudit, audit  # the old module path
    import hindsight_core.audit  # noqa: F401
    assert hindsight_core.audit is audit and callable(audit)
    from hindsight_core.safety.audit import WriteAudit as moved
    assert WriteAudit is moved


def test_no_old_path_is_shadowed_by_a_file_at_the_top():
    top = {path.stem for path in Path(hindsight_core.__file__).parent.glob("*.py")}
    assert not {old.rsplit(".", 1)[1] for old in MOVED} & top
