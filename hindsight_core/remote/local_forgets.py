"""How forgets reach the processes that hold a user's words besides the server: its clients' processes.

`HindsightClient.forget` calls the server, but the copies of a user's words this process keeps (a write queue's
turns and journal, the conversation policy's last turns) live here. So the client announces each forget it makes
with the facade's events (`events`): a `Forgetting` before the request leaves and a `Forgotten` after the answer.

A forget made by another process happens in the server's process, whose `ForgetCounter` counts every forget of
each user; a client asks for the count before it uses what it remembers of a user
(`HindsightClient.forgets_made_elsewhere`), and a count that moved is announced as a `Forgotten` naming no text.
"""

from __future__ import annotations

import dataclasses
import hashlib
import threading
import uuid
from collections import OrderedDict
from typing import Any, Callable

from ..contract.checks import check_flag, check_one_target
from ..errors import HindsightError
from ..events import ForgetListener, ForgetListeners, Forgetting, Forgotten
from ..language.text import validate_id
from ..types import ForgetReceipt


#: users whose forget count a client remembers, the most recently asked last (more than `TurnLog` keeps)
USERS_KEPT = 65_536


class LocalForgets:
    """The listeners a client announces its own forgets to: `before` (a `Forgetting`) and `after` (a `Forgotten`)."""

    def __init__(self) -> None:
        self.before: ForgetListeners[Forgetting] = ForgetListeners()
        self.after: ForgetListeners[Forgotten] = ForgetListeners()
        #: the server's forget count of each user, as last asked (`elsewhere`)
        self._counts: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def heard(self) -> bool:
        """Whether anyone listens (without listeners, announcing costs only the checks)."""
        return bool(len(self.before) or len(self.after))

    def on_forget(self, listener: ForgetListener) -> None:
        self.after.add(listener)

    def before_forget(self, listener: Callable[[Forgetting], None]) -> None:
        self.before.add(listener)

    def starting(self, user_id: Any, memory_id: Any, about: Any, everything: Any, dry_run: Any) -> Forgetting | None:
        """Announce a forget about to be sent; None (nothing announced) for a request the server will refuse as input.

        A malformed request is left to the server, which refuses it with its own error."""
        try:
            event = Forgetting(validate_id(user_id), check_flag(everything, "everything"), check_flag(dry_run, "dry_run"))
            check_one_target(memory_id, about, event.everything)
        except HindsightError:
            return None
        self.before.announce(event)
        return event

    def done(self, started: Forgetting | None, receipt: ForgetReceipt, about: str | None) -> ForgetReceipt:
        """Announce a forget the server made; the receipt with the copies the holders removed added in."""
        if started is None or started.dry_run:
            return receipt
        texts = None if started.everything else [r.raw_content for r in receipt.removed]
        removed = self.after.announce(Forgotten.of(receipt.user_id, texts, about))
        return dataclasses.replace(receipt, working_messages=receipt.working_messages + removed) if removed else receipt

    def elsewhere(self, user: str, count: str) -> bool:
        """The server's forget count of `user` now: if it moved since the last ask, announce a `Forgotten` naming no
        text (a forget made by another process). The first ask only records it: nothing was remembered before."""
        with self._lock:
            known = self._counts.pop(user, None)
            self._counts[user] = count
            while len(self._counts) > USERS_KEPT:
                self._counts.popitem(last=False)
        if known is None or known == count:
            return False
        self.after.announce(Forgotten.of(user, ()))
        return True


class ForgetCounter:
    """The server's count of each user's forgets, which its clients ask for to learn of forgets made elsewhere.

    It counts each forget at its start and at its end, so a client asking while one runs hears of it. The counts are
    `BUCKETS` numbers picked by a digest of the user id (no list of who forgot): a forget of another user in the same
    bucket costs a client the context of one turn. A count carries this process's start, so a restart reads as a forget.
    """

    BUCKETS = 4096

    def __init__(self) -> None:
        self._counts = [0] * self.BUCKETS
        self._started = uuid.uuid4().hex[:12]
        self._lock = threading.Lock()

    def listen(self, memory: Any) -> "ForgetCounter":
        """Count the forgets of `memory` (a `Hindsight`)."""
        memory.before_forget(self.heard)
        memory.on_forget(self.heard)
        return self

    def heard(self, event: Forgetting | Forgotten) -> int:
        if not getattr(event, "dry_run", False):
            with self._lock:
                self._counts[self._bucket(event.user_id)] += 1
        return 0  # no copy was removed here

    def count(self, user: str) -> str:
        """The user's forget count (with this process's start): changed whenever a forget of theirs began or ended."""
        return f"{self._started}:{self._counts[self._bucket(user)]}"

    def _bucket(self, user: str) -> int:
        digest = hashlib.blake2b(user.encode("utf-8", "surrogatepass"), digest_size=4).digest()
        return int.from_bytes(digest, "big") % self.BUCKETS


__all__ = ["ForgetCounter", "LocalForgets"]
