"""Working memory: a session's messages and the token-budgeted, priority-ranked window built from them.

    priority   pure scoring: recency, relevance, information density; greedy budget filling
    message    the stored message record and its token cost
    window     WorkingMemory, Window, ContextBudget
    forgetting the session key layout, and the forget listener that purges forgotten texts
    backends   InProcessBackend (default) and RedisBackend (shared between processes)
"""

from .backends import InProcessBackend, RedisBackend, WorkingBackend
from .message import MESSAGE_OVERHEAD, ROLES, Message
from .priority import Density, MessageScore, PriorityConfig
from .window import ContextBudget, ContextBudgetError, Window, WorkingMemory

__all__ = [
    "ContextBudget", "ContextBudgetError", "Density", "InProcessBackend", "MESSAGE_OVERHEAD", "Message",
    "MessageScore", "PriorityConfig", "ROLES", "RedisBackend", "Window", "WorkingBackend", "WorkingMemory",
]
