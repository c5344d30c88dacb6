"""Every development set through the public API, beside plain baselines, per split.

Why: a ranking tuned on one data set can fall below a plain baseline on another shape
of data or in another language. This runner puts memvault's default search next to
the plain methods a user could write in an afternoon, on four sets of different shape
and language, and reports every split separately (the ``test`` splits are held out:
nothing in memvault was tuned on them).

Sets (each user's memory is one user of one vault; every turn is stored as an
integration stores it: content, session id, speaker, session date, through
``Vault.add_many``; no context, ids or hints built here):

* ``locomo``: LoCoMo (``../shared/bench/data/locomo``, read in place); conversations 0-4
  are ``dev``, 5-9 ``test``. Gold: the evidence turns of QA categories 1-4.
* ``lme``: LongMemEval-S, development half (``../shared/bench/data/longmemeval``); each
  question is one user with its ~50-session history; gold: the ``has_answer`` turns
  (abstention questions have none and are left out). A sample of ``--lme`` questions,
  stratified by type; a question is ``test`` when ``sha1(question_id)`` is 0 mod 3.
* ``shapes``: ``bench/data/shapes.json``: assistant-heavy English chats, paraphrased
  questions, cue/trigger pairs; its ``split`` field.
* ``zh``: ``bench/data/zh.json``: Chinese daily-life chats: many similar events,
  paraphrased questions, multi-turn decisions, the assistant's own answers; its
  ``split`` field.

Rows, each ranking the same user's turns for the same question:

* ``bm25``: plain BM25 (k1 1.2, b 0.75) over lower-cased words less English stop
  words, CJK as character bigrams: the baseline a user writes in 40 lines;
* ``dense-minilm``, ``dense-e5``: exact cosine with each local model alone (e5 reads the
  first ``E5_MAX_CHARS`` characters of a turn, as memvault's default does; ``--no-e5``
  names sets where it is left out: on LongMemEval's long English turns e5 costs about
  0.2 s a turn on this machine, an hour for the sample, and the default never uses it
  for English);
* ``keyword``, ``vector``: each of memvault's channels alone (its order inside the
  default search, from ``Vault.explain``);
* ``keyword-nosession``: the keyword channel of a keyword-only vault where the same
  turns are stored without their session id (so no neighbour context is indexed): the
  other way to store them, to see what conversation context does;
* ``fusion``: the channels fused, before the second stage;
* ``default``: ``Vault.search`` as configured by default.

Metrics: recall@5 and @10 (share of a question's gold turns in the top k), hit@5, MRR
(first gold turn), and for ``default`` budget recall: the share of gold turns inside the
block ``Vault.context`` returns at its default budget.

    PYTHONPATH=src .venv/bin/python bench/recall_suite.py [--sets locomo lme shapes zh]
        [--lme 60] [--cache /tmp/mv-cache] [--dump /tmp/cands.pkl] [--set a.b=v]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import lzma
import math
import pickle
import re
import statistics
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from common import CachedEmbedder, parse_sets
from memvault import Vault, load_config
from memvault.embed.bilingual import E5_MAX_CHARS, BilingualEmbedder
from memvault.embed.local import LocalEmbedder
from memvault.embed.multilingual import MultilingualEmbedder
from memvault.render import render_entry
from shapes import LOCOMO, SHAPES, Corpus, Question, load_locomo, load_shapes, metrics

HERE = Path(__file__).resolve().parent
ZH = HERE / "data" / "zh.json"
LME = LOCOMO.parents[1] / "longmemeval" / "longmemeval_s_dev.jsonl.xz"
DEPTH = 50
ROWS = (
    "bm25",
    "dense-minilm",
    "dense-e5",
    "keyword",
    "keyword-nosession",
    "vector",
    "fusion",
    "default",
)
METRICS = ("r5", "r10", "h5", "mrr")


# -- data --------------------------------------------------------------------------


def lme_split(question_id: str) -> str:
    digest = int(hashlib.sha1(question_id.encode("utf-8")).hexdigest(), 16)
    return "test" if digest % 3 == 0 else "dev"


def _lme_date(raw: str) -> str:
    """LongMemEval's '2023/05/20 (Sat) 02:21' -> '20 May 2023'."""
    m = re.match(r"(\d{4})/(\d{2})/(\d{2})", raw or "")
    if not m:
        return raw or ""
    months = "January February March April May June July August September October November December"
    return f"{int(m.group(3))} {months.split()[int(m.group(2)) - 1]} {m.group(1)}"


def load_lme(path: Path, count: int) -> list[Corpus]:
    """``count`` questions, as many of each type as fit, in ``sha1(question_id)`` order."""
    with lzma.open(path, "rt", encoding="utf-8") as f:
        items = [json.loads(line) for line in f]
    items = [q for q in items if not q["question_id"].endswith("_abs")]
    items.sort(key=lambda q: hashlib.sha1(q["question_id"].encode()).hexdigest())
    by_type: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for q in items:
        by_type[q["question_type"]].append(q)
    chosen: list[dict[str, Any]] = []
    while len(chosen) < count and any(by_type.values()):
        for kind in sorted(by_type):
            if by_type[kind] and len(chosen) < count:
                chosen.append(by_type[kind].pop(0))
    out = []
    for q in chosen:
        records: list[dict[str, Any]] = []
        gold: list[str] = []
        for s, (sid, date, turns) in enumerate(
            zip(q["haystack_session_ids"], q["haystack_dates"], q["haystack_sessions"], strict=True)
        ):
            for t, turn in enumerate(turns):
                ref = f"{s}:{t}"
                if not turn["content"].strip():
                    continue  # an empty turn: nothing to remember (the engine refuses it)
                if turn.get("has_answer"):
                    gold.append(ref)
                records.append(
                    {
                        "content": turn["content"],
                        "kind": "user",
                        "mem_class": "source_archive",
                        "session_id": str(sid),
                        "metadata": {"speaker": turn["role"], "date": _lme_date(date), "ref": ref},
                    }
                )
        if not gold:
            continue
        split = lme_split(q["question_id"])
        question = Question(q["question"], gold, q["question_type"], split)
        out.append(Corpus(f"lme-{q['question_id']}", records, [question]))
    return out


LOADERS = {
    "locomo": lambda args: load_locomo(LOCOMO),
    "lme": lambda args: load_lme(LME, args.lme),
    "shapes": lambda args: load_shapes(SHAPES),
    "zh": lambda args: load_shapes(ZH),
}


# -- plain baselines ----------------------------------------------------------------

_STOP = frozenset(
    "a an the and or but if of at by for with about against between into through during "
    "before after above below to from up down in out on off over under again further then "
    "once here there when where why how all any both each few more most other some such no "
    "nor not only own same so than too very s t can will just don should now i me my myself "
    "we our ours ourselves you your yours yourself he him his himself she her hers herself it "
    "its itself they them their theirs themselves what which who whom this that these those "
    "am is are was were be been being have has had having do does did doing would could".split()
)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+")
_LATIN = re.compile(r"[^\W_]+")


def plain_tokens(text: str) -> list[str]:
    """Lower-cased words less stop words; CJK runs as character bigrams."""
    out: list[str] = []
    for run in _CJK.findall(text):
        out.extend([run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)])
    rest = _CJK.sub(" ", text.lower())
    out.extend(w for w in _LATIN.findall(rest) if w not in _STOP)
    return out


def bm25_rank(docs: Sequence[str], query: str, k1: float = 1.2, b: float = 0.75) -> list[int]:
    toks = [plain_tokens(d) for d in docs]
    n = len(docs)
    avg = sum(map(len, toks)) / max(1, n)
    df: Counter[str] = Counter()
    for t in toks:
        df.update(set(t))
    q = set(plain_tokens(query))
    scores = np.zeros(n)
    for i, t in enumerate(toks):
        tf = Counter(w for w in t if w in q)
        for w, f in tf.items():
            idf = math.log(1 + (n - df[w] + 0.5) / (df[w] + 0.5))
            scores[i] += idf * f * (k1 + 1) / (f + k1 * (1 - b + b * len(t) / avg))
    return [int(i) for i in np.argsort(-scores, kind="stable") if scores[i] > 0]


# -- the run -------------------------------------------------------------------------


@dataclass
class Result:
    user: str
    group: str
    split: str
    rows: dict[str, dict[str, float]] = field(default_factory=dict)
    budget: float = 0.0


def _ref(candidate: Any) -> str:
    return str(candidate.entry.metadata["ref"])


def run_set(
    name: str,
    corpora: list[Corpus],
    embedders: dict[str, CachedEmbedder],
    default: BilingualEmbedder,
    tmp: Path,
    overrides: dict[str, Any],
    dump: list[dict[str, Any]],
) -> tuple[list[Result], list[float]]:
    config = load_config(environ={}, home=tmp, **json.loads(json.dumps(overrides)))
    db = tmp / f"{name}.db"
    results: list[Result] = []
    latencies: list[float] = []
    texts = {
        c.user_id: [r["content"] for r in c.records] for c in corpora
    }  # stored text, for the plain rows
    # The same turns without their session ids, keyword only: no neighbour context.
    bare: dict[tuple[str, str], list[str]] = {}
    plain = load_config(environ={}, home=tmp, embedding={"provider": "none"})
    with Vault(tmp / f"{name}-bare.db", config=plain) as alone:
        for corpus in corpora:
            sessionless = [
                {k: v for k, v in r.items() if k != "session_id"} for r in corpus.records
            ]
            for start in range(0, len(sessionless), 256):
                alone.add_many(sessionless[start : start + 256], user_id=corpus.user_id)
            for q in corpus.questions:
                hits = alone.search(q.text, user_id=corpus.user_id, limit=DEPTH)
                bare[corpus.user_id, q.text] = [str(h.entry.metadata["ref"]) for h in hits]
    with Vault(db, config=config, embedder=default) as vault:
        for corpus in corpora:
            for start in range(0, len(corpus.records), 256):
                vault.add_many(corpus.records[start : start + 256], user_id=corpus.user_id)
        vault.flush()
        for corpus in corpora:
            refs = [r["metadata"]["ref"] for r in corpus.records]
            dense: dict[str, np.ndarray] = {}
            for model, emb in embedders.items():
                docs = texts[corpus.user_id]
                if model == "e5":
                    docs = [d[:E5_MAX_CHARS] for d in docs]
                dense[model] = np.asarray(emb.embed(docs))
            for q in corpus.questions:
                res = Result(corpus.user_id, q.group, q.split)
                bm = bm25_rank(texts[corpus.user_id], q.text)
                res.rows["bm25"] = metrics([refs[i] for i in bm], q.gold)
                for model, matrix in dense.items():
                    qv = np.asarray(embedders[model].embed_queries([q.text]))[0]
                    order = np.argsort(-(matrix @ qv), kind="stable")
                    res.rows[f"dense-{'minilm' if model == 'minilm' else 'e5'}"] = metrics(
                        [refs[i] for i in order], q.gold
                    )
                t0 = time.perf_counter()
                vault.search(q.text, user_id=corpus.user_id, limit=10)
                latencies.append((time.perf_counter() - t0) * 1000)
                ex = vault.explain(q.text, user_id=corpus.user_id, limit=DEPTH)
                for channel in ("keyword", "vector"):
                    ranked = sorted(
                        (c for c in ex.candidates if channel in c.channels),
                        key=lambda c, n=channel: c.channels[n].rank,  # type: ignore[misc]
                    )
                    res.rows[channel] = metrics([_ref(c) for c in ranked], q.gold)
                res.rows["keyword-nosession"] = metrics(bare[corpus.user_id, q.text], q.gold)
                res.rows["fusion"] = metrics(
                    [_ref(c) for c in sorted(ex.candidates, key=lambda c: c.fusion_rank)], q.gold
                )
                res.rows["default"] = metrics([_ref(c) for c in ex.candidates], q.gold)
                block = vault.context(q.text, user_id=corpus.user_id)
                hits = vault.context_hits(q.text, user_id=corpus.user_id)
                inside = {str(h.entry.metadata["ref"]) for h in hits if render_entry(h) in block}
                res.budget = len(inside & set(q.gold)) / len(q.gold)
                results.append(res)
                dump.append(
                    {
                        "set": name,
                        "user": corpus.user_id,
                        "split": q.split,
                        "group": q.group,
                        "query": q.text,
                        "gold": list(q.gold),
                        "n_gold": len(q.gold),
                        "candidates": [
                            {
                                "ref": _ref(c),
                                "channels": {n: [s.rank, s.score] for n, s in c.channels.items()},
                                "fusion_rank": c.fusion_rank,
                                "features": c.features,
                            }
                            for c in ex.candidates
                        ],
                    }
                )
    return results, latencies


def table(name: str, results: list[Result], latencies: list[float]) -> None:
    print(f"\n### {name}: {len(results)} questions\n")
    print("| split | row | recall@5 | recall@10 | hit@5 | MRR | budget recall |")
    print("|---|---|---|---|---|---|---|")
    for split in ("dev", "test"):
        rs = [r for r in results if r.split == split]
        if not rs:
            continue
        for row in ROWS:
            if row not in rs[0].rows:
                continue
            avg = {m: statistics.fmean(r.rows[row][m] for r in rs) for m in METRICS}
            budget = f"{statistics.fmean(r.budget for r in rs):.3f}" if row == "default" else ""
            print(
                f"| {split} ({len(rs)}) | {row} | {avg['r5']:.3f} | {avg['r10']:.3f} | "
                f"{avg['h5']:.3f} | {avg['mrr']:.3f} | {budget} |"
            )
    print("\nrecall@10 by group, all splits\n")
    print("| group | n | " + " | ".join(ROWS) + " |")
    print("|---|---|" + "---|" * len(ROWS))
    for g in sorted({r.group for r in results}):
        rs = [r for r in results if r.group == g]
        cells = " | ".join(
            f"{statistics.fmean(r.rows[row]['r10'] for r in rs):.3f}" if row in rs[0].rows else ""
            for row in ROWS
        )
        print(f"| {g} | {len(rs)} | {cells} |")
    if latencies:
        ordered = sorted(latencies)
        p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
        print(f"\nsearch p50 {statistics.median(latencies):.1f} ms, p95 {p95:.1f} ms")


def verdict(all_results: dict[str, list[Result]]) -> bool:
    """Whether ``default`` is >= every other row on recall@10 and MRR on each test split."""
    ok = True
    print("\n### default vs the best other row, held-out (test) splits\n")
    print("| set | metric | default | best other | row | holds |")
    print("|---|---|---|---|---|---|")
    for name, results in all_results.items():
        rs = [r for r in results if r.split == "test"]
        if not rs:
            continue
        for m in ("r10", "mrr"):
            means = {
                row: statistics.fmean(r.rows[row][m] for r in rs)
                for row in ROWS
                if row in rs[0].rows
            }
            mine = means.pop("default")
            best_row = max(means, key=lambda k: means[k])
            holds = mine >= means[best_row] - 1e-9
            ok &= holds
            print(
                f"| {name} | {m} | {mine:.3f} | {means[best_row]:.3f} | {best_row} | "
                f"{'yes' if holds else 'NO'} |"
            )
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sets", nargs="+", default=["locomo", "lme", "shapes", "zh"])
    parser.add_argument("--lme", type=int, default=60, help="LongMemEval questions to sample")
    parser.add_argument("--cache", type=Path, default=None, help="folder of vector caches")
    parser.add_argument("--dump", type=Path, default=None, help="pickle of every candidate")
    parser.add_argument("--set", action="append", default=[], help="config override a.b=value")
    parser.add_argument("--no-e5", nargs="*", default=["lme"], help="sets without dense-e5")
    args = parser.parse_args()
    if args.cache is not None:
        args.cache.mkdir(parents=True, exist_ok=True)

    def cached(model: Any, file: str) -> CachedEmbedder:
        return CachedEmbedder(model, None if args.cache is None else args.cache / file)

    embedders = {
        "minilm": cached(LocalEmbedder(), "minilm.pkl"),
        "e5": cached(MultilingualEmbedder(), "e5.pkl"),
    }
    default = BilingualEmbedder()
    # The default embedder's two models, with the same caches: the same texts are never
    # embedded twice, and a stored vector is what the model gives (queries are not cached).
    default.minilm = embedders["minilm"]  # type: ignore[assignment]
    default.e5 = embedders["e5"]  # type: ignore[assignment]
    dumps: list[dict[str, Any]] = []
    all_results: dict[str, list[Result]] = {}
    stamp = time.strftime("%Y-%m-%d")
    print(f"recall suite, measured {stamp}, default configuration", end="")
    print(f" with overrides {args.set}" if args.set else "")
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.sets:
            corpora = LOADERS[name](args)
            baselines = {m: e for m, e in embedders.items() if m != "e5" or name not in args.no_e5}
            results, latencies = run_set(
                name, corpora, baselines, default, Path(tmp), parse_sets(args.set), dumps
            )
            for emb in embedders.values():
                emb.save()
            all_results[name] = results
            table(name, results, latencies)
            if args.dump is not None:  # after each set: a long run cut short keeps its part
                args.dump.write_bytes(pickle.dumps(dumps))
    ok = verdict(all_results)
    print(f"\ndefault >= every row on every held-out split: {'yes' if ok else 'NO'}")


if __name__ == "__main__":
    main()
