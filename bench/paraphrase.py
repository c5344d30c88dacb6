"""A small personal vault asked in other words: retrieval and ``context()`` per language.

The data (``bench/data/paraphrase/{en,zh}.json``, written for this bench) is one
user's vault of 30 memories per language, as an assistant would keep them (name,
role, preferences, decisions, projects, people, habits), 60 questions answered by
one of them (most share no word with it), and 30 questions no memory answers.

Protocol, public API only: a fresh ``Vault`` per language with the default
configuration (the environment's ``MEMVAULT_*`` settings apply), its model loaded
by one search of another user; every memory is stored with ``Vault.add``; then, at
once (no ``flush()``; ``--flush`` waits for every vector first, to compare), each
question is asked:

* ``Vault.explain(q, limit=10)`` gives the rank of the first gold memory in the
  fused order (``hybrid``) and in each channel (``keyword``: BM25 rank; ``vector``:
  cosine rank, where a match under ``retrieval.min_similarity`` that no keyword
  matched counts as missing): hit@1, hit@5, MRR;
* ``Vault.context(q)`` at its defaults: for an answerable question, whether a gold
  memory is in the block ("injected"); for an unrelated one, whether the block is
  empty. ``mean n`` is how many memories an answerable question's block holds.

The English set also holds a held-out part, written after the gate's defaults were
chosen on the rest and never tuned on; it is reported apart. ``--sweep`` prints how
the relevance gate's settings (``context.margin``, ``band``, ``min_similarity``)
trade the two shares on the calibration rows, replayed from the same explanations
through the engine's own gate; ``--misses`` lists what ``context()`` got wrong.

    .venv/bin/python bench/paraphrase.py [--flush] [--langs en zh] [--sweep] [--misses]
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memvault import Vault, load_config
from memvault.config import ContextConfig
from memvault.results.recall import Explanation, Gate
from memvault.retrieval.relevance import calibration

DATA = Path(__file__).resolve().parent / "data" / "paraphrase"
USER = "bench-user"
MODES = ("keyword", "vector", "hybrid")


def load(lang: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((DATA / f"{lang}.json").read_text(encoding="utf-8"))
    return data


@dataclass
class Asked:
    """One question's outcome."""

    question: str
    kind: str  # "paraphrase" / "lexical" (answerable) or "unrelated"
    split: str  # "calibration" (the gate's defaults were chosen on it) or "held-out"
    ranks: dict[str, int | None] = field(default_factory=dict)  # mode -> rank of first gold
    injected: bool = False  # a gold memory is in context() (answerable)
    empty: bool = False  # context() is "" (unrelated)
    count: int = 0  # memories in the block
    why: Explanation | None = None
    gold: set[str] = field(default_factory=set)


def first_gold(why: Explanation, gold: set[str]) -> dict[str, int | None]:
    ranks: dict[str, int | None] = dict.fromkeys(MODES)
    for c in why.candidates:
        if c.entry.id not in gold:
            continue
        if ranks["hybrid"] is None:
            ranks["hybrid"] = c.rank
        for name in ("keyword", "vector"):
            found = c.channels.get(name)
            if found is not None and (ranks[name] is None or found.rank < (ranks[name] or 0)):
                ranks[name] = found.rank
    return ranks


def run(lang: str, *, flush: bool) -> tuple[list[Asked], str, float]:
    data = load(lang)
    with tempfile.TemporaryDirectory() as tmp:
        config = load_config(home=Path(tmp) / "home")
        with Vault(Path(tmp) / "bench.db", config=config) as vault:
            model = vault.embedder.name if vault.embedder is not None else "none"
            # A running agent has its model loaded already: load it first, so the
            # questions really come right after the writes (not after a model load
            # long enough for the background embedder to finish).
            vault.search("warm-up", user_id="bench-warm-up")
            ids: dict[str, str] = {}
            content: dict[str, str] = {}
            for memory in data["memories"]:
                entry = vault.add(memory["content"], user_id=USER, kind=memory["kind"])
                ids[memory["id"]] = entry.id
                content[entry.id] = entry.content
            if flush:
                vault.flush()
            started = time.perf_counter()
            asked: list[Asked] = []
            held = data.get("heldout", {})
            splits = [
                ("calibration", data["questions"], data["unrelated"]),
                ("held-out", held.get("questions", []), held.get("unrelated", [])),
            ]
            for split, questions, unrelated in splits:
                for item in questions:
                    gold = {ids[g] for g in item["gold"]}
                    block = vault.context(item["q"], user_id=USER)
                    why = vault.explain(item["q"], user_id=USER, limit=10)
                    asked.append(
                        Asked(
                            item["q"],
                            item["type"],
                            split,
                            first_gold(why, gold),
                            injected=any(content[g] in block for g in gold),
                            count=sum(text in block for text in content.values()),
                            why=why,
                            gold=gold,
                        )
                    )
                for item in unrelated:
                    block = vault.context(item["q"], user_id=USER)
                    why = vault.explain(item["q"], user_id=USER, limit=10)
                    asked.append(
                        Asked(
                            item["q"],
                            "unrelated",
                            split,
                            empty=block == "",
                            count=sum(text in block for text in content.values()),
                            why=why,
                        )
                    )
            seconds = time.perf_counter() - started
    return asked, model, seconds


def retrieval_row(asked: list[Asked], mode: str) -> tuple[float, float, float]:
    ranks = [a.ranks[mode] for a in asked]
    hit1 = sum(r == 1 for r in ranks) / len(ranks)
    hit5 = sum(r is not None and r <= 5 for r in ranks) / len(ranks)
    mrr = sum(1 / r for r in ranks if r is not None) / len(ranks)
    return hit1, hit5, mrr


def context_row(asked: list[Asked]) -> tuple[float, float, float]:
    answerable = [a for a in asked if a.kind != "unrelated"]
    unrelated = [a for a in asked if a.kind == "unrelated"]
    injected = sum(a.injected for a in answerable) / len(answerable)
    empty = sum(a.empty for a in unrelated) / len(unrelated)
    mean_n = statistics.fmean(a.count for a in answerable)
    return injected, empty, mean_n


def replay(
    asked: list[Asked], config: ContextConfig, limit: int = 10
) -> tuple[float, float, float]:
    """The context shares (and mean n) under another gate setting, from the recorded
    explanations, with the engine's own gate."""
    hits = empties = answerable = unrelated = chosen_total = 0
    for a in asked:
        why = a.why
        assert why is not None and why.gate is not None
        g = why.gate
        # The sweep sets all three settings, so the model's own values do not enter.
        gate = Gate(g.best, g.background, g.margin, calibration(None, config))
        chosen = {
            c.entry.id
            for c in why.candidates[:limit]
            if c.context != "held" and gate.evidence(c.sources, c.word_match)[0]
        }
        if a.kind == "unrelated":
            unrelated += 1
            empties += not chosen
        else:
            answerable += 1
            hits += bool(chosen & a.gold)
            chosen_total += len(chosen)
    return hits / answerable, empties / unrelated, chosen_total / answerable


def sweep(results: dict[str, list[Asked]]) -> None:
    base = ContextConfig()
    grid = list(
        itertools.product(
            (-0.15, -0.12, -0.09, -0.06, -0.05, -0.04, -0.03, -0.02, -0.01, 0.0, 0.03),
            (0.1, 0.15, 0.2, 0.3, 1.0),
            (0.15, 0.2, 0.25, 0.3),
        )
    )
    first = next(a.why for asked in results.values() for a in asked)
    assert first is not None and first.gate is not None
    now = first.gate.settings  # the defaults the runs above used: the model's own
    print(
        f"\ngate sweep (defaults of this model: margin {now.margin}, band {now.band}, "
        f"min_similarity {now.min_similarity}): the 12 best settings per language, by its "
        "worse share"
    )
    print("| lang | margin | band | min_similarity | injected | empty | mean n |")
    print("|---|---|---|---|---|---|---|")
    joint: dict[tuple[float, float, float], list[float]] = {}
    for lang, asked in results.items():
        rows = []
        for margin, band, floor in grid:
            update = {"margin": margin, "band": band, "min_similarity": floor}
            shares = replay(asked, base.model_copy(update=update))
            rows.append((margin, band, floor, shares))
            joint.setdefault((margin, band, floor), []).extend(shares[:2])
        rows.sort(key=lambda r: (-min(r[3][:2]), -sum(r[3][:2]), r[3][2]))
        if len({r[3] for r in rows}) == 1:
            print(
                f"| {lang} | (any) | (any) | (any) | {rows[0][3][0]:.3f} | "
                f"{rows[0][3][1]:.3f} | {rows[0][3][2]:.1f} |"
            )
            continue
        for margin, band, floor, (injected, empty, mean_n) in rows[:12]:
            print(
                f"| {lang} | {margin} | {band} | {floor} | {injected:.3f} | {empty:.3f} | "
                f"{mean_n:.1f} |"
            )
    if len(results) > 1:
        # One setting serves every language: rank by the worst share over all of them.
        print("\none setting for every language, by the worst share of any (the 8 best)")
        print("| margin | band | min_similarity | worst share | injected, empty per lang |")
        print("|---|---|---|---|---|")
        ranked = sorted(joint.items(), key=lambda kv: (-min(kv[1]), -sum(kv[1])))
        for (margin, band, floor), shares in ranked[:8]:
            listed = ", ".join(f"{x:.3f}" for x in shares)
            print(f"| {margin} | {band} | {floor} | {min(shares):.3f} | {listed} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--langs", nargs="+", default=["en", "zh"], choices=["en", "zh"])
    parser.add_argument("--flush", action="store_true", help="wait for every vector first")
    parser.add_argument("--sweep", action="store_true", help="also sweep the gate's settings")
    parser.add_argument("--misses", action="store_true", help="list what context() got wrong")
    args = parser.parse_args()
    mode = "after flush()" if args.flush else "immediately after writing (no flush)"
    results: dict[str, list[Asked]] = {}
    print(f"paraphrase bench, {mode}")
    print()
    print("| lang | model | questions | channel | hit@1 | hit@5 | MRR |")
    print("|---|---|---|---|---|---|---|")
    contexts = []
    for lang in args.langs:
        asked, model, seconds = run(lang, flush=args.flush)
        results[lang] = [a for a in asked if a.split == "calibration"]
        for split in ("calibration", "held-out"):
            answerable = [a for a in asked if a.kind != "unrelated" and a.split == split]
            if not answerable:
                continue
            subsets = [(answerable, split)]
            if split == "calibration":
                paraphrases = [a for a in answerable if a.kind == "paraphrase"]
                subsets.append((paraphrases, f"{split}, paraphrase"))
            for subset, label in subsets:
                for channel in MODES:
                    h1, h5, mrr = retrieval_row(subset, channel)
                    row = f"| {lang} | {model} | {label} ({len(subset)}) | {channel} |"
                    print(f"{row} {h1:.3f} | {h5:.3f} | {mrr:.3f} |")
        contexts.append((lang, model, asked, seconds))
    print()
    print("| lang | model | questions | gold injected (answerable) | empty (unrelated) | mean n |")
    print("|---|---|---|---|---|---|")
    for lang, model, asked, _seconds in contexts:
        for split in ("calibration", "held-out"):
            part = [a for a in asked if a.split == split]
            if not part:
                continue
            injected, empty, mean_n = context_row(part)
            n_ans = sum(a.kind != "unrelated" for a in part)
            n_un = len(part) - n_ans
            print(
                f"| {lang} | {model} | {split} | {injected:.3f} of {n_ans} | "
                f"{empty:.3f} of {n_un} | {mean_n:.1f} |"
            )
    if args.misses:
        for lang, _, asked, _ in contexts:
            print(f"\ncontext() misses, {lang}:")
            for a in asked:
                wrong = (a.kind == "unrelated" and not a.empty) or (
                    a.kind != "unrelated" and not a.injected
                )
                if wrong and a.why is not None and a.why.gate is not None:
                    g = a.why.gate
                    margin = "-" if g.margin is None else f"{g.margin:+.3f}"
                    best = "-" if g.best is None else f"{g.best:.3f}"
                    print(
                        f"  [{a.split}, {a.kind}] margin {margin} best {best} "
                        f"rank {a.ranks.get('hybrid')}"
                        f" n={a.count}: {a.question}"
                    )
    if args.sweep:
        sweep(results)


if __name__ == "__main__":
    main()
