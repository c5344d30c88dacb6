"""Every channel alone beside the fused ranking, on two differently shaped sets.

Why: fusion weights tuned on one benchmark can make hybrid search worse than a single
channel on data of another shape. This runner measures keyword-only, vector-only and
hybrid ranking side by side on

* ``locomo`` — LoCoMo (read in place from ``../shared/bench/data/locomo``, never
  copied), stored the way an integration stores turns: content, speaker, session id
  and session date, no context built by the benchmark; conversations 0-4 are the dev
  half, 5-9 the test half;
* ``shapes`` — ``bench/data/shapes.json`` (made by ``bench/data/make_shapes.py``):
  assistant-heavy multi-session conversations of several users with paraphrased
  questions and cue/trigger pairs; users ``u0``-``u2`` are the dev half, the rest test.

Everything goes through the public API: ``Vault.add_many`` to store, ``Vault.explain``
to search (it is the search's own computation, and it keeps each channel's rank and
each candidate's place in the fused order, so one hybrid search yields every ranking:
keyword order, vector order, the fused order (``fusion``, what ``retrieval.rerank =
false`` returns) and the final order (``hybrid``: reranked by the second stage under
the default configuration)). Query latency is that of ``Vault.search`` (query
embedding included) for the first ``TIMED`` queries of each set.

    PYTHONPATH=src .venv/bin/python bench/shapes.py [--sets shapes locomo] [--set a.b=v]
        [--embed-cache /tmp/x.pkl] [--dump /tmp/candidates.json]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from common import CachedEmbedder, parse_sets, session_date
from memvault import Vault, load_config
from memvault.embed.base import Embedder

HERE = Path(__file__).resolve().parent
# The shared data sits beside the checkout (or beside the folder of worktrees).
LOCOMO = next(
    (
        p / "shared" / "bench" / "data" / "locomo" / "locomo10.json"
        for p in HERE.parents
        if (p / "shared" / "bench" / "data" / "locomo" / "locomo10.json").exists()
    ),
    HERE.parents[1] / "shared" / "bench" / "data" / "locomo" / "locomo10.json",
)
SHAPES = HERE / "data" / "shapes.json"
MODES = ("keyword", "vector", "fusion", "hybrid")
DEPTH = 50
TIMED = 100  # searches timed per set; the rest reuse cached query vectors (a loaded
# machine embeds one query at a time slowly, and the rankings do not depend on it)


@dataclass
class Question:
    text: str
    gold: list[str]
    group: str
    split: str


@dataclass
class Corpus:
    """One user's memory: the records to store (``metadata.ref`` names each) and its questions."""

    user_id: str
    records: list[dict[str, Any]]
    questions: list[Question] = field(default_factory=list)


def load_locomo(path: Path) -> list[Corpus]:
    """Each conversation one user; each turn one record; QA of categories 1-4 as questions."""
    categories = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
    data = json.loads(path.read_text(encoding="utf-8"))
    out = []
    for ci, item in enumerate(data):
        conv = item["conversation"]
        sessions = sorted(int(k.split("_")[1]) for k in conv if re.fullmatch(r"session_\d+", k))
        records = []
        for s in sessions:
            date = session_date(conv.get(f"session_{s}_date_time", ""))
            for turn in conv[f"session_{s}"]:
                text = turn["text"]
                if turn.get("blip_caption"):
                    text += f" [shares a photo: {turn['blip_caption']}]"
                records.append(
                    {
                        "content": text,
                        "kind": "user",
                        "mem_class": "source_archive",
                        "session_id": f"s{s}",
                        "metadata": {
                            "speaker": turn["speaker"],
                            "date": date,
                            "ref": turn["dia_id"],
                        },
                    }
                )
        known = {r["metadata"]["ref"] for r in records}
        corpus = Corpus(f"conv{ci}", records)
        for qa in item["qa"]:
            if qa.get("category") not in categories:
                continue
            gold: list[str] = []
            for ev in qa.get("evidence", []):
                for tok in re.split(r"[;,\s]+", ev):
                    m = re.fullmatch(r"D:?(\d+):0*(\d+)", tok.strip())
                    ref = f"D{m.group(1)}:{m.group(2)}" if m else ""
                    if ref in known and ref not in gold:
                        gold.append(ref)
            if gold:
                split = "dev" if ci < 5 else "test"
                corpus.questions.append(
                    Question(qa["question"], gold, categories[qa["category"]], split)
                )
        out.append(corpus)
    return out


def load_shapes(path: Path) -> list[Corpus]:
    data = json.loads(path.read_text(encoding="utf-8"))
    out = []
    for user in data["users"]:
        records = [
            {
                "content": t["content"],
                "kind": "user",
                "mem_class": "source_archive",
                "session_id": t["session"],
                "metadata": {"speaker": t["speaker"], "date": t["date"], "ref": t["ref"]},
            }
            for t in user["turns"]
        ]
        qs = [Question(q["text"], q["gold"], q["group"], user["split"]) for q in user["questions"]]
        out.append(Corpus(user["id"], records, qs))
    return out


def metrics(ranked: list[str], gold: list[str]) -> dict[str, float]:
    g = set(gold)
    rr = next((1.0 / r for r, ref in enumerate(ranked, 1) if ref in g), 0.0)
    return {
        "r5": len(g & set(ranked[:5])) / len(g),
        "r10": len(g & set(ranked[:10])) / len(g),
        "h5": float(bool(g & set(ranked[:5]))),
        "mrr": rr,
    }


def run(
    corpora: list[Corpus], embedder: Embedder, tmp: Path, sets: dict[str, Any], dump: list[Any]
) -> tuple[list[dict[str, Any]], list[float]]:
    overrides: dict[str, Any] = json.loads(json.dumps(sets))
    overrides.setdefault("embedding", {})["background"] = False
    config = load_config(environ={}, home=tmp, **overrides)
    db = tmp / f"run{len(list(tmp.iterdir()))}.db"
    rows: list[dict[str, Any]] = []
    latencies: list[float] = []
    with Vault(db, config=config, embedder=embedder) as vault:
        for corpus in corpora:
            for start in range(0, len(corpus.records), 256):
                vault.add_many(corpus.records[start : start + 256], user_id=corpus.user_id)
        vault.flush()
        if isinstance(embedder, CachedEmbedder):  # every question in one batch, up front
            embedder.embed([q.text for c in corpora for q in c.questions])
        timed = 0
        for corpus in corpora:
            for q in corpus.questions:
                if timed < TIMED:
                    # A real search, query embedding included, for the latency figures.
                    if isinstance(embedder, CachedEmbedder):
                        embedder.passthrough = True
                    t0 = time.perf_counter()
                    vault.search(q.text, user_id=corpus.user_id, limit=10)
                    latencies.append((time.perf_counter() - t0) * 1000)
                    timed += 1
                    if isinstance(embedder, CachedEmbedder):
                        embedder.passthrough = False
                ex = vault.explain(q.text, user_id=corpus.user_id, limit=DEPTH)
                ref: Callable[[Any], str] = lambda c: c.entry.metadata["ref"]  # noqa: E731
                by = {
                    name: [
                        ref(c)
                        for c in sorted(
                            (c for c in ex.candidates if name in c.channels),
                            key=lambda c, n=name: c.channels[n].rank,  # type: ignore[misc]
                        )
                    ]
                    for name in ("keyword", "vector")
                }
                # The fused order before the second stage, as the engine recorded it;
                # ``hybrid`` is the search's final order (reranked by default).
                by["fusion"] = [ref(c) for c in sorted(ex.candidates, key=lambda c: c.fusion_rank)]
                by["hybrid"] = [ref(c) for c in ex.candidates]
                row = {"user": corpus.user_id, "group": q.group, "split": q.split}
                for mode in MODES:
                    row[mode] = metrics(by[mode], q.gold)
                rows.append(row)
                dump.append(
                    {
                        "user": corpus.user_id,
                        "split": q.split,
                        "group": q.group,
                        "query": q.text,
                        "gold": q.gold,
                        "candidates": [
                            {
                                "ref": ref(c),
                                "channels": {n: [s.rank, s.score] for n, s in c.channels.items()},
                                "fused": c.fused,
                                "boost": c.importance * c.recency * c.tier * c.person,
                                "speaker": c.entry.metadata.get("speaker"),
                                "content": c.entry.content,
                            }
                            for c in ex.candidates
                        ],
                    }
                )
    return rows, latencies


def table(name: str, rows: list[dict[str, Any]], latencies: list[float]) -> None:
    print(f"\n{name}: {len(rows)} queries\n")
    print("| split | mode | recall@5 | recall@10 | hit@5 | MRR |")
    print("|---|---|---|---|---|---|")
    for split in ("dev", "test", "all"):
        qs = [r for r in rows if split == "all" or r["split"] == split]
        if not qs:
            continue
        for mode in MODES:
            avg = {k: statistics.fmean(r[mode][k] for r in qs) for k in ("r5", "r10", "h5", "mrr")}
            print(
                f"| {split} ({len(qs)}) | {mode} | {avg['r5']:.3f} | {avg['r10']:.3f} | "
                f"{avg['h5']:.3f} | {avg['mrr']:.3f} |"
            )
    groups = sorted({r["group"] for r in rows})
    print("\nrecall@10 by group (all)\n")
    print("| group | n | " + " | ".join(MODES) + " |")
    print("|---|---|" + "---|" * len(MODES))
    for g in groups:
        qs = [r for r in rows if r["group"] == g]
        cells = " | ".join(f"{statistics.fmean(r[m]['r10'] for r in qs):.3f}" for m in MODES)
        print(f"| {g} | {len(qs)} | {cells} |")
    ordered = sorted(latencies)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    print(f"\nhybrid search p50 {statistics.median(latencies):.1f} ms, p95 {p95:.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sets", nargs="+", default=["shapes", "locomo"])
    parser.add_argument("--set", action="append", default=[], help="config override a.b=value")
    parser.add_argument("--embed-cache", type=Path, default=None, help="pickle of stored vectors")
    parser.add_argument("--dump", type=Path, default=None, help="write every candidate as JSON")
    parser.add_argument("--locomo", type=Path, default=LOCOMO)
    args = parser.parse_args()

    from memvault.embed.local import LocalEmbedder

    local = LocalEmbedder()
    embedder = CachedEmbedder(local, args.embed_cache)
    loaders = {"shapes": lambda: load_shapes(SHAPES), "locomo": lambda: load_locomo(args.locomo)}
    dumps: dict[str, list[Any]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.sets:
            dumps[name] = []
            rows, latencies = run(
                loaders[name](), embedder, Path(tmp), parse_sets(args.set), dumps[name]
            )
            embedder.save()
            table(name, rows, latencies)
    if args.dump is not None:
        args.dump.write_text(json.dumps(dumps), encoding="utf-8")


if __name__ == "__main__":
    main()
