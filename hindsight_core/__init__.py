"""hindsight_core: long-term memory for LLM agents, with no framework dependency.

    from hindsight_core import Hindsight
    with Hindsight() as memory:                      # embedded store under ~/.hindsight
        memory.remember("From now on, print in A4 landscape.", user_id="alice")
        results = memory.recall("print the sales report", user_id="alice")
        system_prompt += memory.format_for_prompt(results)
"""

from .audit import Action, AuditVerdict, WriteAudit, audit
from .choices import TimeRangeChoice
from .clock import FrozenClock, system_clock
from .context import Context, ContextBuilder, TokenReport, memory_block
from .consensus import ConsensusConfig, ConsensusReport, apply_consensus, check_consensus
from .config import DecayConfig, HindsightConfig, Limits, RecallConfig, SemanticConfig
from .embedder import DEFAULT_MODEL, Embedder, SentenceTransformerEmbedder
from .errors import (EmbedderMismatchError, EmptyTextError, EvaluatorError, HindsightError, InvalidInputError,
                     InvalidUserIdError, MemoryNotFoundError, StoreInUseError, StoreUnavailableError,
                     TextTooLargeError)
from .formatting import format_for_prompt
from .gate import LLMGate, RuleBasedGate, WriteGate
from .keyed import KeyedItem, KeyedMemory
from .memory import Hindsight, WriteResult
from .outcome import WriteOutcome
from .semantic import ConsolidationReport
from .store import EdgeStore, LegacyStoreError, MemoryStore, ServerStore
from .timerange import TimeRange
from .tokens import count_tokens
from .turns import Turn, TurnLog
from .working import ContextBudget, ContextBudgetError, InProcessBackend, RedisBackend, WorkingMemory
from .types import (EventType, Explanation, ForgetReceipt, GateDecision, Layer, MemoryRecord, RecallResults,
                    ScoredMemory, Source, Status)

__version__ = "0.1.0"

__all__ = [
    "Action", "AuditVerdict", "ConsensusConfig", "ConsensusReport", "ConsolidationReport", "SemanticConfig",
    "WriteAudit", "apply_consensus", "audit", "check_consensus",
    "Context", "ContextBudget", "ContextBudgetError", "ContextBuilder", "InProcessBackend", "RedisBackend",
    "TokenReport", "WorkingMemory", "memory_block",
    "DEFAULT_MODEL", "DecayConfig", "Embedder", "EmbedderMismatchError", "EmptyTextError", "EvaluatorError",
    "EventType", "Explanation", "ForgetReceipt", "FrozenClock", "GateDecision", "Hindsight", "HindsightConfig",
    "HindsightError", "InvalidInputError", "InvalidUserIdError", "LLMGate", "Layer", "Limits", "MemoryNotFoundError",
    "EdgeStore", "LegacyStoreError", "MemoryRecord", "MemoryStore", "ServerStore", "RecallConfig", "RecallResults", "RuleBasedGate", "ScoredMemory",
    "SentenceTransformerEmbedder", "Source", "Status", "StoreInUseError", "StoreUnavailableError",
    "TextTooLargeError", "TimeRange", "WriteGate", "WriteResult", "__version__", "count_tokens", "format_for_prompt",
    "system_clock",
    "KeyedItem", "KeyedMemory", "TimeRangeChoice", "Turn", "TurnLog", "WriteOutcome",
]
