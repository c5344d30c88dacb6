"""False-positive rate of the security scan on real, benign dialogue (LoCoMo).

Every dialog turn of the 10 LoCoMo conversations is ordinary chat between two
people, so any turn the scan flags is a false positive: *refused* (verdict
``block``) or *quarantined* (stored but never injected). Targets: refused 0,
quarantined at most 0.5 %. Each turn is scanned
twice: its text alone, and its text followed by the image caption
(``blip_caption``) where the turn shared a picture. The data is read in place
from ``../shared/bench/data/locomo/locomo10.json`` and never copied.

    .venv/bin/python bench/scan_fp.py [--data PATH] [--repeat N] [--semantic]

``--semantic`` adds the semantic screen on the local model (text only, one pass).

Prints a Markdown table (turns scanned, refused, quarantined, rates, throughput
and cost per turn) and the flagged turns with their verdict and pattern ids.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memvault.security.scan import Assessment, SemanticScreen, Verdict, assess

DATA = (
    Path(__file__).resolve().parents[2] / "shared" / "bench" / "data" / "locomo" / "locomo10.json"
)
_SESSION_KEY = re.compile(r"session_\d+")


@dataclass(frozen=True, slots=True)
class Turn:
    conversation: int
    dia_id: str
    text: str
    caption: str


@dataclass
class Result:
    label: str
    scanned: int
    flagged: list[tuple[Turn, str, Verdict, list[str]]]
    seconds: float

    def count(self, verdict: Verdict) -> int:
        return sum(1 for _, _, v, _ in self.flagged if v is verdict)

    def rate(self, verdict: Verdict) -> float:
        return self.count(verdict) / self.scanned if self.scanned else 0.0


def iter_turns(data: list[dict[str, Any]]) -> Iterator[Turn]:
    """Every dialog turn, in conversation and session order."""
    for index, item in enumerate(data):
        conversation = item["conversation"]
        sessions = sorted(
            (key for key in conversation if _SESSION_KEY.fullmatch(key)),
            key=lambda key: int(key.split("_")[1]),
        )
        for key in sessions:
            for turn in conversation[key]:
                yield Turn(
                    conversation=index,
                    dia_id=str(turn.get("dia_id", "?")),
                    text=str(turn.get("text", "")),
                    caption=str(turn.get("blip_caption") or ""),
                )


def run(
    label: str,
    turns: list[Turn],
    texts: list[str],
    repeat: int,
    check: Callable[[str], Assessment] = assess,
) -> Result:
    """Scan ``texts`` (one per turn); time ``repeat`` full passes, keep the last one's flags."""
    flagged: list[tuple[Turn, str, Verdict, list[str]]] = []
    start = time.perf_counter()
    for _ in range(repeat):
        flagged = []
        for turn, text in zip(turns, texts, strict=True):
            result = check(text)
            if result.verdict is not Verdict.ALLOW:
                ids = [threat.pattern_id for threat in result.threats]
                flagged.append((turn, text, result.verdict, ids))
    seconds = (time.perf_counter() - start) / repeat
    return Result(label, len(texts), flagged, seconds)


def render(results: list[Result]) -> str:
    lines = [
        "| input | turns | refused | refused % | quarantined | quarantined % | turns/s | µs/turn |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    block, hold = Verdict.BLOCK, Verdict.QUARANTINE
    for r in results:
        speed = r.scanned / r.seconds if r.seconds else float("inf")
        cost = 1e6 * r.seconds / r.scanned if r.scanned else 0.0
        lines.append(
            f"| {r.label} | {r.scanned} | {r.count(block)} | {r.rate(block):.3%} "
            f"| {r.count(hold)} | {r.rate(hold):.3%} | {speed:,.0f} | {cost:,.0f} |"
        )
    for r in results:
        lines += ["", f"Flagged ({r.label}): {len(r.flagged)}"]
        if r.flagged:
            lines += [
                "",
                "| conv | dia_id | verdict | pattern ids | text |",
                "|---:|---|---|---|---|",
            ]
            for turn, text, verdict, ids in r.flagged:
                shown = text.replace("|", "\\|").replace("\n", " ")
                if len(shown) > 160:
                    shown = shown[:157] + "..."
                lines.append(
                    f"| {turn.conversation} | {turn.dia_id} | {verdict} | {', '.join(ids)} "
                    f"| {shown} |"
                )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--repeat", type=int, default=3, help="timed passes per input")
    parser.add_argument("--semantic", action="store_true", help="also run the semantic screen")
    args = parser.parse_args()

    data = json.loads(args.data.read_text(encoding="utf-8"))
    turns = list(iter_turns(data))
    texts = [t.text for t in turns]
    with_caption = [f"{t.text}\n{t.caption}" if t.caption else t.text for t in turns]
    captioned = sum(1 for t in turns if t.caption)

    results = [
        run("text", turns, texts, args.repeat),
        run(f"text + blip_caption ({captioned} with caption)", turns, with_caption, args.repeat),
    ]
    if args.semantic:
        from memvault.embed.local import LocalEmbedder

        screen = SemanticScreen(LocalEmbedder())
        screen.check("warm up")
        label = f"text, rules + semantic screen (threshold {screen.threshold})"
        results.append(run(label, turns, texts, 1, lambda text: assess(text, semantic=screen)))
    print(render(results))


if __name__ == "__main__":
    main()
