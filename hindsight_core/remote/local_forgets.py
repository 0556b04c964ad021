"""A client's own forgets, announced to this process's holders of a user's words (the write queue, `TurnLog`).

`HindsightClient.forget` calls the server; the copies of a user's words this
process keeps (a write queue's waiting turns and its journal, the conversation
policy's last turns) live here, not there. So the client announces each forget
it makes with the facade's events (`hindsight_core.events`): a `Forgetting`
before the request leaves (the write queue settles or drops the user's writes
then, so the forget covers them), and a `Forgotten` after the server answered
(with the texts the server removed, the topic, or None for everything).

What this cannot reach: a forget made by another process (another client, the
CLI, MCP, the server's own `Hindsight`) is announced in the server's process
only; a client hears nothing of it.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

from ..contract.checks import check_flag, check_one_target
from ..errors import HindsightError
from ..events import ForgetListener, ForgetListeners, Forgetting, Forgotten
from ..language.text import validate_id
from ..types import ForgetReceipt


class LocalForgets:
    """The listeners a client announces its own forgets to: `before` (a `Forgetting`) and `after` (a `Forgotten`)."""

    def __init__(self) -> None:
        self.before: ForgetListeners[Forgetting] = ForgetListeners()
        self.after: ForgetListeners[Forgotten] = ForgetListeners()

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

        A malformed request is left to the server, which refuses it with its own error: holders are not
        disturbed for a forget that cannot happen."""
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


__all__ = ["LocalForgets"]
