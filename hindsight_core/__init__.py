"""hindsight_core: long-term memory for LLM agents, with no framework dependency.

    from hindsight_core import Hindsight
    with Hindsight() as memory:                      # embedded store under ~/.hindsight
        memory.remember("From now on, print in A4 landscape.", user_id="alice")
        results = memory.recall("print the sales report", user_id="alice")
        system_prompt += memory.format_for_prompt(results)
"""

from .api import MemoryAPI
from .clock import FrozenClock, system_clock
from .config import DecayConfig, HindsightConfig, Limits, RecallConfig, SemanticConfig
from .consolidate.plan import ConsolidationReport
from .embed.embedder import DEFAULT_MODEL, Embedder, SentenceTransformerEmbedder
from .errors import (
    EmbedderMismatchError,
    EmptyTextError,
    EvaluatorError,
    HindsightError,
    InvalidInputError,
    InvalidUserIdError,
    MemoryNotFoundError,
    StoreInUseError,
    StoreUnavailableError,
    TextTooLargeError,
)
from .language.timerange import TimeRange
from .language.tokens import count_tokens
from .memory import Hindsight, WriteResult
from .recall.consensus import ConsensusConfig, ConsensusReport, apply_consensus, check_consensus
from .recall.formatting import format_for_prompt
from .safety.audit import Action, AuditVerdict, WriteAudit, audit
from .session.choices import TimeRangeChoice
from .session.context import Context, ContextBuilder, TokenReport, memory_block
from .session.keyed import KeyedItem, KeyedMemory
from .session.outcome import WriteOutcome
from .session.turns import Turn, TurnLog
from .store import EdgeStore, LegacyStoreError, MemoryStore, ServerStore
from .types import (
    EventType,
    Explanation,
    ForgetReceipt,
    GateDecision,
    Layer,
    MemoryRecord,
    RecallResults,
    ScoredMemory,
    Source,
    Status,
)
from .working import ContextBudget, ContextBudgetError, InProcessBackend, RedisBackend, WorkingMemory
from .write.gate import LLMGate, RuleBasedGate, WriteGate
from .write.judge import KnowledgeJudge, ModelJudge, RuleJudge

__version__ = "0.1.0"

__all__ = [
    "Action", "AuditVerdict", "ConsensusConfig", "ConsensusReport", "ConsolidationReport", "SemanticConfig",
    "WriteAudit", "apply_consensus", "audit", "check_consensus",
    "Context", "ContextBudget", "ContextBudgetError", "ContextBuilder", "InProcessBackend", "RedisBackend",
    "TokenReport", "WorkingMemory", "memory_block",
    "DEFAULT_MODEL", "DecayConfig", "Embedder", "EmbedderMismatchError", "EmptyTextError", "EvaluatorError",
    "EventType", "Explanation", "ForgetReceipt", "FrozenClock", "GateDecision", "Hindsight", "HindsightConfig",
    "HindsightError", "InvalidInputError", "InvalidUserIdError", "KnowledgeJudge", "LLMGate", "Layer", "Limits", "MemoryAPI",
    "MemoryNotFoundError",
    "EdgeStore", "LegacyStoreError", "MemoryRecord", "MemoryStore", "ModelJudge", "ServerStore", "RecallConfig", "RecallResults", "RuleBasedGate", "RuleJudge", "ScoredMemory",
    "SentenceTransformerEmbedder", "Source", "Status", "StoreInUseError", "StoreUnavailableError",
    "TextTooLargeError", "TimeRange", "WriteGate", "WriteResult", "__version__", "count_tokens", "format_for_prompt",
    "system_clock",
    "KeyedItem", "KeyedMemory", "TimeRangeChoice", "Turn", "TurnLog", "WriteOutcome",
]
