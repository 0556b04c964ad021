"""Over `hindsight serve`, as on the embedded store: a user's scores do not move with what another user of the same
shard stores (red team finding 3)."""

from __future__ import annotations

import uuid

from hindsight_core.remote import HindsightClient

from ..store.test_users_apart import ALICE_NOTES, same_bucket, scores


def test_a_users_scores_do_not_move_with_another_users_writes_over_serve(served):
    alice = f"alice-{uuid.uuid4().hex[:8]}"
    mallory = same_bucket(alice, f"mallory-{uuid.uuid4().hex[:8]}")
    with HindsightClient(served["url"]) as client:
        client.write_many(ALICE_NOTES, user_id=alice, force=True)
        before = scores(client, alice)
        assert len(before) == 4
        client.write_many([f"Cardiology report {n}." for n in range(5)], user_id=mallory, force=True)
        assert scores(client, alice) == before  # to the last digit, through the wire
