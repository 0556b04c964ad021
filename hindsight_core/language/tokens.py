"""Token counting with tiktoken's cl100k_base, loaded offline.

tiktoken downloads its encodings on first use, which fails without network; llama-index-core ships the cl100k_base
and o200k_base files, so they are read from there (found without importing llama_index), their digest checked,
and the `tiktoken.Encoding` built as tiktoken's constructor does, reading no environment variable. Any other
encoding goes through `tiktoken.get_encoding`.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

from ..errors import HindsightError

#: the encodings llama-index-core ships, as `tiktoken_ext.openai_public` defines them (the cache names each file by
#: the SHA-1 of its address; tests/core/test_timerange_tokens.py checks them against tiktoken's own)
_BASE = "https://openaipublic.blob.core.windows.net/encodings/"
_SHIPPED: dict[str, tuple[str, str, str, dict[str, int]]] = {
    "cl100k_base": (
        _BASE + "cl100k_base.tiktoken", "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        (r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|"""
         r"""\s*[\r\n]|\s+(?!\S)|\s"""),
        {"<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259, "<|fim_suffix|>": 100260,
         "<|endofprompt|>": 100276}),
    "o200k_base": (
        _BASE + "o200k_base.tiktoken", "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        "|".join([
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""\p{N}{1,3}""", r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""", r"""\s*[\r\n]+""", r"""\s+(?!\S)""", r"""\s+""",
        ]),
        {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}),
}


class Tokenizer(Protocol):
    name: str

    def count(self, text: str) -> int: ...


def bundled_tiktoken_cache() -> Path | None:
    """The tiktoken cache folder that llama-index-core ships, if it is installed."""
    spec = importlib.util.find_spec("llama_index")
    for root in (spec.submodule_search_locations or []) if spec else []:
        folder = Path(root) / "core" / "_static" / "tiktoken_cache"
        if folder.is_dir():
            return folder
    return None


def _shipped(name: str) -> Any | None:
    """An encoding built from llama-index-core's copy of its ranks; None if it ships no copy of it."""
    import tiktoken

    folder = bundled_tiktoken_cache()
    if name not in _SHIPPED or folder is None:
        return None
    url, digest, pattern, special = _SHIPPED[name]
    path = folder / hashlib.sha1(url.encode()).hexdigest()
    if not path.is_file():
        return None
    data = path.read_bytes()
    if hashlib.sha256(data).hexdigest() != digest:
        raise HindsightError(f"the {name} ranks shipped at {path} are damaged (their digest does not match)")
    ranks = {base64.b64decode(token): int(rank) for token, rank in (line.split() for line in data.splitlines() if line)}
    return tiktoken.Encoding(name, pat_str=pattern, mergeable_ranks=ranks, special_tokens=special)


@lru_cache(maxsize=4)
def _encoding(name: str) -> Any:
    import tiktoken

    try:
        shipped = _shipped(name)
        return shipped if shipped is not None else tiktoken.get_encoding(name)
    except HindsightError:
        raise
    except Exception as exc:
        raise HindsightError(
            f"cannot load tiktoken encoding {name!r} offline ({exc}). Install llama-index-core, which "
            "ships cl100k_base and o200k_base, or set TIKTOKEN_CACHE_DIR to a folder holding the encoding file."
        ) from exc


class TiktokenTokenizer:
    """Exact token counts for an OpenAI encoding (cl100k_base by default)."""

    def __init__(self, encoding: str = "cl100k_base") -> None:
        self.name = encoding
        self._enc = _encoding(encoding)

    def count(self, text: str) -> int:
        return len(self._enc.encode(text, disallowed_special=()))

    def truncate(self, text: str, max_tokens: int) -> str:
        ids = self._enc.encode(text, disallowed_special=())
        return text if len(ids) <= max_tokens else self._enc.decode(ids[:max_tokens])


@lru_cache(maxsize=1)
def default_tokenizer() -> TiktokenTokenizer:
    return TiktokenTokenizer("cl100k_base")


def count_tokens(text: str) -> int:
    """Tokens in `text` under cl100k_base."""
    return default_tokenizer().count(text)
