"""A year of synthetic daily use: does recall of current facts hold up as a vault grows?

Why: a memory that keeps everything must not let what it kept crowd out what is true now.
One user writes a profile of facts on day 0 (home city, employer, car, ...), then every day
a few day-to-day notes (``short_term``) and a conversation (``source_archive`` turns, as the
agent integration archives them), while the facts change a few times a year each. A change
is written the two ways an integration replaces a fact: half as a new memory that
``supersedes`` the old one (the id the earlier ``add`` returned, as a tool holds it), half as
an ``update`` of the memory in place. ``Vault.maintain`` runs weekly, as ``memvault serve``
would; an agent searches a few times a day, so recalls reinforce what they find. The clock
is the vault's injected one, a day per step.

At checkpoints every fact's question is asked (``Vault.search``, default configuration) and
scored against the fact's current memory: hit@1, hit@5, MRR, and how often a replaced
version shows up in the top 5. Beside it:

* ``fresh`` — a new vault holding only the current facts: the level recall should keep;
* ``naive`` — the same year written without supersession (each change a plain ``add``), so
  old and new versions compete as equals: what keeping history right is worth.

The questions share the fact's key words but are not its text. Everything goes through the
public API; the data is generated (``--seed``), nothing is read from outside the repo.

    PYTHONPATH=src .venv/bin/python bench/growing.py [--days 365] [--seed 7]
        [--embedder local|none] [--embed-cache /tmp/growing.pkl] [--set a.b=v]
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from common import CachedEmbedder, parse_sets
from memvault import Vault, load_config
from memvault.embed.base import Embedder

USER = "u1"
START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
CHECKPOINTS = (0, 30, 90, 180, 270, 365)
CHANGES_PER_YEAR = 3.5  # how often each fact changes, on average
NOTES_PER_DAY = 5
TURNS_PER_DAY = 4
SEARCHES_PER_DAY = 2

# slot: (values, fact templates, question)
FACTS: dict[str, tuple[list[str], list[str], str]] = {
    "city": (
        ["Berlin", "Munich", "Lisbon", "Tokyo", "Oslo", "Porto", "Vienna", "Seoul"],
        ["My home city is {v} now.", "These days I live in {v}; it is my home city."],
        "Which city is my home city?",
    ),
    "employer": (
        ["Acme Robotics", "Northwind", "Globex", "Initech", "Umbrella Labs", "Hooli", "Vandelay"],
        ["I work for {v} as my employer.", "My employer is {v} since the last change."],
        "Who is my employer?",
    ),
    "car": (
        ["a red Volvo", "a grey Tesla", "a blue Skoda", "a white Toyota", "a green Fiat"],
        ["The car I drive is {v}.", "I drive {v} now, that is my car."],
        "What car do I drive?",
    ),
    "gym": (
        ["FitHub", "Iron Temple", "Pulse Studio", "Urban Climb", "Blue Pool Club"],
        ["My gym membership is at {v}.", "I train at {v}; the gym membership is there."],
        "Where is my gym membership?",
    ),
    "language": (
        ["Japanese", "Portuguese", "Korean", "Norwegian", "Italian", "Mandarin"],
        ["I am learning {v} as my new language.", "The language I study is {v}."],
        "Which language am I learning?",
    ),
    "manager": (
        ["Priya", "Tomasz", "Helena", "Kwame", "Sofia", "Daniel"],
        ["My manager at work is {v}.", "I report to {v}, my manager."],
        "Who is my manager?",
    ),
    "project": (
        ["Apollo", "Nimbus", "Falcon", "Tidewater", "Quartz", "Lantern"],
        ["My main project is called {v}.", "I lead the {v} project, my main project."],
        "What is my main project called?",
    ),
    "diet": (
        ["vegetarian", "vegan", "pescatarian", "low-carb", "gluten-free"],
        ["My diet is {v} at the moment.", "I keep a {v} diet."],
        "What diet do I keep?",
    ),
    "coffee": (
        ["flat white", "espresso", "oat latte", "cold brew", "cortado"],
        ["My usual coffee order is a {v}.", "I order a {v} as my usual coffee."],
        "What is my usual coffee order?",
    ),
    "editor": (
        ["Vim", "VS Code", "Emacs", "Zed", "Helix", "PyCharm"],
        ["My code editor is {v}.", "I write code in {v}, my editor of choice."],
        "Which code editor do I use?",
    ),
    "bank": (
        ["Nordbank", "Sparkasse", "Monzo", "N26", "ING"],
        ["My bank account is with {v}.", "I bank with {v}; the account is there."],
        "Which bank is my account with?",
    ),
    "phone": (
        ["a Pixel 8", "an iPhone 15", "a Fairphone 5", "a Galaxy S24", "a OnePlus 12"],
        ["My phone is {v}.", "I switched my phone to {v}."],
        "What phone do I have?",
    ),
    "pet": (
        ["a cat called Miso", "a dog called Pixel", "two goldfish", "a rabbit called Bo"],
        ["At home I have a pet: {v}.", "My pet is {v}."],
        "What pet do I have at home?",
    ),
    "hobby": (
        ["bouldering", "pottery", "chess", "sailing", "birdwatching", "salsa dancing"],
        ["My weekend hobby is {v}.", "On weekends my hobby is {v}."],
        "What is my weekend hobby?",
    ),
    "team": (
        ["the platform team", "the payments team", "the search team", "the data team"],
        ["At work I am on {v}.", "My team at work is {v}."],
        "Which team am I on at work?",
    ),
    "doctor": (
        ["Dr. Okafor", "Dr. Lindqvist", "Dr. Moreau", "Dr. Tanaka"],
        ["My family doctor is {v}.", "I see {v} as my family doctor."],
        "Who is my family doctor?",
    ),
}

NOTE_TEMPLATES = [
    "Today I had {food} for lunch and spent the afternoon on {task}.",
    "Reminder to self: {task} before Friday, then call about the {thing}.",
    "Long day. The {thing} broke again and {task} took longer than planned.",
    "Met a friend for {food}; we talked about the {thing} and work.",
    "Quick note: the {thing} needs a look, and {task} is half done.",
]
TURN_TEMPLATES = [
    ("user", "Can you help me plan {task} for this week?"),
    ("assistant", "Sure. Start with {task}, then leave time for the {thing}."),
    ("user", "I also want {food} on the way, any idea where?"),
    ("assistant", "There is a good place for {food} near the office."),
]
FOODS = ["ramen", "tacos", "a salad", "dumplings", "pizza", "curry", "a sandwich", "pho"]
TASKS = [
    "the quarterly report",
    "code review",
    "the slide deck",
    "tax forms",
    "the move checklist",
    "interview prep",
    "the budget sheet",
    "bug triage",
]
THINGS = ["car", "phone", "gym bag", "bike", "laptop", "coffee machine", "bank card", "editor"]


@dataclass
class Fact:
    slot: str
    value: str
    text: str
    entry_id: str
    replaced: list[str] = field(default_factory=list)  # ids of earlier versions (supersede)


@dataclass
class Score:
    hit1: int = 0
    hit5: int = 0
    rr: float = 0.0
    stale5: int = 0
    n: int = 0

    def add(self, ranked: list[str], current: str, stale: set[str]) -> None:
        self.n += 1
        if ranked[:1] == [current]:
            self.hit1 += 1
        if current in ranked[:5]:
            self.hit5 += 1
            self.rr += 1.0 / (ranked.index(current) + 1)
        if stale & set(ranked[:5]):
            self.stale5 += 1

    def row(self) -> str:
        n = max(self.n, 1)
        return (
            f"{self.hit1 / n:.3f} | {self.hit5 / n:.3f} | {self.rr / n:.3f} | {self.stale5 / n:.3f}"
        )


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


def fact_text(rng: random.Random, slot: str, value: str) -> str:
    return rng.choice(FACTS[slot][1]).format(v=value)


def filler(rng: random.Random, template: str) -> str:
    return template.format(food=rng.choice(FOODS), task=rng.choice(TASKS), thing=rng.choice(THINGS))


def open_vault(
    directory: Path, name: str, clock: Clock, embedder: Embedder | None, sets: Any
) -> Vault:
    config = load_config(home=directory / name, **sets)
    return Vault(directory / name / "memvault.db", config=config, embedder=embedder, clock=clock)


def evaluate(vault: Vault, facts: dict[str, Fact], stale: dict[str, set[str]]) -> Score:
    score = Score()
    for slot, fact in facts.items():
        hits = vault.search(FACTS[slot][2], user_id=USER, limit=10)
        score.add([h.entry.id for h in hits], fact.entry_id, stale.get(slot, set()))
    return score


def fresh_score(
    directory: Path, day: int, facts: dict[str, Fact], embedder: Embedder | None, sets: Any
) -> Score:
    clock = Clock()
    clock.now = START + timedelta(days=day)
    with open_vault(directory, f"fresh-{day}", clock, embedder, sets) as vault:
        current: dict[str, Fact] = {}
        for slot, fact in facts.items():
            entry = vault.add(fact.text, user_id=USER, name=slot.replace("_", " "))
            current[slot] = Fact(slot, fact.value, fact.text, entry.id)
        return evaluate(vault, current, {})


def run_year(
    directory: Path,
    name: str,
    days: int,
    seed: int,
    embedder: Embedder | None,
    sets: Any,
    *,
    supersede: bool,
    on_checkpoint: Callable[[int, Vault, dict[str, Fact], dict[str, set[str]]], None],
) -> float:
    rng = random.Random(seed)  # the same year for every vault
    clock = Clock()
    started = time.perf_counter()
    with open_vault(directory, name, clock, embedder, sets) as vault:
        facts: dict[str, Fact] = {}
        stale: dict[str, set[str]] = {}
        for slot, (values, _, _) in FACTS.items():
            value = rng.choice(values)
            text = fact_text(rng, slot, value)
            entry = vault.add(text, user_id=USER, name=slot.replace("_", " "))
            facts[slot] = Fact(slot, value, text, entry.id)
        for day in range(days + 1):
            clock.now = START + timedelta(days=day, hours=9)
            if day in CHECKPOINTS or day == days:
                on_checkpoint(day, vault, facts, stale)
            if day == days:
                break
            for slot, (values, _, _) in FACTS.items():
                if rng.random() >= CHANGES_PER_YEAR / 365:
                    continue
                old = facts[slot]
                value = rng.choice([v for v in values if v != old.value])
                text = fact_text(rng, slot, value)
                how = rng.random()
                if not supersede:  # the naive integration: a new memory, nothing linked
                    entry = vault.add(text, user_id=USER, name=slot.replace("_", " "))
                    stale.setdefault(slot, set()).add(old.entry_id)
                    facts[slot] = Fact(slot, value, text, entry.id)
                elif how < 0.5:
                    entry = vault.add(
                        text, user_id=USER, name=slot.replace("_", " "), supersedes=old.entry_id
                    )
                    stale.setdefault(slot, set()).add(old.entry_id)
                    facts[slot] = Fact(slot, value, text, entry.id)
                else:
                    vault.update(old.entry_id, user_id=USER, content=text)
                    facts[slot] = Fact(slot, value, text, old.entry_id)
            session = f"day-{day}"
            for i in range(NOTES_PER_DAY):
                clock.now = START + timedelta(days=day, hours=10 + i)
                vault.add(
                    filler(rng, rng.choice(NOTE_TEMPLATES)), user_id=USER, mem_class="short_term"
                )
            vault.add_many(
                [
                    {
                        "content": filler(rng, template),
                        "session_id": session,
                        "mem_class": "source_archive",
                        "importance": 0.3,
                        "metadata": {"speaker": speaker, "turn_index": i},
                    }
                    for i, (speaker, template) in enumerate(TURN_TEMPLATES[:TURNS_PER_DAY])
                ],
                user_id=USER,
            )
            for _ in range(SEARCHES_PER_DAY):
                vault.search(filler(rng, rng.choice(NOTE_TEMPLATES)), user_id=USER, limit=5)
            if day % 7 == 6:
                vault.maintain(now=clock.now)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--embedder", choices=["config", "none"], default="config")
    parser.add_argument("--embed-cache", type=Path, default=None)
    parser.add_argument("--set", action="append", default=[], metavar="SECTION.FIELD=VALUE")
    args = parser.parse_args()
    sets = parse_sets(args.set)
    if args.embedder == "none":
        sets.setdefault("embedding", {})["provider"] = "none"
        embedder: Embedder | None = None
    else:
        from memvault.embed.factory import make_embedder

        inner = make_embedder(load_config(**sets).embedding)
        embedder = CachedEmbedder(inner, args.embed_cache) if inner is not None else None

    rows: list[str] = []
    with tempfile.TemporaryDirectory(prefix="memvault-growing-") as tmp:
        directory = Path(tmp)

        def checkpoint(
            label: str,
        ) -> Callable[[int, Vault, dict[str, Fact], dict[str, set[str]]], None]:
            def record(
                day: int, vault: Vault, facts: dict[str, Fact], stale: dict[str, set[str]]
            ) -> None:
                vault.flush(120)
                score = evaluate(vault, facts, stale)
                total = vault.count(user_id=USER, include_superseded=True)
                superseded = total - vault.count(user_id=USER)
                cold = vault.count(user_id=USER, tier="cold", include_superseded=True)
                archive = vault.count(user_id=USER, tier="archive", include_superseded=True)
                counts = f"{total} | {superseded} | {cold} | {archive}"
                rows.append(f"| {label} | {day} | {counts} | {score.row()} |")
                if label == "growing":
                    fresh = fresh_score(directory, day, facts, embedder, sets)
                    rows.append(f"| fresh | {day} | {len(facts)} | 0 | 0 | 0 | {fresh.row()} |")

            return record

        took = run_year(
            directory,
            "growing",
            args.days,
            args.seed,
            embedder,
            sets,
            supersede=True,
            on_checkpoint=checkpoint("growing"),
        )
        naive_took = run_year(
            directory,
            "naive",
            args.days,
            args.seed,
            embedder,
            sets,
            supersede=False,
            on_checkpoint=checkpoint("naive"),
        )
    if isinstance(embedder, CachedEmbedder):
        embedder.save()
    print(
        f"growing vault: {len(FACTS)} facts, {args.days} days, seed {args.seed}, "
        f"embedder {embedder.name if embedder else 'none'}; a year took {took:.0f} s "
        f"(naive {naive_took:.0f} s)"
    )
    print()
    print(
        "| vault | day | entries | superseded | cold | archive "
        "| hit@1 | hit@5 | MRR | stale in top 5 |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in sorted(
        rows, key=lambda r: (int(r.split("|")[2]), r.split("|")[1] != " growing ", r)
    ):
        print(row)


if __name__ == "__main__":
    main()
