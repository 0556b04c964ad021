"""Whose memories a request may touch: decided by the server's configuration, never by a tool argument.

A `UserScope` is either one configured user (stdio, or HTTP on loopback) or a table of bearer tokens, each naming
the one user it speaks for. No tool takes a user id, so a model cannot ask for someone else's memories.
"""

from __future__ import annotations

import hmac
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from ..errors import InvalidInputError
from ..language.text import validate_id

#: shorter tokens are refused: a bearer token is the only thing between the network and a user's memories
MIN_TOKEN_CHARS = 16


def strong_token(token: object) -> bool:
    """Whether `token` may guard a user's memories: a string of at least `MIN_TOKEN_CHARS`, no surrounding space."""
    return isinstance(token, str) and len(token) >= MIN_TOKEN_CHARS and token == token.strip()


def user_tokens(tokens: Mapping[str, str]) -> dict[str, str]:
    """Each token with its user id as the store keys it (`validate_id`: NFC); refused: a weak token, or two ids
    the store reads as one user ("\u212aevin" is "Kevin"), which would let one token read the other's memories."""
    keyed: dict[str, str] = {}
    spelled: dict[str, str] = {}
    for token, user in tokens.items():
        key = validate_id(user)
        if not strong_token(token):
            raise InvalidInputError(f"the token of user {user!r} is shorter than {MIN_TOKEN_CHARS} characters "
                                    "or has surrounding whitespace; use e.g. `python -c 'import secrets; "
                                    "print(secrets.token_urlsafe(32))'`")
        if spelled.setdefault(key, user) != user:
            raise InvalidInputError(f"user ids {spelled[key]!r} and {user!r} are one user to the store (they "
                                    f"normalise alike, to {key!r}); give each user one id")
        keyed[token] = key
    return keyed


@dataclass(frozen=True)
class UserScope:
    """One fixed `user_id`, or `tokens` mapping each bearer token to the user it authenticates."""

    user_id: str | None = None
    tokens: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if (self.user_id is None) == (not self.tokens):
            raise InvalidInputError("a scope names one user (user_id=...) or a table of tokens, not both or neither")
        if self.user_id is not None:
            object.__setattr__(self, "user_id", validate_id(self.user_id))
        object.__setattr__(self, "tokens", user_tokens(self.tokens))

    @property
    def authenticated(self) -> bool:
        """Whether every request must carry a bearer token (and the user comes from it)."""
        return bool(self.tokens)

    def user_for_token(self, token: str) -> str | None:
        """The user a bearer token speaks for, or None; compares in constant time."""
        found = None
        for known, user in self.tokens.items():
            if hmac.compare_digest(known.encode(), token.encode()):
                found = user
        return found

    @classmethod
    def single_user(cls, user_id: str, token: str | None = None) -> "UserScope":
        """One user; with `token`, HTTP requests must present it."""
        return cls(tokens={token: user_id}) if token else cls(user_id=user_id)

    @classmethod
    def from_tokens_file(cls, path: str | Path) -> "UserScope":
        """Read a JSON object mapping user ids to their bearer tokens: {"alice": "<token>", ...}."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise InvalidInputError(f"cannot read the tokens file {path}: {exc}") from None
        if not isinstance(data, dict) or not data or not all(isinstance(v, str) for v in data.values()):
            raise InvalidInputError(f"the tokens file {path} must be a JSON object mapping user ids to token strings")
        tokens: dict[str, str] = {}
        for user, token in data.items():
            if token in tokens:
                raise InvalidInputError(f"users {tokens[token]!r} and {user!r} share a token; give each its own")
            tokens[token] = user
        return cls(tokens=tokens)
