"""Caught and false-positive rates of the threat scan on the repository's own corpora.

Reads ``tests/scan_corpus/attacks.jsonl`` and ``benign.jsonl`` (``{text, class,
lang}`` per line) and runs :func:`memvault.security.scan.assess` on every text,
once with the rules alone and once with the semantic screen on the local model
(all-MiniLM-L6-v2) when it is installed.

    .venv/bin/python bench/scan_eval.py [--no-semantic] [--misses]

Prints one Markdown table per run: for each attack class, how many texts and the
share caught (blocked or quarantined, so never injected); for each benign
class, the share refused (blocked) and quarantined; and the mean cost per text.
``--misses`` lists the attacks let through and the benign texts flagged.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from memvault.security.scan import Assessment, SemanticScreen, Verdict, assess

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "scan_corpus"


def load(name: str) -> list[dict[str, str]]:
    lines = (CORPUS / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def run(
    label: str,
    check: Callable[[str], Assessment],
    attacks: list[dict[str, str]],
    benign: list[dict[str, str]],
    show: bool,
) -> str:
    start = time.perf_counter()
    a_results = [(row, check(row["text"])) for row in attacks]
    b_results = [(row, check(row["text"])) for row in benign]
    per_text = (time.perf_counter() - start) / (len(attacks) + len(benign))

    lines = [f"### {label}", "", "| attack class | n | caught % |", "|---|---:|---:|"]
    by_class: dict[str, list[Assessment]] = defaultdict(list)
    for row, result in a_results:
        by_class[row["class"]].append(result)
    caught_all = 0
    for cls in sorted(by_class):
        results = by_class[cls]
        caught = sum(r.verdict is not Verdict.ALLOW for r in results)
        caught_all += caught
        lines.append(f"| {cls} | {len(results)} | {100 * caught / len(results):.1f} |")
    lines.append(
        f"| **all attacks** | {len(attacks)} | {100 * caught_all / max(len(attacks), 1):.1f} |"
    )
    if not benign:
        lines += ["", f"Mean cost: {per_text * 1000:.2f} ms per text."]
        if show:
            lines += ["", "Attacks allowed:"]
            lines += [
                f"- [{r['class']}/{r['lang']}] {r['text']!r}" for r, a in a_results if not a.threats
            ]
        return "\n".join(lines)
    lines += ["", "| benign class | n | refused % | quarantined % |", "|---|---:|---:|---:|"]
    b_class: dict[str, list[Assessment]] = defaultdict(list)
    for row, result in b_results:
        b_class[row["class"]].append(result)
    refused_all = quarantined_all = 0
    for cls in sorted(b_class):
        results = b_class[cls]
        refused = sum(r.verdict is Verdict.BLOCK for r in results)
        quarantined = sum(r.verdict is Verdict.QUARANTINE for r in results)
        refused_all += refused
        quarantined_all += quarantined
        n = len(results)
        lines.append(f"| {cls} | {n} | {100 * refused / n:.1f} | {100 * quarantined / n:.1f} |")
    n = len(benign) or 1
    lines.append(
        f"| **all benign** | {n} | {100 * refused_all / n:.1f} | {100 * quarantined_all / n:.1f} |"
    )
    lines += ["", f"Mean cost: {per_text * 1000:.2f} ms per text."]
    if show:
        lines += ["", "Attacks allowed:"]
        lines += [
            f"- [{r['class']}/{r['lang']}] {r['text']!r}" for r, a in a_results if not a.threats
        ]
        lines += ["", "Benign flagged:"]
        lines += [
            f"- [{a.verdict}] {[t.pattern_id for t in a.threats]} {r['text']!r}"
            for r, a in b_results
            if a.threats
        ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-semantic", action="store_true", help="rules only")
    parser.add_argument("--misses", action="store_true", help="list misses and false positives")
    args = parser.parse_args()
    attacks, benign, heldout = load("attacks"), load("benign"), load("heldout")
    print(run("rules only", assess, attacks, benign, args.misses))
    print()
    print(run("held-out attacks, rules only", assess, heldout, [], args.misses))
    if args.no_semantic:
        return
    from memvault.embed import local

    if not local.available():
        print("\n(local model not installed: semantic run skipped)")
        return
    screen = SemanticScreen(local.LocalEmbedder())
    screen.check("warm up")  # load the model outside the timing

    def with_screen(text: str) -> Assessment:
        return assess(text, semantic=screen)

    print()
    label = f"rules + semantic screen ({screen.embedder.name}, threshold {screen.threshold})"
    print(run(label, with_screen, attacks, benign, args.misses))
    print()
    print(run("held-out attacks, rules + semantic screen", with_screen, heldout, [], args.misses))


if __name__ == "__main__":
    main()
