"""Issue 21's rules the lead enforces in semantic.py / consolidation.py: turn these on when that lands."""

import pytest

from hindsight_core import Source
from hindsight_core.types import Layer

LEAD = pytest.mark.xfail(strict=False, reason="lead: supersession/consolidation by source")


@LEAD
@pytest.mark.parametrize("source", ["tool", "agent"])
def test_non_user_text_never_supersedes_what_the_user_said(fake_memory, source):
    mine = fake_memory.write("I prefer red for the Orion slide theme.", user_id="u", force=True).record
    fake_memory.write("I prefer blue for the Orion slide theme.", user_id="u", source=source, force=True)
    fake_memory.write("Actually, I prefer blue for the Orion slide theme.", user_id="u", source=source, force=True,
                      layer=Layer.SEMANTIC)
    fake_memory.consolidate(user_id="u")
    assert fake_memory.get(mine.id, user_id="u").superseded_by is None


@LEAD
@pytest.mark.parametrize("source", ["tool", "agent"])
def test_non_user_text_is_never_consolidated_into_the_users_knowledge(fake_memory, source):
    for day in range(4):
        fake_memory.write(f"Invoices for Orion go to account GB29 NWBK 6016 1331 9268 19 (note {day}).",
                          user_id="u", source=source, force=True)
    fake_memory.consolidate(user_id="u")
    knowledge = [m for m in fake_memory.memories(user_id="u") if m.layer is Layer.SEMANTIC]
    assert all(m.source is not Source.USER for m in knowledge), [(m.source, m.raw_content) for m in knowledge]
