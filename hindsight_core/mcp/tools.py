"""The MCP tools: each translates between MCP arguments/results and one `Hindsight` call.

No tool takes a user id (`current_user` reads it from the server's `UserScope`) nor a source (who is speaking is
the server's `write_source`), so a model cannot reach another user nor pass its words off as the user's. Answers
and time ranges are the core's (`session.outcome.report`, `session.choices`); Hindsight errors become MCP tool
errors carrying their message.
"""

from __future__ import annotations

import contextlib
from typing import Annotated, Any, Callable, Iterator

import anyio.to_thread
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.types import ToolAnnotations
from pydantic import Field

from ..api import MemoryAPI
from ..errors import HindsightError, InvalidInputError
from ..session import tools as shape
from ..session.outcome import report
from ..types import RecallResults, ScoredMemory, Source
from .compat import Context, MCPServer, ToolError, check_tool_calls, tool_arguments
from .scope import UserScope

#: what a quarantine answer tells the model to pass on: the user's two ways to release their own words
QUARANTINE_ADVICE = (
    "The memory was written as coming from the {source}, so the write audit held it for review instead of "
    "saving it. If these are the user's own words, the user can review and release it in the hindsight UI "
    "(`hindsight ui`), or, when this host is trusted to speak for the user, run the MCP server with "
    "`--write-source user`.")


def _advise(answer: dict[str, Any], speaker: Source) -> dict[str, Any]:
    """A write's report, with what the user can do when it was quarantined."""
    if answer.get("outcome") == "quarantined":
        advice = QUARANTINE_ADVICE.format(source=speaker.value)
        answer = {**answer, "what_the_user_can_do": advice}  # "message" stays the sentence every interface uses
    return answer


@contextlib.contextmanager
def _as_tool_error() -> Iterator[None]:
    """Turn hindsight's errors into tool errors the model can read and act on."""
    try:
        yield
    except HindsightError as exc:
        raise ToolError(f"{type(exc).__name__}: {exc}") from exc


def current_user(scope: UserScope, ctx: Context | None) -> str:
    """The user this request acts for: from the verified bearer token, else the configured user."""
    if not scope.authenticated:
        assert scope.user_id is not None  # a scope without tokens names its one user
        return scope.user_id
    token = get_access_token()
    if token is None and ctx is not None:
        request = getattr(ctx.request_context, "request", None)
        user = getattr(request, "scope", {}).get("user") if request is not None else None
        token = getattr(user, "access_token", None)
    # the verifier names the user as the token's subject; older mcp 1.x (1.24) drops that field: ask the scope
    user = (getattr(token, "subject", None) or scope.user_for_token(token.token)) if token is not None else None
    if not user:
        raise ToolError("this server needs an authenticated user: connect over HTTP with "
                        "'Authorization: Bearer <token>'")
    return user


def _result(item: ScoredMemory) -> dict[str, Any]:
    memory = item.memory
    return {"id": memory.id, "memory": memory.raw_content, "when": memory.timestamp.isoformat(),
            "type": memory.event_type, "layer": memory.layer.value, "score": round(item.score, 6),
            "retention": round(item.retention, 4), "why": str(item.explanation)}


def write_source(value: Source | str) -> Source:
    """The source a server records its writes under; refuses anything but a `Source`."""
    try:
        return Source(value)
    except ValueError:
        raise InvalidInputError(f"write_source must be one of {[s.value for s in Source]}, got {value!r}") from None


def refuse_unknown_arguments(server: MCPServer) -> None:
    """Make `server` answer a call with an argument its tool does not take (a `user_id`, a `source`, a typo) with a
    tool error naming the arguments it does take: a model must not read a success as having got it."""

    async def known_arguments_only(name: str, arguments: Any) -> None:
        known = await tool_arguments(server, name)
        if known is not None and isinstance(arguments, dict):
            unknown = sorted(set(arguments) - known)
            if unknown:
                raise ToolError(f"{name} takes no argument {', '.join(map(repr, unknown))}; its arguments are "
                                f"{', '.join(sorted(known)) or 'none'} (the user and the speaker are the server's "
                                "to set, never a tool argument's)")

    check_tool_calls(server, known_arguments_only)


#: hears what a search gave: the user, the query, the results
Recalled = Callable[[str, str, RecallResults], object]


def register_tools(server: MCPServer, memory: MemoryAPI, scope: UserScope, *,
                   source: Source | str = Source.AGENT, on_recall: Recalled | None = None) -> None:
    """Add hindsight's tools to `server`, each acting for the scope's user only, writing as `source`;
    an argument a tool does not take is refused (`refuse_unknown_arguments`); `on_recall` hears each search."""
    speaker = write_source(source)
    refuse_unknown_arguments(server)

    def user(ctx: Context) -> str:
        return current_user(scope, ctx)

    @server.tool(name=shape.WRITE, description=shape.WRITE_DESCRIPTION,
                 annotations=ToolAnnotations(title="Remember", destructiveHint=False))
    async def memory_write(
        what_to_remember: Annotated[str, Field(description=shape.ARGUMENTS["what_to_remember"])],
        ctx: Context,
        kind_of_memory: Annotated[shape.KindChoice | None, Field(
            description=shape.ARGUMENTS["kind_of_memory"])] = None,
    ) -> dict[str, Any]:
        who = user(ctx)
        with _as_tool_error():
            result = await shape.awrite(memory, who, what_to_remember, kind_of_memory, source=speaker)
        return _advise(report(result), speaker)

    @server.tool(name=shape.SEARCH, description=shape.SEARCH_DESCRIPTION,
                 annotations=ToolAnnotations(title="Search memory", readOnlyHint=True))
    async def memory_search(
        what_am_i_looking_for: Annotated[str, Field(description=shape.ARGUMENTS["what_am_i_looking_for"])],
        ctx: Context,
        # the bound is in the schema but checked by the core, so a model asking for too many reads its sentence
        how_many_results: Annotated[int, Field(strict=True, json_schema_extra={"minimum": 1,
                                                                               "maximum": shape.MAX_RESULTS},
                                               description=shape.ARGUMENTS["how_many_results"])] = 5,
        # the schema lists the choices; a name outside them gets the core's error, which says what to use
        time_range: Annotated[str, Field(description=shape.ARGUMENTS["time_range"],
                                         json_schema_extra={"enum": list(shape.TIME_RANGES)})] = "any_time",
    ) -> dict[str, Any]:
        who = user(ctx)
        with _as_tool_error():
            results = await shape.asearch(memory, who, what_am_i_looking_for, how_many_results, time_range)
        if on_recall is not None:
            on_recall(who, what_am_i_looking_for, results)
        return {"count": len(results), "results": [_result(r) for r in results]}

    @server.tool(annotations=ToolAnnotations(title="Forget", destructiveHint=True, idempotentHint=True))
    async def memory_forget(
        ctx: Context,
        memory_id: Annotated[str | None, Field(
            description="The id of one memory to forget (from memory_search).")] = None,
        topic: Annotated[str | None, Field(
            description="Forget every memory about this topic instead, e.g. 'my old address'.")] = None,
        # strict: the string "false" is refused, never read as False (which would forget for real)
        dry_run: Annotated[bool, Field(strict=True,
            description="If true, only list what would be forgotten. Use it first for a topic.")] = False,
    ) -> dict[str, Any]:
        """Forget the current user's memories for good: one by id, or all about a topic. Give exactly one."""
        who = user(ctx)
        with _as_tool_error():
            receipt = await memory.aforget(user_id=who, memory_id=memory_id, about=topic, dry_run=dry_run)
        return {"dry_run": receipt.dry_run, "count": receipt.count,
                "forgotten": [{"id": m.id, "memory": m.summary} for m in receipt.removed]}

    @server.tool(annotations=ToolAnnotations(title="Consolidate memory", destructiveHint=False))
    async def memory_summarize(
        ctx: Context,
        dry_run: Annotated[bool, Field(strict=True,
                                       description="If true, only report what consolidation would do.")] = False,
    ) -> dict[str, Any]:
        """Consolidate the current user's episodic memories into stable semantic facts (merging repeats,
        superseding corrected facts). Returns what was created, merged and superseded."""
        who = user(ctx)
        with _as_tool_error():
            report = await anyio.to_thread.run_sync(lambda: memory.consolidate(user_id=who, dry_run=dry_run))
        return report.to_dict()

    @server.tool(annotations=ToolAnnotations(title="Memory statistics", readOnlyHint=True))
    async def memory_stats(ctx: Context) -> dict[str, Any]:
        """How many memories the current user has, per layer and status, and how many have faded."""
        who = user(ctx)
        with _as_tool_error():
            report = await anyio.to_thread.run_sync(lambda: memory.stats(users=[who]))
        data = report.to_dict()
        for private in ("users", "store_bytes", "archived"):  # store-wide, or not read here
            data.pop(private, None)
        return data
