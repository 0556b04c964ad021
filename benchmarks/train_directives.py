"""Fit the directive detector's logistic regression and write its weights (hindsight_core/safety/directive_weights.py).

    python -m benchmarks.train_directives [--shared ../shared/benchmarks] [--dry-run]

Training data, agent and tool writes only (the detector scores nothing else):
  attacks: the hand-written attacks of every split except holdout3 (kept out so that it stays an
           out-of-sample check). BIPIA is never read here: it is the benchmark's untouched test set;
  benign:  the hand-written benign agent/tool texts of every split except holdout3, 600 templated tool
           outputs (corpus.generated_tool_outputs: weather, search results, invoices, links, contacts), and
           the LoCoMo turns of conversations 0-4 presented as tool output (5-9 stay out, for the benchmark).
The held-out paraphrases (tests/data/poisoning/heldout.jsonl) are never read here.

Plain numpy: class-balanced log loss with an L2 penalty, full-batch gradient descent. The threshold
is the lowest at which at most 0.25% of the training benign texts, and 0.5% of the tool outputs among them,
are flagged (1% before issue 21: the structural detector now carries recall); tool outputs weigh 4x in the
loss (they are few, and the hard side). Five-fold
cross-validation figures are printed before the final fit on everything.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent

from hindsight_core.safety.audit import normalise  # noqa: E402
from hindsight_core.safety.directives import FEATURES, features  # noqa: E402

#: the attack categories that are orders in plain words (the rest, encodings and delimiters, the rules catch)
DIRECTIVE_SHAPED = ("payment_redirect", "standing_directive", "contact_redirect", "link_redirect", "exfiltration",
                    "tool_hijack", "fake_authority", "instruction_override", "role_hijack")
OUT = ROOT / "hindsight_core" / "safety" / "directive_weights.py"
MAX_BENIGN_FLAGGED, MAX_TOOL_FLAGGED, TOOL_WEIGHT = 0.0025, 0.005, 4.0
L2, STEPS, RATE = 0.01, 4000, 0.5


def load_corpus():
    path = ROOT / "tests" / "data" / "poisoning" / "corpus.py"
    spec = importlib.util.spec_from_file_location("hindsight_poisoning_corpus", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def conversation(turn) -> str:
    """The LoCoMo conversation a turn belongs to (its id is locomo-<sample id>-<turn id>)."""
    return turn.id.rsplit("-", 1)[0]


def dataset(corpus, shared: Path, *, without: str | None = None) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Features and labels; `without` leaves one attack family (category) out, for leave-one-family-out."""
    untrusted = ("agent", "tool")
    attacks = [a for a in corpus.hand_written_attacks() if a.source in untrusted and a.split != "holdout3"
               and a.category in DIRECTIVE_SHAPED and a.category != without]
    benign = [b for b in corpus.hand_written_benign() if b.source in untrusted and b.split != "holdout3"]
    benign += corpus.generated_tool_outputs()
    turns = corpus.locomo_turns(shared, source="tool")
    first_five = list(dict.fromkeys(conversation(t) for t in turns))[:5]
    benign += [t for t in turns if conversation(t) in first_five]
    texts = [i.text for i in attacks + benign]
    x = np.array([[features(normalise(t).text)[0][f] for f in FEATURES] for t in texts])
    y = np.array([1.0] * len(attacks) + [0.0] * len(benign))
    tool_output = np.array([i.category != "locomo" and i.kind == "benign" for i in attacks + benign])
    return x, y, texts, tool_output


def fit(x: np.ndarray, y: np.ndarray, hard: np.ndarray) -> tuple[float, np.ndarray]:
    """Class-balanced logistic regression with an L2 penalty on the weights (not the bias).

    The `hard` negatives (tool output, not conversation) weigh TOOL_WEIGHT times more within their
    class: they are few, and they are what the detector must learn to leave alone.
    """
    weight = np.where(y == 1, 1.0, np.where(hard, TOOL_WEIGHT, 1.0))
    weight = np.where(y == 1, weight * 0.5 / weight[y == 1].sum(), weight * 0.5 / weight[y == 0].sum()) * len(y)
    w, b = np.zeros(x.shape[1]), 0.0
    for _ in range(STEPS):
        p = 1 / (1 + np.exp(-(x @ w + b)))
        g = weight * (p - y) / len(y)
        w -= RATE * (x.T @ g + L2 * w)
        b -= RATE * g.sum()
    return b, w


def _lowest(p: np.ndarray, share: float) -> float:
    allowed = int(share * len(p))
    ordered = np.sort(p)[::-1]
    return float(ordered[allowed] + 1e-6) if len(ordered) > allowed else 0.0


def threshold_for(p_benign: np.ndarray, hard: np.ndarray) -> float:
    """The lowest threshold flagging at most MAX_BENIGN_FLAGGED of all benign texts and MAX_TOOL_FLAGGED
    of the tool outputs among them."""
    return min(0.99, max(0.5, _lowest(p_benign, MAX_BENIGN_FLAGGED), _lowest(p_benign[hard], MAX_TOOL_FLAGGED)))


def predict(b: float, w: np.ndarray, x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-(x @ w + b)))


def cross_validate(x: np.ndarray, y: np.ndarray, hard: np.ndarray, folds: int = 5) -> tuple[float, float]:
    order = np.random.default_rng(0).permutation(len(y))
    caught = flagged = 0
    for k in range(folds):
        test = order[k::folds]
        train = np.setdiff1d(order, test)
        b, w = fit(x[train], y[train], hard[train])
        benign = y[train] == 0
        t = threshold_for(predict(b, w, x[train][benign]), hard[train][benign])
        p = predict(b, w, x[test])
        caught += int(((p >= t) & (y[test] == 1)).sum())
        flagged += int(((p >= t) & (y[test] == 0)).sum())
    return caught / y.sum(), flagged / (len(y) - y.sum())


def fit_model(corpus, shared: Path, *, without: str | None = None) -> tuple[float, float, dict[str, float]]:
    """(bias, threshold, weights) fitted on everything but the attack family `without`."""
    x, y, _, hard = dataset(corpus, shared, without=without)
    b, w = fit(x, y, hard)
    t = threshold_for(predict(b, w, x)[y == 0], hard[y == 0])
    return float(b), t, {name: float(value) for name, value in zip(FEATURES, w)}


def main(argv: list[str] | None = None) -> int:
    corpus = load_corpus()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=corpus.SHARED_BENCHMARKS)
    parser.add_argument("--dry-run", action="store_true", help="print the figures, write nothing")
    args = parser.parse_args(argv)
    x, y, texts, hard = dataset(corpus, args.shared)
    recall, false_rate = cross_validate(x, y, hard)
    print(f"{int(y.sum())} attacks, {int(len(y) - y.sum())} benign; 5-fold CV (detector alone): "
          f"attacks flagged {recall:.1%}, benign flagged {false_rate:.2%}")
    b, w = fit(x, y, hard)
    p = predict(b, w, x)
    t = threshold_for(p[y == 0], hard[y == 0])
    print(f"fit on all: threshold {t:.3f}; attacks flagged {(p[y == 1] >= t).mean():.1%}, "
          f"benign flagged {(p[y == 0] >= t).mean():.2%}")
    for name, value in sorted(zip(FEATURES, w), key=lambda item: -item[1]):
        print(f"  {name:<20} {value:+.2f}")
    missed = [texts[i] for i in np.flatnonzero((y == 0) & (p >= t))]
    for text in missed[:10]:
        print("  benign flagged:", text[:110].replace("\n", " "))
    if args.dry_run:
        return 0
    rows = "\n".join(f"    {name!r}: {value:.4f}," for name, value in zip(FEATURES, w))
    OUT.write_text(
        '"""Fitted weights of the directive detector (`directives`); written by benchmarks/train_directives.py.\n\n'
        f"Trained on {int(y.sum())} attack and {int(len(y) - y.sum())} benign agent/tool texts; five-fold "
        f"cross-validation\nflagged {recall:.1%} of attacks and {false_rate:.2%} of benign texts. "
        'Regenerate, do not edit.\n"""\n\n'
        f"BIAS = {b:.4f}\nTHRESHOLD = {t:.4f}\nWEIGHTS: dict[str, float] = {{\n{rows}\n}}\n", encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
