"""Session messages: the record a working-memory backend stores, and how many tokens each costs.

A message costs its content's tokens plus `MESSAGE_OVERHEAD` (4): the framing tokens chat formats wrap each
message in. The 3 tokens that prime the reply are part of the answer reserve, not of the prompt.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Mapping

from ..clock import ensure_utc
from ..errors import InvalidInputError

ROLES = ("user", "assistant", "system", "tool")
MESSAGE_OVERHEAD = 4


@dataclass(frozen=True)
class Message:
    """One message of a session, as stored by a backend (JSON, one list entry per message)."""

    role: str
    content: str
    timestamp: datetime
    id: str = field(default_factory=lambda: uuid.uuid4().hex)
    metadata: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> str:
        return json.dumps({"id": self.id, "role": self.role, "content": self.content,
                           "ts": self.timestamp.isoformat(), "meta": dict(self.metadata)},
                          ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_json(cls, raw: str | bytes) -> "Message":
        data = json.loads(raw)
        return cls(role=data["role"], content=data["content"], timestamp=datetime.fromisoformat(data["ts"]),
                   id=data["id"], metadata=data.get("meta") or {})

    def to_dict(self) -> dict[str, str]:
        """The chat-API shape: {"role": ..., "content": ...}."""
        return {"role": self.role, "content": self.content}


def check_role(role: object) -> str:
    if not isinstance(role, str) or role not in ROLES:
        raise InvalidInputError(f"role must be one of {list(ROLES)}, got {role!r}")
    return role


def check_metadata(metadata: Mapping[str, Any] | None) -> dict[str, Any]:
    """A JSON round-trip of the metadata, so what is stored is what is read back."""
    if metadata is None:
        return {}
    if not isinstance(metadata, Mapping):
        raise InvalidInputError("metadata must be a mapping of str to JSON values")
    try:
        return json.loads(json.dumps(dict(metadata), ensure_ascii=False, allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"message metadata must be JSON-serialisable: {exc}") from None


def make_message(role: object, content: str, timestamp: datetime, metadata: Mapping[str, Any] | None) -> Message:
    return Message(check_role(role), content, ensure_utc(timestamp), metadata=check_metadata(metadata))
