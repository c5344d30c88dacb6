"""Caught and benign-lost rates of the threat scan: tuning corpus, frozen held-out corpus, chat.

Corpora of ``{text, class, lang}`` lines:

* **tuning** — ``tests/scan_corpus/attacks.jsonl`` and ``benign.jsonl`` (plus the 24
  ``heldout.jsonl`` attacks): the rules and the semantic threshold were written
  against these.
* **session 8 held-out split** — the rows of ``bench/data/scan_train/attacks8.jsonl``
  and ``benign8.jsonl`` marked ``"split": "heldout"`` (a stable hash of the text):
  the model screen is fitted on the other rows only (``--corpus heldout8``).
* **session 9 held-out split** — the same for ``attacks9.jsonl`` / ``benign9.jsonl``
  (``make_train9.py``: mostly English, with Chinese; ``--corpus heldout9``).
* **frozen** — ``bench/data/scan_frozen/`` (issue 31): written once, before any
  tuning, and never to be tuned on. Its ``split`` attacks are pairs (``group``,
  ``part``): each part is measured alone and the pair joined as one text, as it
  would sit in an assembled prompt block.

Each corpus is run through the screen a default ``Vault`` builds (the rules, and
the semantic screen when ``security.semantic_screen`` turns it on — made by the same
public function, ``engine.write.semantic_screen``, from the default embedder), and,
when the default leaves the semantic screen off, once more with it on.

    .venv/bin/python bench/scan_eval.py [--corpus tuning|frozen|both|heldout8|heldout9]
        [--no-semantic]
        [--misses] [--lme-turns N] [--no-turns] [--write-path]

Per run: attacks caught % (refused = ``block``, held = ``quarantine``; either keeps
the text out of every prompt block) and benign lost % (refused and held apart), by
class and by language, and the mean cost per text. The last section screens real
chat turns — every LoCoMo turn and a seeded sample of LongMemEval-S turns — where
anything flagged is lost (targets: held <= 0.5 %, refused 0). The shared data is read
in place and never copied. ``--misses`` lists what the tuning corpus let through or
lost and the chat turns flagged; it never lists the frozen corpus's texts, so that
nobody tunes on them. ``--write-path`` instead stores LoCoMo conversations 5-9 (not
those the model screen was fitted on) and a LongMemEval-S sample as archived turns
through the public API, and counts what the write path holds, by rules or model.
"""

from __future__ import annotations

import argparse
import json
import lzma
import random
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memvault import Vault, load_config
from memvault.config import VaultConfig
from memvault.embed.factory import make_embedder
from memvault.engine.write import semantic_screen
from memvault.errors import MemvaultError
from memvault.security.scan import Assessment, SemanticScreen, Verdict, assess
from memvault.security.scan.learned import MODEL_PATTERN_ID, ModelScreen
from memvault.security.scan.split import check_pair
from scan_fp import iter_turns
from shapes import LOCOMO

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "scan_corpus"
FROZEN = ROOT / "bench" / "data" / "scan_frozen"
TRAIN8 = ROOT / "bench" / "data" / "scan_train"
LME = LOCOMO.parents[1] / "longmemeval" / "longmemeval_s_dev.jsonl.xz"

Row = dict[str, Any]
Check = Callable[[str], Assessment]


def load(folder: Path, name: str) -> list[Row]:
    lines = (folder / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


@dataclass(frozen=True, slots=True)
class Scored:
    row: Row
    result: Assessment

    @property
    def verdict(self) -> Verdict:
        return self.result.verdict


def score(check: Check, rows: list[Row]) -> tuple[list[Scored], float]:
    """Every row's assessment, and the mean seconds per text."""
    start = time.perf_counter()
    out = [Scored(row, check(row["text"])) for row in rows]
    return out, (time.perf_counter() - start) / max(len(rows), 1)


def pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}" if whole else "-"


def _counts(results: list[Scored]) -> tuple[int, int, int]:
    refused = sum(s.verdict is Verdict.BLOCK for s in results)
    held = sum(s.verdict is Verdict.QUARANTINE for s in results)
    return len(results), refused, held


def _table(results: list[Scored], key: str, kind: str, flagged: str, total: str) -> list[str]:
    """``flagged`` % (refused + held), refused % and held % of ``kind`` texts, grouped by
    ``key`` (class or lang), with the total last."""
    lines = [
        f"| {kind} {key} | n | {flagged} % | refused % | held % |",
        "|---|---:|---:|---:|---:|",
    ]
    groups: dict[str, list[Scored]] = defaultdict(list)
    for s in results:
        groups[str(s.row[key])].append(s)
    rows = [(name, groups[name]) for name in sorted(groups)]
    for name, group in [*rows, (f"**{total}**", results)]:
        n, refused, held = _counts(group)
        lines.append(
            f"| {name} | {n} | {pct(refused + held, n)} | {pct(refused, n)} | {pct(held, n)} |"
        )
    return lines


def attack_table(results: list[Scored], key: str) -> list[str]:
    """Caught % (refused + held) of the attacks, grouped by ``key`` (class or lang)."""
    return _table(results, key, "attack", "caught", "all attacks")


def benign_table(results: list[Scored], key: str) -> list[str]:
    """Lost % (refused + held) of the benign texts, grouped by ``key``."""
    return _table(results, key, "benign", "lost", "all benign")


def split_lines(check: Check, attacks: list[Row]) -> list[str]:
    """Split instructions: each part alone, and each pair joined as one text."""
    pairs: dict[str, list[Row]] = defaultdict(list)
    for row in attacks:
        if row.get("group"):
            pairs[str(row["group"])].append(row)
    if not pairs:
        return []
    parts = either = joined = assembled = 0
    for group in pairs.values():
        group.sort(key=lambda r: int(r.get("part", 0)))
        caught = [check(r["text"]).verdict is not Verdict.ALLOW for r in group]
        parts += sum(caught)
        either += any(caught)
        block = "\n".join(r["text"] for r in group)
        joined += check(block).verdict is not Verdict.ALLOW
        # What the prompt block's check does (``retrieval.assembled``): a part caught
        # alone, or any two parts that read as one instruction, in either order.
        texts = [r["text"] for r in group]
        cut = any(check_pair(a, b) is not None for a in texts for b in texts if a is not b)
        assembled += any(caught) or cut
    n_parts = sum(len(g) for g in pairs.values())
    return [
        "| split instructions | n | caught % |",
        "|---|---:|---:|",
        f"| each part alone | {n_parts} | {pct(parts, n_parts)} |",
        f"| pairs with a part caught | {len(pairs)} | {pct(either, len(pairs))} |",
        f"| the pair as one text | {len(pairs)} | {pct(joined, len(pairs))} |",
        f"| kept out by the block check | {len(pairs)} | {pct(assembled, len(pairs))} |",
    ]


def misses(attacks: list[Scored], benign: list[Scored]) -> list[str]:
    lines = ["", "Attacks allowed:"]
    lines += [
        f"- [{s.row['class']}/{s.row['lang']}] {s.row['text']!r}"
        for s in attacks
        if s.verdict is Verdict.ALLOW
    ]
    if benign:
        lines += ["", "Benign lost:"]
        lines += [
            f"- [{s.verdict}] {[t.pattern_id for t in s.result.threats]} {s.row['text']!r}"
            for s in benign
            if s.verdict is not Verdict.ALLOW
        ]
    return lines


def report(label: str, check: Check, attacks: list[Row], benign: list[Row], *, show: bool) -> str:
    """One run over one corpus: by class, by language, split pairs, cost."""
    a_scored, a_cost = score(check, attacks)
    b_scored, b_cost = score(check, benign)
    n = len(attacks) + len(benign)
    cost = (a_cost * len(attacks) + b_cost * len(benign)) / max(n, 1)
    lines = [f"### {label}", "", *attack_table(a_scored, "class")]
    if benign:
        lines += ["", *benign_table(b_scored, "class")]
    lines += ["", *attack_table(a_scored, "lang")]
    if benign:
        lines += ["", *benign_table(b_scored, "lang")]
    split = split_lines(check, attacks)
    if split:
        lines += ["", *split]
    lines += ["", f"Mean cost: {cost * 1000:.2f} ms per text."]
    if show:
        lines += misses(a_scored, b_scored)
    return "\n".join(lines)


# -- real chat turns -------------------------------------------------------------------


def locomo_turns(path: Path) -> list[str]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return [t.text for t in iter_turns(data) if t.text.strip()]


def lme_texts(path: Path) -> list[str]:
    """Every distinct LongMemEval-S turn text (user and assistant), in file order."""
    seen: dict[str, None] = {}
    with lzma.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            for session in json.loads(line)["haystack_sessions"]:
                for turn in session:
                    text = str(turn.get("content", ""))
                    if text.strip():
                        seen.setdefault(text, None)
    return list(seen)


def lme_sample(texts: list[str], count: int, seed: int = 31) -> list[str]:
    """The seeded sample of ``count`` of ``texts`` that this script measures."""
    if count >= len(texts):
        return texts
    return random.Random(seed).sample(texts, count)


def lme_turns(path: Path, count: int, seed: int = 31) -> list[str]:
    """A seeded sample of ``count`` distinct LongMemEval-S turn texts (user and assistant)."""
    return lme_sample(lme_texts(path), count, seed)


def turns_report(
    runs: list[tuple[str, Check]], sets: list[tuple[str, list[str]]], *, show: bool
) -> str:
    lines = [
        "### Real chat turns (all benign: anything flagged is lost)",
        "",
        "| screen | turns | n | held | held % | refused | refused % | ms/text |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    flagged: list[str] = []
    for label, check in runs:
        for name, texts in sets:
            start = time.perf_counter()
            verdicts = [(text, check(text)) for text in texts]
            cost = (time.perf_counter() - start) / max(len(texts), 1)
            tally = Counter(r.verdict for _, r in verdicts)
            held, refused, n = tally[Verdict.QUARANTINE], tally[Verdict.BLOCK], len(texts)
            lines.append(
                f"| {label} | {name} | {n} | {held} | {100 * held / max(n, 1):.2f} "
                f"| {refused} | {100 * refused / max(n, 1):.2f} | {cost * 1000:.2f} |"
            )
            for text, r in verdicts:
                if r.verdict is not Verdict.ALLOW:
                    ids = ",".join(t.pattern_id for t in r.threats)
                    shown = " ".join(text.split())[:160]
                    flagged.append(f"- [{label} / {name}] {r.verdict} {ids}: {shown!r}")
    lines += ["", "Targets (issue 31): held <= 0.5 %, refused 0."]
    if show and flagged:
        lines += ["", "Turns flagged:", *flagged]
    return "\n".join(lines)


# -- the write path, through the public API ----------------------------------------------


def write_path_report(sets: list[tuple[str, list[str]]]) -> str:
    """Each set's turns stored as archived turns (``add_many``, ``source="turn"``) in a
    default ``Vault`` with the default embedder, then ``flush()``: what the write path
    holds (the rules at the write, the model screen when the worker has the vector)
    and refuses. Nothing of a turn is printed."""
    lines = [
        "### The write path (public API: add_many of archived turns, then flush)",
        "",
        "| turns | n | held | held % | by the rules | by the model screen | refused | s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, texts in sets:
        with tempfile.TemporaryDirectory() as home:
            config = load_config(environ={}, home=Path(home) / "home")
            start = time.perf_counter()
            refused = 0
            with Vault(Path(home) / "turns.db", config=config) as vault:
                for i in range(0, len(texts), 200):
                    records = [{"content": t, "source": "turn"} for t in texts[i : i + 200]]
                    try:
                        vault.add_many(records, user_id="bench")
                    except MemvaultError:
                        refused += len(records)
                vault.flush()
                held = Counter[str]()
                offset = 0
                while page := vault.review.quarantined(user_id="bench", limit=1000, offset=offset):
                    held.update(
                        "model" if e.quarantine == MODEL_PATTERN_ID else "rules" for e in page
                    )
                    offset += len(page)
            n, total = len(texts), sum(held.values())
            lines.append(
                f"| {name} | {n} | {total} | {100 * total / max(n, 1):.2f} | {held['rules']} "
                f"| {held['model']} | {refused} | {time.perf_counter() - start:.0f} |"
            )
    lines += ["", "Targets (issue 31): held <= 0.5 %, refused 0."]
    return "\n".join(lines)


def locomo_conversations(path: Path, wanted: range) -> list[str]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return [t.text for t in iter_turns(data) if t.conversation in wanted and t.text.strip()]


# -- the screens ------------------------------------------------------------------------


def screens(no_semantic: bool) -> tuple[list[tuple[str, Check]], list[str]]:
    """The checks to run, labelled, and notes on how they were chosen."""
    cfg = VaultConfig()
    mode = cfg.security.semantic_screen
    notes = [f"Default configuration: security.semantic_screen = {mode!r}."]
    runs: list[tuple[str, Check]] = [("rules only", assess)]
    embedder = make_embedder(cfg.embedding)
    model = ModelScreen.for_embedder(embedder) if cfg.security.model_screen == "auto" else None
    if model is None:
        notes.append("No model screen for this embedder: the rules alone guard the prompt block.")
    else:
        notes.append(
            "Default: the rules at write time, and the model screen on each recalled memory "
            "at the prompt block ('rules + model screen'; trained by bench/train_screen.py "
            "on the train rows of the tuning corpora and on chat: LoCoMo conversations 0-4, "
            "LongMemEval-S turns outside the measured sample, the Chinese set's dev users)."
        )
        runs.append(("rules + model screen (the default)", _with_model(model)))
    if no_semantic:
        notes.append("--no-semantic: the exemplar semantic screen is not measured.")
        return runs, notes
    default = semantic_screen(mode, embedder)
    if default is None:
        notes.append("The default Vault screens with the rules alone ('rules only' below).")
    else:
        runs.append((f"default ({_name(default)})", _with(default)))
    if mode != "on":
        on = semantic_screen("on", embedder)
        if on is None:
            notes.append("No embedder installed: the semantic screen cannot be measured.")
        else:
            runs.append((f"semantic_screen='on' ({_name(on)})", _with(on)))
    return runs, notes


def _with_model(model: ModelScreen) -> Check:
    model.scores(["warm up"])  # load the model outside the timing

    def check(text: str) -> Assessment:
        found = assess(text)
        if found.verdict is not Verdict.ALLOW:
            return found
        threat = model.check(text)
        return found if threat is None else Assessment(Verdict.QUARANTINE, (threat,))

    return check


def _name(screen: SemanticScreen) -> str:
    return f"rules + semantic screen, {screen.embedder.name}, threshold {screen.threshold}"


def _with(screen: SemanticScreen) -> Check:
    screen.check("warm up")  # load the model outside the timing

    def check(text: str) -> Assessment:
        return assess(text, semantic=screen)

    return check


def heldout(session: int) -> tuple[list[Row], list[Row]]:
    """The held-out split of a session's training texts (``make_train8.py``,
    ``make_train9.py``): rows ``bench/train_screen.py`` never fits on."""
    attacks, benign = load(TRAIN8, f"attacks{session}"), load(TRAIN8, f"benign{session}")
    return (
        [r for r in attacks if r["split"] == "heldout"],
        [r for r in benign if r["split"] == "heldout"],
    )


def corpora(which: str) -> Iterable[tuple[str, list[Row], list[Row]]]:
    if which in ("tuning", "both"):
        yield "tuning corpus", load(CORPUS, "attacks"), load(CORPUS, "benign")
        yield "tuning corpus, held-out attacks", load(CORPUS, "heldout"), []
    if which in ("tuning", "both", "heldout8"):
        yield "session 8 corpus, held-out split", *heldout(8)
    if which in ("tuning", "both", "heldout9"):
        yield "session 9 corpus, held-out split", *heldout(9)
    if which in ("frozen", "both"):
        yield "frozen held-out corpus", load(FROZEN, "attacks"), load(FROZEN, "benign")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--corpus", choices=("tuning", "frozen", "both", "heldout8", "heldout9"), default="both"
    )
    parser.add_argument("--no-semantic", action="store_true", help="rules only")
    parser.add_argument(
        "--misses",
        action="store_true",
        help="list the tuning corpus's misses and losses and the chat turns flagged "
        "(never the frozen corpus's texts)",
    )
    parser.add_argument("--lme-turns", type=int, default=5000, help="LongMemEval-S turns (0: none)")
    parser.add_argument("--no-turns", action="store_true", help="skip the LoCoMo/LME section")
    parser.add_argument(
        "--write-path",
        action="store_true",
        help="only: store LoCoMo conversations 5-9 and --lme-turns LongMemEval-S turns "
        "through the public API and count what the write path holds",
    )
    parser.add_argument("--locomo", type=Path, default=LOCOMO)
    parser.add_argument("--lme", type=Path, default=LME)
    args = parser.parse_args()

    if args.write_path:
        sets = [("LoCoMo conversations 5-9", locomo_conversations(args.locomo, range(5, 10)))]
        if args.lme_turns > 0 and args.lme.exists():
            sets.append(("LongMemEval-S (sample, seed 31)", lme_turns(args.lme, args.lme_turns)))
        print(write_path_report(sets))
        return
    runs, notes = screens(args.no_semantic)
    print("\n".join(notes))
    for label, check in runs:
        for name, attacks, benign in corpora(args.corpus):
            show = args.misses and name.startswith("tuning")
            print()
            print(report(f"{name}: {label}", check, attacks, benign, show=show))
    if args.no_turns:
        return
    sets: list[tuple[str, list[str]]] = []
    if args.locomo.exists():
        sets.append(("LoCoMo (all turns)", locomo_turns(args.locomo)))
    if args.lme_turns > 0 and args.lme.exists():
        sets.append(("LongMemEval-S (sample, seed 31)", lme_turns(args.lme, args.lme_turns)))
    if sets:
        print()
        print(turns_report(runs, sets, show=args.misses))
    else:
        print("\n(LoCoMo and LongMemEval data not found: chat-turn section skipped)")


if __name__ == "__main__":
    main()
