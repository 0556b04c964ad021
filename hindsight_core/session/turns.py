"""The conversation policy: which turns of a conversation reach memory, and how.

Every interface that writes a conversation goes through `TurnLog`, which makes offering the whole history at every step
idempotent and pairs each turn with the one it answers:

    turns = TurnLog(memory)
    turns.offer([Turn("I live in Porto.", Source.USER), Turn("Noted!", Source.AGENT)],
                user_id="alice", session_id="s-1")          # each turn goes to the write gate once

* A turn is one message's text, who said it, and optionally when; its digest covers text and speaker. It is written with
  the turn before it as its `context`, and who said that one in its metadata (`ANSWERS_FIELD`).
* Within one (user, session), a turn is offered to the gate at most once: a stored turn's digest is kept in its
  metadata, so after a restart one `find` recognises it; a turn the gate declined or merged may be offered again.
* After any forget of a user (over a `HindsightClient`, one made elsewhere too), no earlier turn is the context of a
  later one, and an agent's answer to such a turn is not offered at all: it may echo what went.
* A conversation written as it goes holds each turn until the agent's answer arrives (`AwaitingAnswer`).
* A turn is claimed before it is written, so two threads write it once; a failed write releases it, a turn refused as
  input is reported in its `Offered.error`. What is known of the last `SESSIONS_KEPT` conversations is kept, and
  of turns fenced by a forget, always.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from ..errors import InvalidInputError
from ..events import ForgetsElsewhere, Forgotten, WeakListener
from ..language.text import validate_id
from ..types import ANSWERS_KEY, CONTEXT_CHARS, Source
from ..contract.options import PER_TEXT, WriteOptions

if TYPE_CHECKING:
    from ..contract.results import WriteResult
    from ..api import MemoryAPI

#: metadata field holding the digest of the turn a memory was stored from
TURN_FIELD = "hindsight_turn"
#: metadata field holding who said the turn a memory answers (a `Source` value)
ANSWERS_FIELD = ANSWERS_KEY
#: conversations (user, session) whose offered turns the policy keeps in memory, most recently offered first
SESSIONS_KEPT = 4096


#: the write options each turn sets for itself (who said it, when, its digest, the turn it answers)
PER_TURN = frozenset(PER_TEXT.values())


def shared_options(options: Mapping[str, Any]) -> WriteOptions:
    """The write options a caller gives for all the turns of one offer, by name (a turn's own are refused)."""
    own = sorted(set(options) & PER_TURN)
    if own:
        raise InvalidInputError(f"{', '.join(own)}: each turn sets its own; pass the write options shared by "
                                "every turn (agent_id, ...)")
    return WriteOptions.named(options)


@dataclass(frozen=True)
class Turn:
    """One message of a conversation: its text, who said it, and (optionally) when."""

    text: str
    source: Source
    timestamp: datetime | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.text, str):
            raise InvalidInputError(f"a turn's text must be a str, got {type(self.text).__name__}")
        try:
            object.__setattr__(self, "source", Source(self.source))
        except ValueError:
            raise InvalidInputError(f"a turn's source is one of {[s.value for s in Source]}, "
                                    f"got {self.source!r}") from None

    @property
    def digest(self) -> str:
        """A stable digest of who said what (sha256 of source and text, 32 hex digits)."""
        data = f"{self.source.value}\x00{self.text}".encode("utf-8", errors="surrogatepass")
        return hashlib.sha256(data).hexdigest()[:32]


@dataclass(frozen=True)
class Offered:
    """One turn that was offered: the write's result, or the input error that kept it out."""

    turn: Turn
    result: "WriteResult | None"
    error: InvalidInputError | None = None


class TurnLog:
    """Offers conversation turns to a `Hindsight`, each (user, session, turn) once (see the module rules).

    `metadata_field`: where a stored turn keeps its digest (default "hindsight_turn").
    """

    def __init__(self, memory: MemoryAPI, *, metadata_field: str = TURN_FIELD) -> None:
        if not isinstance(metadata_field, str) or not metadata_field:
            raise InvalidInputError("metadata_field must be a non-empty string")
        self.memory = memory
        self.metadata_field = metadata_field
        #: the digests offered per (user, session), the most recently offered conversation last
        self._seen: OrderedDict[tuple[str, str | None], set[str]] = OrderedDict()
        #: turns offered before a forget of their user: never a later turn's context (never let go)
        self._fenced: dict[tuple[str, str | None], set[str]] = {}
        #: the last turn offered per (user, session), (digest, text, who said it): the context of the next
        #: offer's first turn
        self._last: dict[tuple[str, str | None], tuple[str, str, Source]] = {}
        self._lock = threading.Lock()
        memory.on_forget(WeakListener(self._forgotten))

    def _forgotten(self, event: Forgotten) -> int:
        """Any forget of a user: every turn offered so far is fenced (see the module rules)."""
        with self._lock:
            for key, seen in self._seen.items():
                if key[0] == event.user_id:
                    self._fenced.setdefault(key, set()).update(seen)
            for key, (digest, _, source) in list(self._last.items()):
                if key[0] == event.user_id:
                    self._last[key] = (digest, "", source)  # its text leaves the process too; its digest marks the fence
        return 0  # no stored copy was removed: the store's own forget counts those

    def _seen_in(self, key: tuple[str, str | None]) -> set[str]:
        """The digests offered in one conversation (under the lock), which becomes the most recent; the least
        recent beyond `SESSIONS_KEPT` are let go (see the module rules)."""
        seen = self._seen.setdefault(key, set())
        self._seen.move_to_end(key)
        while len(self._seen) > SESSIONS_KEPT:
            gone, _ = self._seen.popitem(last=False)
            self._last.pop(gone, None)
        return seen

    def fence(self, turns: Iterable[Turn], user_id: str, session_id: str | None) -> None:
        """Record turns as said before a forget without offering them (a queue dropping them for the forget)."""
        digests = {t.digest for t in turns}
        with self._lock:
            self._seen_in((user_id, session_id)).update(digests)
            self._fenced.setdefault((user_id, session_id), set()).update(digests)

    def _stored_before(self, turn: Turn, user_id: str, session_id: str | None) -> bool:
        records = self.memory.find(user_id=user_id, metadata={self.metadata_field: turn.digest})
        return any(r.session_id == session_id for r in records)

    def _claim(self, turns: Iterable[Turn], user_id: str, session_id: str | None) -> list[Turn]:
        """The turns not offered before in this session, now marked as offered."""
        claimed: list[Turn] = []
        fresh: list[Turn] = []
        key = (user_id, session_id)
        try:
            with self._lock:
                last = self._last.get(key)
            before = last[0] if last is not None else None
            for turn in turns:
                with self._lock:
                    seen = self._seen_in(key)
                    fenced = self._fenced.get(key, set())
                    answers_fenced, before = before in fenced, turn.digest
                    if turn.digest in seen or turn.digest in fenced:
                        seen.add(turn.digest)
                        continue
                    seen.add(turn.digest)
                    if turn.source is Source.AGENT and answers_fenced:  # said before the forget, maybe echoing it
                        self._fenced.setdefault(key, set()).add(turn.digest)
                        continue
                claimed.append(turn)
                if not self._stored_before(turn, user_id, session_id):
                    fresh.append(turn)
        except BaseException:  # e.g. an invalid user id: nothing was offered, so nothing stays claimed
            self._release(claimed, user_id, session_id)
            raise
        return fresh

    def _release(self, turns: Iterable[Turn], user_id: str, session_id: str | None) -> None:
        with self._lock:
            self._seen.get((user_id, session_id), set()).difference_update(t.digest for t in turns)

    def _contexts(self, turns: Sequence[Turn], user_id: str, session_id: str | None
                  ) -> dict[str, tuple[str, Source] | None]:
        """Each turn's digest -> (the text of the turn before it, who said it): the turn it answers, or None."""
        key = (user_id, session_id)
        with self._lock:
            fenced = self._fenced.get(key, set())
            last = self._last.get(key)
            before = (last[1], last[2]) if last is not None and last[0] not in fenced else None
            out: dict[str, tuple[str, Source] | None] = {}
            for turn in turns:
                out.setdefault(turn.digest, before)
                before = None if turn.digest in fenced else (turn.text[-CONTEXT_CHARS:], turn.source)
            if turns:
                self._last[key] = (turns[-1].digest, turns[-1].text[-CONTEXT_CHARS:], turns[-1].source)
        return out

    def _metadata(self, turn: Turn, answered: tuple[str, Source] | None) -> dict[str, str]:
        metadata = {self.metadata_field: turn.digest}
        if answered is not None:
            metadata[ANSWERS_FIELD] = answered[1].value
        return metadata

    def offer(self, turns: Sequence[Turn], *, user_id: str, session_id: str | None = None,
              **options: Any) -> list[Offered]:
        """Offer the turns not offered before to the write gate; returns one `Offered` per turn offered now.

        `options` are the write options that apply to every turn (`agent_id`, ...: `WriteOptions`, less the
        ones each turn sets, `PER_TURN`), checked as a write checks them."""
        shared_options(options)
        turns = list(turns)
        user_id = validate_id(user_id, max_chars=self.memory.config.limits.max_id_chars)  # as the facade keys users
        if isinstance(self.memory, ForgetsElsewhere):  # another process's forget is heard (`_forgotten`) first
            self.memory.forgets_made_elsewhere(user_id)
        fresh = self._claim(turns, user_id, session_id)
        contexts = self._contexts(turns, user_id, session_id)
        if not fresh:
            return []
        common = dict(user_id=user_id, session_id=session_id, **options)
        try:
            try:  # one batch: one embedding call and one store commit
                answered = [contexts.get(t.digest) for t in fresh]
                results = self.memory.write_many([t.text for t in fresh], sources=[t.source for t in fresh],
                                                 metadatas=[self._metadata(t, a) for t, a in zip(fresh, answered)],
                                                 timestamps=[t.timestamp for t in fresh],
                                                 contexts=[a[0] if a else None for a in answered], **common)
                return [Offered(turn, result) for turn, result in zip(fresh, results)]
            except InvalidInputError:  # one bad turn fails the batch: write them one by one to keep the rest
                return [self._write_one(turn, contexts.get(turn.digest), common) for turn in fresh]
        except BaseException:
            self._release(fresh, user_id, session_id)  # not written: offer again next time
            raise

    def _write_one(self, turn: Turn, answered: tuple[str, Source] | None, common: dict[str, Any]) -> Offered:
        try:
            return Offered(turn, self.memory.write(turn.text, source=turn.source, timestamp=turn.timestamp,
                                                   context=answered[0] if answered else None,
                                                   metadata=self._metadata(turn, answered), **common))
        except InvalidInputError as exc:
            return Offered(turn, None, exc)


class AwaitingAnswer:
    """The turns of a conversation written as it goes, each held until the agent answers it (see the module rules).

        held.add([Turn("I moved to Lyon.", Source.USER)])      # [] : not answered yet
        held.add([Turn("Welcome to Lyon!", Source.AGENT)])     # both turns, in order; release() gives what still waits
    """

    def __init__(self) -> None:
        self._waiting: list[Turn] = []
        self._lock = threading.Lock()

    def add(self, turns: Iterable[Turn]) -> list[Turn]:
        """Hold `turns` after the ones waiting; returns those now answered (up to the last agent turn), in order."""
        with self._lock:
            self._waiting.extend(turns)
            answered = max((i + 1 for i, t in enumerate(self._waiting) if t.source is Source.AGENT), default=0)
            ready, self._waiting = self._waiting[:answered], self._waiting[answered:]
        return ready

    def release(self) -> list[Turn]:
        """Every turn still waiting for its answer, no longer held."""
        with self._lock:
            waiting, self._waiting = self._waiting, []
        return waiting
