"""hindsight_core: long-term memory for LLM agents, with no framework dependency.

    from hindsight_core import Hindsight
    with Hindsight() as memory:                      # embedded store under ~/.hindsight
        memory.remember("From now on, print in A4 landscape.", user_id="alice")
        results = memory.recall("print the sales report", user_id="alice")
        system_prompt += memory.format_for_prompt(results)

The contract (`MemoryAPI`, its options, results and errors) is imported here at once; everything else (the
embedded memory and its store, the client, the session layer) when first named, so a program that only
reaches a `hindsight serve` through `HindsightClient` loads no store and no model.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .api import MemoryAPI
from .clock import FrozenClock, system_clock
from .config import DecayConfig, HindsightConfig, Limits, RecallConfig, SemanticConfig
from .contract.results import ConsensusReport, ConsolidationReport, StoreStats, TransferSummary, WriteResult
from .errors import (EmbedderMismatchError, EmptyTextError, EvaluatorError, ForbiddenError, HindsightError,
                     InvalidInputError, InvalidUserIdError, MemoryNotFoundError, ServerAuthError, StoreInUseError,
                     StoreUnavailableError, TextTooLargeError)
from .types import (EventType, Explanation, ForgetReceipt, GateDecision, Layer, MemoryRecord, RecallResults,
                    ScoredMemory, Source, Status)

if TYPE_CHECKING:
    from .embed.embedder import DEFAULT_MODEL, Embedder, SentenceTransformerEmbedder
    from .language.timerange import TimeRange
    from .language.tokens import count_tokens
    from .memory import Hindsight
    from .recall.consensus import ConsensusConfig, apply_consensus, check_consensus
    from .recall.formatting import format_for_prompt
    from .remote.client import HindsightClient
    from .safety.audit import Action, AuditVerdict, WriteAudit, audit
    from .session.choices import TimeRangeChoice
    from .session.context import Context, ContextBuilder, TokenReport, memory_block
    from .session.keyed import KeyedItem, KeyedMemory
    from .session.outcome import WriteOutcome
    from .session.turns import Turn, TurnLog
    from .store import EdgeStore, MemoryStore, ServerStore
    from .working import ContextBudget, ContextBudgetError, InProcessBackend, RedisBackend, WorkingMemory
    from .write.gate import LLMGate, RuleBasedGate, WriteGate
    from .write.judge import KnowledgeJudge, ModelJudge, RuleJudge

__version__ = "0.1.0"

#: the public names loaded on first use, by the module each comes from
_LAZY = {name: module for module, names in {
    ".embed.embedder": ("DEFAULT_MODEL", "Embedder", "SentenceTransformerEmbedder"),
    ".language.timerange": ("TimeRange",), ".language.tokens": ("count_tokens",), ".memory": ("Hindsight",),
    ".recall.consensus": ("ConsensusConfig", "apply_consensus", "check_consensus"),
    ".recall.formatting": ("format_for_prompt",), ".remote.client": ("HindsightClient",),
    ".safety.audit": ("Action", "AuditVerdict", "WriteAudit", "audit"), ".session.choices": ("TimeRangeChoice",),
    ".session.context": ("Context", "ContextBuilder", "TokenReport", "memory_block"),
    ".session.keyed": ("KeyedItem", "KeyedMemory"), ".session.outcome": ("WriteOutcome",),
    ".session.turns": ("Turn", "TurnLog"), ".store": ("EdgeStore", "MemoryStore", "ServerStore"),
    ".working": ("ContextBudget", "ContextBudgetError", "InProcessBackend", "RedisBackend", "WorkingMemory"),
    ".write.gate": ("LLMGate", "RuleBasedGate", "WriteGate"),
    ".write.judge": ("KnowledgeJudge", "ModelJudge", "RuleJudge"),
}.items() for name in names}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'hindsight_core' has no attribute {name!r}")


__all__ = [
    "__version__", "Action", "apply_consensus", "audit", "AuditVerdict", "check_consensus", "ConsensusConfig",
    "ConsensusReport", "ConsolidationReport", "Context", "ContextBudget", "ContextBudgetError", "ContextBuilder",
    "count_tokens", "DecayConfig", "DEFAULT_MODEL", "EdgeStore", "Embedder", "EmbedderMismatchError",
    "EmptyTextError", "EvaluatorError", "EventType", "Explanation", "ForbiddenError", "ForgetReceipt",
    "format_for_prompt", "FrozenClock", "GateDecision", "Hindsight", "HindsightClient", "HindsightConfig",
    "HindsightError", "InProcessBackend", "InvalidInputError", "InvalidUserIdError", "KeyedItem", "KeyedMemory",
    "KnowledgeJudge", "Layer", "Limits", "LLMGate", "memory_block", "MemoryAPI", "MemoryNotFoundError",
    "MemoryRecord", "MemoryStore", "ModelJudge", "RecallConfig", "RecallResults", "RedisBackend", "RuleBasedGate",
    "RuleJudge", "ScoredMemory", "SemanticConfig",
    "SentenceTransformerEmbedder", "ServerAuthError", "ServerStore", "Source", "Status", "StoreInUseError",
    "StoreStats", "StoreUnavailableError", "system_clock", "TextTooLargeError", "TimeRange", "TimeRangeChoice",
    "TokenReport", "TransferSummary", "Turn", "TurnLog", "WorkingMemory", "WriteAudit", "WriteGate", "WriteOutcome",
    "WriteResult",
]
