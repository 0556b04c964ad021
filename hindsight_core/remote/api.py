"""The HTTP API's operations: each takes the JSON arguments of one `MemoryAPI` call and returns its JSON result.

`service` routes `POST /api/v1/<name>` to `Operations.table[name]`. What each call accepts by name is read from the
contract (`api.keywords`); any other name is refused. `who` is the caller as its token says: `EVERYONE` (the server's
own token, or no token on loopback) or one user id, whose calls are confined to that user (their user_id filled in or
checked, operations over the whole store refused), settled before the arguments are read.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from ..api import MemoryAPI, keywords
from ..contract.checks import check_names, check_users
from ..contract.results import TransferSummary
from ..errors import ForbiddenError, InvalidInputError
from ..language.text import validate_id
from . import wire
from .local_forgets import ForgetCounter
from .recall_log import RecallLog

EVERYONE = "*"


@dataclass(frozen=True)
class Call:
    """One API call: its arguments, who makes it, and from where (for the recall log)."""

    args: dict[str, Any]
    who: str
    caller: str = "api"
    session: str | None = None
    operation: str = "this call"

    def user(self) -> str:
        """The user this call acts for: a per-user token's own (another user named is forbidden), or the argument."""
        named = self.args.get("user_id")
        if self.who != EVERYONE:
            if named is not None and named != self.who:
                raise ForbiddenError(f"this token is {self.who!r}'s; it cannot reach the memories of {named!r}")
            return self.who
        if named is None:
            raise InvalidInputError("user_id is required")
        return validate_id(named)  # checked here: some operations (the recall log) never reach the memory

    def kwargs(self, *names: str, also: tuple[str, ...] = ()) -> dict[str, Any]:
        """The named arguments that were given, with user_id resolved; any other argument is refused. `also`:
        arguments the operation reads itself (the text, the query)."""
        user = self.user()  # who may make the call first, then what it says
        check_names(self.args, (*also, "user_id", *names), self.operation)  # the words the client's own check says
        out = {k: self.args[k] for k in names if k in self.args}
        out["user_id"] = user
        return out

    def whole_store(self) -> None:
        if self.who != EVERYONE:
            raise ForbiddenError("this operation spans every user; it needs the server's own token")


def _text(call: Call, name: str) -> Any:
    if name not in call.args:
        raise InvalidInputError(f"{name} is required")
    return call.args[name]


class Operations:
    """The operations over one `Hindsight` (and its recall log)."""

    def __init__(self, memory: MemoryAPI, log: RecallLog) -> None:
        self.memory = memory
        self.log = log
        self.forgets = ForgetCounter().listen(memory)  # every forget made here, whoever asked, for the clients
        self.table: dict[str, Callable[[Call], Any]] = {
            name: getattr(self, name) for name in (
                "write", "write_many", "recall", "forget", "get", "memories", "find", "release", "unreadable",
                "users", "consolidate", "consolidate_all", "compact", "optimize", "stats", "export_jsonl", "import_jsonl",
                "config", "recall_log", "recall_log_consent", "forget_count")}

    def write(self, call: Call) -> Any:
        written = self.memory.write(_text(call, "text"), **call.kwargs(*keywords("write"), also=("text",)))
        return wire.write_result_out(written)

    def write_many(self, call: Call) -> Any:
        written = self.memory.write_many(_text(call, "texts"), **call.kwargs(*keywords("write_many"), also=("texts",)))
        return [wire.write_result_out(r) for r in written]

    def recall(self, call: Call) -> Any:
        query = _text(call, "query")
        kwargs = call.kwargs(*keywords("recall"), also=("query",))  # checked by `RecallOptions.checked` (a pair as a list too)
        results = self.memory.recall(query, **kwargs)
        self.log.add(kwargs["user_id"], query, results, caller=call.caller,
                     session=call.session or kwargs.get("session_id"))
        return wire.results_out(results)

    def forget(self, call: Call) -> Any:
        return wire.receipt_out(self.memory.forget(**call.kwargs(*keywords("forget"))))

    def forget_count(self, call: Call) -> Any:
        return self.forgets.count(call.user())

    def get(self, call: Call) -> Any:
        return wire.record_out(self.memory.get(_text(call, "memory_id"), user_id=call.user()))

    def memories(self, call: Call) -> Any:
        return [wire.record_out(r) for r in self.memory.memories(**call.kwargs(*keywords("memories")))]

    def find(self, call: Call) -> Any:
        return [wire.record_out(r) for r in self.memory.find(**call.kwargs(*keywords("find")))]

    def release(self, call: Call) -> Any:
        return wire.record_out(self.memory.release(**call.kwargs(*keywords("release"))))

    def unreadable(self, call: Call) -> Any:
        return [list(pair) for pair in self.memory.unreadable(user_id=call.user())]

    def users(self, call: Call) -> Any:
        users = self.memory.users()
        return users if call.who == EVERYONE else [u for u in users if u == call.who]

    def consolidate(self, call: Call) -> Any:
        return wire.consolidation_out(self.memory.consolidate(**call.kwargs(*keywords("consolidate"))))

    def consolidate_all(self, call: Call) -> Any:
        call.whole_store()
        check_names(call.args, keywords("consolidate_all"), "consolidate_all")
        return [wire.consolidation_out(r) for r in self.memory.consolidate_all(**call.args)]

    def compact(self, call: Call) -> Any:
        call.whole_store()  # rewrites every user's files: upkeep for whoever holds the server's own token
        check_names(call.args, (), "compact")
        return self.memory.compact()

    def optimize(self, call: Call) -> Any:
        return self.memory.optimize(**call.kwargs(*keywords("optimize")))

    def _users(self, call: Call) -> list[str] | None:
        """The users a call over the store names: any with the server's token; a per-user token's own only."""
        users = call.args.get("users")
        if call.who != EVERYONE:
            if users is not None and users != [call.who]:
                raise ForbiddenError(f"this token is {call.who!r}'s; it cannot reach other users' memories")
            return [call.who]
        return check_users(users)

    def stats(self, call: Call) -> Any:
        users = self._users(call)
        check_names(call.args, keywords("stats"), "stats")
        return wire.stats_out(self.memory.stats(users=users))

    def export_jsonl(self, call: Call) -> Any:
        users = self._users(call)
        check_names(call.args, keywords("export_jsonl"), "export_jsonl")
        options = {name: call.args[name] for name in ("vectors", "include_archive") if name in call.args}
        out = io.StringIO()
        summary = self.memory.export_jsonl(out, users=users, **options)
        return {"jsonl": out.getvalue(), "summary": _summary(summary)}

    def import_jsonl(self, call: Call) -> Any:
        call.whole_store()
        check_names(call.args, ("lines",), "import_jsonl")
        lines = _text(call, "lines")
        if not isinstance(lines, list) or not all(isinstance(line, str) for line in lines):
            raise InvalidInputError("lines must be a list of JSON Lines strings")
        return _summary(self.memory.import_jsonl(lines))

    def config(self, call: Call) -> Any:
        return {"config": wire.config_out(self.memory.config), "embedding_model": self.memory.embedding_model,
                "recall_log": self.log.enabled, "reaches": call.who}  # whose writes a client's journal may send

    def recall_log_consent(self, call: Call) -> Any:
        given = call.args.get("given")
        if not isinstance(given, bool):
            raise InvalidInputError("given must be true or false")
        user = call.kwargs("given")["user_id"]
        self.log.consent(user, given)
        return self.log.keeps(user)

    def recall_log(self, call: Call) -> Any:
        entries = self.log.entries(call.user(), session=call.args.get("session"))
        return [{"number": e.number, "at": e.at.isoformat(), "session": e.session, "caller": e.caller,
                 "query": e.query, "results": [wire.scored_out(r) for r in e.results], "block": e.block,
                 "withdrawn": e.withdrawn} for e in entries]


def _summary(summary: TransferSummary) -> Mapping[str, Any]:
    return {"memories": summary.memories, "archived": summary.archived, "users": sorted(summary.users),
            "reembedded": summary.reembedded}
