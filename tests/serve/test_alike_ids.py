"""User ids that the store reads as one user (they normalise alike) are refused at sign-up: a tokens file, the
server's options, a `UserScope`; an id given in another spelling is the user the store keys (red team finding 8)."""

from __future__ import annotations

import json

import pytest

from hindsight_core import Hindsight, InvalidInputError
from hindsight_core.mcp.scope import UserScope
from hindsight_core.remote import HindsightClient
from hindsight_core.remote.runner import BackgroundServer, ServeOptions, make_app
from hindsight_core.testing import FakeEmbedder

KEVIN, KELVIN_SIGN = "kevin-token-0123456789abcdef", "kelvin-token-0123456789abcdef"

#: (an id, the same id spelled with a compatibility character NFC folds into it)
ALIKE = [("Kevin", "\u212aevin"), ("Ångström", "\u212bngstr\u00f6m"), ("Ωmega", "\u2126mega"), ("豈", "\uf900")]


@pytest.mark.parametrize("plain,other", ALIKE, ids=["kelvin", "angstrom", "ohm", "cjk-compat"])
def test_a_tokens_file_naming_one_user_twice_is_refused(tmp_path, plain, other):
    path = tmp_path / "tokens.json"
    path.write_text(json.dumps({plain: KEVIN, other: KELVIN_SIGN}))
    with pytest.raises(InvalidInputError, match="one user to the store"):
        UserScope.from_tokens_file(path)
    with pytest.raises(InvalidInputError, match="one user to the store"):
        UserScope(tokens={KEVIN: plain, KELVIN_SIGN: other})


def test_the_server_refuses_two_tokens_for_ids_that_normalise_alike(tmp_path):
    with Hindsight(path=tmp_path / "store", embedder=FakeEmbedder()) as memory:
        with pytest.raises(InvalidInputError, match="one user to the store"):
            make_app(memory, ServeOptions(port=0, user_tokens={KEVIN: "Kevin", KELVIN_SIGN: "\u212aevin"}), 8765)


def test_a_token_whose_id_is_spelled_otherwise_reaches_the_user_the_store_keys(tmp_path):
    with Hindsight(path=tmp_path / "store", embedder=FakeEmbedder()) as memory:
        memory.write("My locker code is 4471.", user_id="Kevin", force=True)
        with BackgroundServer(memory, ServeOptions(port=0, user_tokens={KELVIN_SIGN: "\u212aevin"})) as server:
            with HindsightClient(server.url, token=KELVIN_SIGN, queue_journal=False) as client:
                # the same user, however it is spelled: the token's own memories, and no other user's
                assert [r.raw_content for r in client.memories(user_id="Kevin")] == ["My locker code is 4471."]
                assert client.users() == ["Kevin"]
