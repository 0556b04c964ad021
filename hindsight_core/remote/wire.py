"""The JSON form of what `Hindsight` takes and returns, both ways: one place, used by the server and the client.

Every `*_out` turns a core object into JSON-safe data and every `*_in` rebuilds the same class. Errors travel as
{"type": class name, "message": text} and come back as the same class of `errors` (else `HindsightError`).
"""

from __future__ import annotations

import dataclasses
import enum
from datetime import date, datetime
from typing import Any, Mapping

from .. import errors
from ..clock import ensure_utc
from ..config import DecayConfig, HindsightConfig, Limits, RecallConfig, SemanticConfig
from ..contract.records import record_from_payload, record_to_dict
from ..contract.results import ConsensusCheck, ConsensusReport, ConsolidationReport, StoreStats, Verdict, WriteResult
from ..language.timerange import TimeRange

from ..safety.verdict import Action, AuditVerdict, Category, Finding
from ..types import Explanation, ForgetReceipt, GateDecision, MemoryRecord, RecallResults, ScoredMemory, Source

#: the API's version, in every path: /api/v1/<operation>
PREFIX = "/api/v1"


# -- values inside arguments ------------------------------------------------------------------
#: the keys that tag a value; a mapping of the caller's own with one of them as its only key goes as {"$dict": ...}
_TAGS = frozenset({"$datetime", "$date", "$timerange", "$dict"})


def value_out(value: Any) -> Any:
    """An argument as JSON: datetimes as tagged ISO strings, enums as their values, tuples as lists."""
    if isinstance(value, datetime):
        return {"$datetime": value.isoformat()}
    if isinstance(value, date):
        return {"$date": value.isoformat()}
    if isinstance(value, TimeRange):
        return {"$timerange": [value_out(value.start), value_out(value.end)]}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Mapping):
        plain = {str(k): value_out(v) for k, v in value.items()}
        return {"$dict": plain} if len(plain) == 1 and next(iter(plain)) in _TAGS else plain  # data, not a tag
    if isinstance(value, (list, tuple, set, frozenset)):
        return [value_out(v) for v in value]
    return value


def value_in(value: Any) -> Any:
    """The inverse of `value_out` (a tagged datetime becomes a datetime again)."""
    if isinstance(value, dict):
        for tag, kind in (("$datetime", datetime), ("$date", date)):
            if set(value) == {tag}:
                try:
                    return kind.fromisoformat(value[tag])
                except (TypeError, ValueError):
                    raise errors.InvalidInputError(f"not an ISO date: {value[tag]!r}") from None
        if set(value) == {"$dict"} and isinstance(value["$dict"], dict):
            return {k: value_in(v) for k, v in value["$dict"].items()}
        if set(value) == {"$timerange"}:
            ends = value["$timerange"]
            ends = [value_in(v) for v in ends] if isinstance(ends, list) and len(ends) == 2 else None
            if ends is None or not all(v is None or isinstance(v, datetime) for v in ends):
                raise errors.InvalidInputError(
                    '$timerange is [start, end], each {"$datetime": "<ISO 8601>"} or null (an open end); '
                    f"got {value['$timerange']!r:.100}")
            return TimeRange(*(ensure_utc(v) if v is not None else None for v in ends))
        return {k: value_in(v) for k, v in value.items()}
    if isinstance(value, list):
        return [value_in(v) for v in value]
    return value


# -- records and results ------------------------------------------------------------------------
def record_out(record: MemoryRecord | None) -> dict[str, Any] | None:
    return record_to_dict(record) if record is not None else None


def record_in(data: Mapping[str, Any]) -> MemoryRecord:
    record, problem = record_from_payload(data)
    if record is None:
        raise errors.InvalidInputError(f"not a memory record: {problem}")
    return record


def maybe_record_in(data: Mapping[str, Any] | None) -> MemoryRecord | None:
    return record_in(data) if data is not None else None


def scored_out(item: ScoredMemory) -> dict[str, Any]:
    return {"memory": record_out(item.memory), "score": item.score, "retention": item.retention,
            "explanation": {**dataclasses.asdict(item.explanation), "notes": list(item.explanation.notes)},
            "episodes": [scored_out(e) for e in item.episodes]}


def scored_in(data: Mapping[str, Any]) -> ScoredMemory:
    explanation = dict(data["explanation"])
    explanation["notes"] = tuple(explanation.get("notes") or ())
    return ScoredMemory(record_in(data["memory"]), float(data["score"]), float(data["retention"]),
                        Explanation(**explanation), tuple(scored_in(e) for e in data.get("episodes") or ()))


def consensus_out(report: ConsensusReport | None) -> dict[str, Any] | None:
    if report is None:
        return None
    return {"checks": [{**dataclasses.asdict(c), "verdict": c.verdict.value} for c in report.checks]}


def consensus_in(data: Mapping[str, Any] | None) -> ConsensusReport | None:
    if data is None:
        return None
    checks = []
    for raw in data["checks"]:
        fields: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in raw.items()}
        fields["verdict"] = Verdict(fields["verdict"])
        checks.append(ConsensusCheck(**fields))
    return ConsensusReport(tuple(checks))


def results_out(results: RecallResults) -> dict[str, Any]:
    return {"results": [scored_out(r) for r in results], "consensus": consensus_out(results.consensus),
            "held_back": [scored_out(r) for r in getattr(results, "held_back", ())]}


def results_in(data: Mapping[str, Any]) -> RecallResults:
    return RecallResults([scored_in(r) for r in data["results"]], consensus=consensus_in(data.get("consensus")),
                         held_back=[scored_in(r) for r in data.get("held_back") or ()])


def decision_out(decision: GateDecision) -> dict[str, Any]:
    return {**dataclasses.asdict(decision), "reasons": list(decision.reasons)}


def decision_in(data: Mapping[str, Any]) -> GateDecision:
    return GateDecision(bool(data["store"]), data["event_type"], tuple(data["reasons"]), float(data["confidence"]))


def verdict_out(verdict: AuditVerdict | None) -> dict[str, Any] | None:
    if verdict is None:
        return None
    return {"action": verdict.action.value, "category": verdict.category.value if verdict.category else None,
            "reasons": list(verdict.reasons), "score": verdict.score, "source": verdict.source.value,
            "findings": [{**dataclasses.asdict(f), "category": f.category.value} for f in verdict.findings]}


def verdict_in(data: Mapping[str, Any] | None) -> AuditVerdict | None:
    if data is None:
        return None
    findings = tuple(Finding(**{**f, "category": Category(f["category"])}) for f in data.get("findings") or ())
    return AuditVerdict(Action(data["action"]), Category(data["category"]) if data.get("category") else None,
                        tuple(data["reasons"]), float(data["score"]), Source(data["source"]), findings)


def write_result_out(result: WriteResult) -> dict[str, Any]:
    return {"record": record_out(result.record), "decision": decision_out(result.decision), "merged": result.merged,
            "audit": verdict_out(result.audit)}


def write_result_in(data: Mapping[str, Any]) -> WriteResult:
    return WriteResult(maybe_record_in(data["record"]), decision_in(data["decision"]), bool(data["merged"]),
                       verdict_in(data.get("audit")))


def receipt_out(receipt: ForgetReceipt) -> dict[str, Any]:
    return {"user_id": receipt.user_id, "dry_run": receipt.dry_run, "removed": [record_out(r) for r in receipt.removed],
            "rederived": list(receipt.rederived), "working_messages": receipt.working_messages}


def receipt_in(data: Mapping[str, Any]) -> ForgetReceipt:
    return ForgetReceipt(data["user_id"], bool(data["dry_run"]), tuple(record_in(r) for r in data["removed"]),
                         tuple(data["rederived"]), int(data["working_messages"]))


def consolidation_out(report: ConsolidationReport) -> dict[str, Any]:
    return {"user_id": report.user_id, "dry_run": report.dry_run, "created": [record_out(r) for r in report.created],
            "merged": list(report.merged), "superseded": list(report.superseded), "errors": list(report.errors)}


def consolidation_in(data: Mapping[str, Any]) -> ConsolidationReport:
    return ConsolidationReport(data["user_id"], bool(data["dry_run"]), [record_in(r) for r in data["created"]],
                               list(data["merged"]), list(data["superseded"]), list(data["errors"]))


def stats_out(report: StoreStats) -> dict[str, Any]:
    return {**dataclasses.asdict(report), "retention": list(report.retention)}


def stats_in(data: Mapping[str, Any]) -> StoreStats:
    return StoreStats(**{**data, "retention": tuple(data["retention"])})


_SECTIONS = {"decay": DecayConfig, "semantic": SemanticConfig, "recall": RecallConfig, "limits": Limits}


def config_out(config: HindsightConfig) -> dict[str, Any]:
    def plain(value: Any) -> Any:
        if dataclasses.is_dataclass(value):
            return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
        if isinstance(value, Mapping):  # the decay rates are a read-only mapping
            return {str(k): plain(v) for k, v in value.items()}
        return value

    answer: dict[str, Any] = plain(config)
    return answer


def config_in(data: Mapping[str, Any]) -> HindsightConfig:
    """The server's configuration, as the client shows it (`client.config.limits.max_k`, ...)."""
    known = {f.name for f in dataclasses.fields(HindsightConfig)}
    return HindsightConfig(**{k: _SECTIONS[k](**v) if k in _SECTIONS else v for k, v in data.items() if k in known})


# -- errors -------------------------------------------------------------------------------------
def error_out(exc: BaseException) -> dict[str, Any]:
    return {"error": {"type": type(exc).__name__, "message": str(exc)}}


def error_class(name: str) -> type[errors.HindsightError]:
    """The `HindsightError` subclass called `name` (any other name: HindsightError itself)."""
    found = getattr(errors, name, None)
    if isinstance(found, type) and issubclass(found, errors.HindsightError):
        return found
    return errors.HindsightError
