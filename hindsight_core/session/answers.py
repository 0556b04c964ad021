"""How hindsight takes a language model's answer: one rule for every adapter's `prompt -> text` function.

An answer with no text is a failure, never an answer: `answer_text` raises `EvaluatorError`, and each caller (the
write gate, the consolidation summariser, the retrieval-check judge) already knows what to do with a failed call.
"""

from __future__ import annotations

from ..errors import EvaluatorError


def answer_text(text: object, *, model: str) -> str:
    """The answer's text, stripped; `EvaluatorError` naming `model` if there is none."""
    if text is None:
        raise EvaluatorError(f"{model} answered with no text")
    if not isinstance(text, str):
        raise EvaluatorError(f"{model} answered with {type(text).__name__}, not text")
    stripped = text.strip()
    if not stripped:
        raise EvaluatorError(f"{model} answered with no text")
    return stripped
