"""A year of synthetic daily use: does recall of current facts stay as good as in a
fresh vault while replaced and aged memories pile up? (issue 16's growing-vault bench)

One user with ``--facts`` attributes (home city, editor, team, ...). Every simulated day
adds ``--chatter`` day-to-day notes (class ``short_term``, so they age into ``cold`` after
a week) and, with probability ``1 / --change-days`` per attribute, a new value of it,
written the way an integration writes a correction. Three ways of writing it:

* ``supersede``: ``add(..., supersedes=<the current entry's id>)`` (the old one is kept,
  no longer current);
* ``update``: ``update(<id>, content=...)`` in place (the old text is kept as a version);
* ``append``: a plain ``add`` (what a memory without supersession does: both stay current).

``maintain`` runs every day. At each checkpoint every attribute is asked once
("what is the user's editor these days?", words the facts do not all share) and scored
against the value current then: hit@1 and recall@3 of ``search``, and the share of
attributes whose stale values appear in the top 3. The same questions go to a fresh
vault that holds only the current facts. Everything goes through the public API.

    .venv/bin/python bench/growing_vault.py [--days 365] [--facts 40] [--chatter 6]
        [--change-days 45] [--embedder none|local] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from memvault import Vault, load_config

T0 = datetime(2026, 1, 1, 8, 0, tzinfo=UTC)
DAY = timedelta(days=1)

# (attribute, how a fact states it, how a question asks for it, values)
ATTRIBUTES: list[tuple[str, str, str, list[str]]] = [
    (
        "city",
        "Sam lives in {v}",
        "which city is Sam's home now",
        ["Berlin", "Munich", "Lisbon", "Tokyo", "Oslo", "Lima", "Porto", "Seoul"],
    ),
    (
        "editor",
        "Sam writes code in {v}",
        "what editor does Sam use these days",
        ["Vim", "Emacs", "VSCode", "Helix", "Zed", "Sublime"],
    ),
    (
        "team",
        "Sam works on the {v} team",
        "which team is Sam on",
        ["Payments", "Search", "Growth", "Infra", "Mobile", "Data"],
    ),
    (
        "coffee",
        "Sam's usual coffee order is a {v}",
        "how does Sam take coffee",
        ["flat white", "cortado", "americano", "latte", "mocha"],
    ),
    (
        "laptop",
        "Sam's work laptop is a {v}",
        "what computer is Sam on",
        ["ThinkPad", "MacBook", "Framework", "XPS", "Surface"],
    ),
    (
        "language",
        "Sam's main programming language is {v}",
        "which language does Sam mostly program in",
        ["Go", "Rust", "Python", "Kotlin", "TypeScript", "Elixir"],
    ),
    (
        "gym",
        "Sam trains at {v} gym",
        "where does Sam work out",
        ["Iron Temple", "Pulse", "Crossbox", "Summit", "Forge"],
    ),
    (
        "manager",
        "Sam reports to {v}",
        "who is Sam's boss",
        ["Priya", "Marco", "Lena", "Tomas", "Aiko", "Ravi"],
    ),
    (
        "car",
        "Sam drives a {v}",
        "what car does Sam have",
        ["Golf", "Corolla", "Model 3", "Civic", "Clio"],
    ),
    (
        "phone",
        "Sam's phone is a {v}",
        "which phone does Sam carry",
        ["Pixel", "iPhone", "Galaxy", "Fairphone", "Xperia"],
    ),
    (
        "diet",
        "Sam eats {v}",
        "what diet is Sam following",
        ["vegetarian", "vegan", "pescatarian", "keto", "everything"],
    ),
    (
        "hobby",
        "On weekends Sam goes {v}",
        "what does Sam do on weekends",
        ["climbing", "sailing", "cycling", "hiking", "surfing"],
    ),
    (
        "band",
        "Sam's favourite band is {v}",
        "which band does Sam like most",
        ["Radiohead", "Muse", "Blur", "Queen", "Portishead"],
    ),
    (
        "book",
        "Sam is reading {v}",
        "what book is Sam on",
        ["Dune", "Emma", "Ulysses", "Beloved", "Solaris"],
    ),
    (
        "shell",
        "Sam's terminal shell is {v}",
        "which shell does Sam type into",
        ["bash", "zsh", "fish", "nushell"],
    ),
    (
        "bank",
        "Sam banks with {v}",
        "which bank holds Sam's account",
        ["N26", "Monzo", "Revolut", "ING", "Chase"],
    ),
    (
        "airline",
        "Sam flies {v} when possible",
        "which airline does Sam prefer",
        ["Lufthansa", "KLM", "Iberia", "Finnair", "SAS"],
    ),
    (
        "os",
        "Sam's desktop runs {v}",
        "what operating system does Sam run",
        ["Fedora", "Ubuntu", "Arch", "macOS", "Windows"],
    ),
    (
        "cloud",
        "Sam's project is hosted on {v}",
        "where is Sam's project hosted",
        ["AWS", "GCP", "Azure", "Hetzner", "Fly"],
    ),
    (
        "database",
        "Sam's service stores data in {v}",
        "which database does Sam's service use",
        ["PostgreSQL", "MySQL", "SQLite", "Cassandra", "Redis"],
    ),
    (
        "tea",
        "Sam drinks {v} tea in the afternoon",
        "what tea does Sam have in the afternoon",
        ["green", "black", "oolong", "mint", "rooibos"],
    ),
    (
        "pet",
        "Sam has a {v}",
        "what pet does Sam keep",
        ["cat", "dog", "parrot", "rabbit", "turtle"],
    ),
    (
        "sport",
        "Sam watches {v} on TV",
        "what sport does Sam follow",
        ["football", "tennis", "cricket", "basketball", "rugby"],
    ),
    (
        "standup",
        "Sam's daily standup is at {v}",
        "when is Sam's standup",
        ["9:00", "9:30", "10:00", "10:15", "11:00"],
    ),
    (
        "keyboard",
        "Sam types on a {v} keyboard",
        "what keyboard does Sam use",
        ["Moonlander", "HHKB", "Keychron", "Model M", "Corne"],
    ),
    (
        "browser",
        "Sam browses with {v}",
        "which browser does Sam use",
        ["Firefox", "Chrome", "Safari", "Brave", "Vivaldi"],
    ),
    (
        "music",
        "Sam streams music on {v}",
        "where does Sam listen to music",
        ["Spotify", "Tidal", "Deezer", "Bandcamp"],
    ),
    (
        "commute",
        "Sam commutes by {v}",
        "how does Sam get to the office",
        ["bike", "tram", "train", "bus", "scooter"],
    ),
    (
        "deadline",
        "Sam's release deadline is in {v}",
        "when is Sam's release due",
        ["March", "April", "June", "August", "October"],
    ),
    (
        "mentor",
        "Sam is mentoring {v}",
        "who is Sam mentoring",
        ["Ines", "Yusuf", "Mei", "Olga", "Kofi"],
    ),
    (
        "ide_theme",
        "Sam's editor theme is {v}",
        "what colour scheme does Sam code with",
        ["Solarized", "Gruvbox", "Dracula", "Nord", "Monokai"],
    ),
    (
        "timezone",
        "Sam works in the {v} time zone",
        "which time zone is Sam in",
        ["CET", "UTC", "JST", "PST", "EST"],
    ),
    (
        "lunch",
        "Sam usually lunches at {v}",
        "where does Sam eat lunch",
        ["the canteen", "Pho Bar", "Sushi Ko", "the deli", "Falafel Hut"],
    ),
    (
        "monitor",
        "Sam's monitor is a {v}",
        "what screen does Sam work on",
        ["Dell U27", "LG UltraFine", "BenQ", "Eizo", "Samsung G7"],
    ),
    (
        "chair",
        "Sam sits on a {v} chair",
        "what chair does Sam have",
        ["Aeron", "Steelcase", "Ikea", "Herman", "Secretlab"],
    ),
    (
        "newsletter",
        "Sam subscribes to the {v} newsletter",
        "which newsletter does Sam read",
        ["Pragmatic", "Morning Brew", "TLDR", "Stratechery"],
    ),
    (
        "podcast",
        "Sam listens to the {v} podcast",
        "what podcast is Sam into",
        ["Lex", "Syntax", "Changelog", "Acquired"],
    ),
    (
        "vacation",
        "Sam's next holiday is in {v}",
        "where is Sam going on holiday",
        ["Crete", "Bali", "Iceland", "Sicily", "Madeira"],
    ),
    (
        "ci",
        "Sam's CI runs on {v}",
        "what runs Sam's builds",
        ["GitHub Actions", "GitLab", "Buildkite", "Jenkins", "CircleCI"],
    ),
    (
        "notes",
        "Sam keeps notes in {v}",
        "which notes app does Sam use",
        ["Obsidian", "Notion", "Logseq", "Bear", "Joplin"],
    ),
]

CHATTER = [
    "Had a long call about the quarterly numbers",
    "Lunch with a colleague, talked about the offsite",
    "Fixed a flaky test in the build",
    "Reviewed two pull requests before noon",
    "The printer on the third floor is broken again",
    "Booked a dentist appointment",
    "Watered the plants on the balcony",
    "Paired on the migration script",
    "Read an article about caching",
    "Went for a run after work",
]


@dataclass
class Fact:
    attribute: str
    template: str
    question: str
    values: list[str]
    value: str = ""
    entry_id: str = ""
    old: tuple[str, ...] = ()


def _vault(home: Path, embedder: str, clock: list[datetime]) -> Vault:
    # The default configuration but for embedding on the writing thread (the same vectors,
    # only sooner: every checkpoint sees all of them).
    config = load_config(
        environ={}, home=home, embedding={"provider": embedder, "background": False}
    )
    return Vault(config=config, clock=lambda: clock[0])


def _score(vault: Vault, facts: list[Fact]) -> tuple[float, float, float]:
    hit1 = rec3 = stale = 0
    for fact in facts:
        hits = vault.search(fact.question, user_id="sam", limit=3)
        texts = [h.entry.content for h in hits]
        current = fact.template.format(v=fact.value)
        hit1 += bool(texts) and texts[0] == current
        rec3 += current in texts
        stale += any(fact.template.format(v=o) in texts for o in fact.old if o != fact.value)
    n = len(facts)
    return hit1 / n, rec3 / n, stale / n


def run(args: argparse.Namespace, mode: str) -> list[tuple[int, dict[str, float]]]:
    rng = random.Random(args.seed)
    clock = [T0]
    facts = [Fact(a, t, q, v) for a, t, q, v in ATTRIBUTES[: args.facts]]
    checkpoints = {0, args.days // 4, args.days // 2, args.days}
    rows: list[tuple[int, dict[str, float]]] = []
    with tempfile.TemporaryDirectory() as tmp, _vault(Path(tmp), args.embedder, clock) as v:
        for fact in facts:
            fact.value = rng.choice(fact.values)
            fact.entry_id = v.add(fact.template.format(v=fact.value), user_id="sam").id
            fact.old = (fact.value,)
        for day in range(args.days + 1):
            clock[0] = T0 + day * DAY
            if day:
                for note in rng.sample(CHATTER, args.chatter):
                    v.add(f"{note} (day {day})", user_id="sam", mem_class="short_term")
                for fact in facts:
                    if rng.random() >= 1 / args.change_days:
                        continue
                    fact.value = rng.choice([x for x in fact.values if x != fact.value])
                    text = fact.template.format(v=fact.value)
                    if mode == "supersede":
                        fact.entry_id = v.add(text, user_id="sam", supersedes=fact.entry_id).id
                    elif mode == "update":
                        v.update(fact.entry_id, user_id="sam", content=text)
                    else:
                        fact.entry_id = v.add(text, user_id="sam").id
                    fact.old = (*fact.old, fact.value)
                v.maintain()
            if day not in checkpoints:
                continue
            started = time.perf_counter()
            hit1, rec3, stale = _score(v, facts)
            ms = (time.perf_counter() - started) * 1000 / len(facts)
            with (
                tempfile.TemporaryDirectory() as fresh_home,
                _vault(Path(fresh_home), args.embedder, clock) as fresh,
            ):
                for fact in facts:
                    fresh.add(fact.template.format(v=fact.value), user_id="sam")
                f_hit1, f_rec3, _ = _score(fresh, facts)
            rows.append(
                (
                    day,
                    {
                        "entries": v.count(user_id="sam", include_superseded=True),
                        "current": v.count(user_id="sam"),
                        "cold": v.count(user_id="sam", tier="cold", include_superseded=True),
                        "hit1": hit1,
                        "rec3": rec3,
                        "stale": stale,
                        "fresh_hit1": f_hit1,
                        "fresh_rec3": f_rec3,
                        "ms": ms,
                    },
                )
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--facts", type=int, default=40)
    parser.add_argument("--chatter", type=int, default=6)
    parser.add_argument("--change-days", type=float, default=45.0)
    parser.add_argument("--embedder", default="none", choices=["none", "local", "hashing"])
    parser.add_argument("--modes", nargs="+", default=["supersede", "update", "append"])
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if not 1 <= args.facts <= len(ATTRIBUTES):
        parser.error(f"--facts must be 1..{len(ATTRIBUTES)}")
    print(
        f"{args.days} days, {args.facts} facts, {args.chatter} notes a day, a change every "
        f"~{args.change_days:g} days per fact, embedder {args.embedder}, seed {args.seed}\n"
    )
    print(
        "| mode | day | entries (current) | cold | hit@1 | recall@3 | stale in top 3 "
        "| fresh vault hit@1 / recall@3 | ms / query |"
    )
    print("|---|---:|---|---:|---:|---:|---:|---|---:|")
    for mode in args.modes:
        for day, r in run(args, mode):
            print(
                f"| {mode} | {day} | {r['entries']:.0f} ({r['current']:.0f}) | {r['cold']:.0f} "
                f"| {r['hit1']:.3f} | {r['rec3']:.3f} | {r['stale']:.3f} "
                f"| {r['fresh_hit1']:.3f} / {r['fresh_rec3']:.3f} | {r['ms']:.1f} |"
            )


if __name__ == "__main__":
    main()
