"""What debouncing saves: LLM calls and tokens of learning from one 20-turn conversation.

An agent hands the conversation so far to ``Vault.remember`` after every turn, as the
LangChain middleware does. The model is a loopback server speaking the chat-completions
wire format that reads its prompt like a model would: every line the person wrote
becomes one fact citing that message, and it reports token counts estimated from the
text it received and sent (4 characters a token). Scenarios, each on a fresh vault:

* ``debounce, one quiet period``: the 20 turns arrive quickly, then a pause;
* ``debounce, 4 bursts``: 5 turns, a pause, five times… four times;
* ``no debounce``: ``remember(..., wait=True)`` after every turn (one extraction per turn,
  each re-reading the conversation so far).

For each: the calls and tokens the server counted, the same from the engine's token
ledger (``Vault.llm_usage``) — which must match — and the facts in the profile afterwards
(the same conversation read again must not create duplicates). One extraction adds at
most ``extraction.max_facts_per_extraction`` (10) facts, so a single quiet period after
20 fact-laden turns keeps the 10 most confident: the price of the saving.

    python bench/extract_cost.py [--debounce 0.3] [--store sqlite|memory]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from tests.fakes.openai_chat import FakeChatServer, Reply

from memvault import Vault, load_config

TURNS = [
    ("I'm Priya, a backend engineer at a logistics startup.", "Nice to meet you, Priya."),
    ("We write most services in Go.", "Go suits services well."),
    ("I'm migrating our billing service from Python to Go.", "A big but worthwhile move."),
    ("Please keep your answers short.", "Understood: short answers."),
    ("I prefer code examples over long explanations.", "Examples first, then."),
    ("Our database is PostgreSQL 16.", "Noted: PostgreSQL 16."),
    ("We deploy on Kubernetes, every Tuesday.", "Tuesday deploys on Kubernetes."),
    ("My manager is called Tomás.", "Got it."),
    ("I live in Lisbon.", "Lisbon is lovely."),
    ("I'm learning Rust in my spare time.", "Rust pairs well with Go."),
    ("Our team has five engineers.", "A compact team."),
    ("The billing migration must finish by March.", "March deadline noted."),
    ("I dislike ORMs; we use plain SQL.", "Plain SQL it is."),
    ("I work remotely most days.", "Remote work noted."),
    ("We use GitHub Actions for CI.", "CI on GitHub Actions."),
    ("I speak Portuguese and English.", "Obrigado!"),
    ("Our on-call rotation is weekly.", "Weekly on-call noted."),
    ("I'm giving a talk about Go generics in May.", "Good luck with the talk."),
    ("Invoices are generated nightly by a cron job.", "Nightly invoice cron noted."),
    ("Thanks, that's all for today.", "You're welcome, Priya."),
]

_PERSON_LINE = re.compile(r"^\[(\d+)\] Person: (.+)$", re.MULTILINE)


def fake_model(body: dict[str, Any]) -> Reply:
    """Each line the person wrote becomes one fact citing it; tokens ≈ characters / 4."""
    prompt = "".join(m.get("content") or "" for m in body.get("messages", []))
    facts = [
        {
            "content": f"The user said: {text.strip()}",
            "category": "context",
            "confidence": 0.9,
            "messages": [int(index)],
        }
        for index, text in _PERSON_LINE.findall(prompt)
    ]
    answer = json.dumps({"newFacts": facts, "factsToRemove": []})
    return Reply(content=answer, usage=(max(1, len(prompt) // 4), max(1, len(answer) // 4)))


def run(
    name: str,
    bursts: list[int],
    *,
    wait: bool,
    debounce: float,
    store: str,
    workdir: Path,
) -> dict[str, Any]:
    with FakeChatServer(respond=fake_model) as chat:
        url = (
            "memory://"
            if store == "memory"
            else f"sqlite:///{workdir / (name.replace(' ', '_') + '.db')}"
        )
        config = load_config(
            environ={},
            home=str(workdir / "home"),
            store_url=url,
            embedding={"provider": "none"},
            llm={"base_url": chat.base_url, "model": "fake", "api_key": "test", "retries": 0},
            extraction={"debounce_seconds": debounce},
        )
        started = time.perf_counter()
        messages: list[dict[str, str]] = []
        turn = 0
        with Vault(config=config, embedder=None) as vault:
            for size in bursts:
                for _ in range(size):
                    person, assistant = TURNS[turn]
                    turn += 1
                    messages += [
                        {"role": "user", "content": person},
                        {"role": "assistant", "content": assistant},
                    ]
                    vault.remember(list(messages), user_id="priya", session_id="chat", wait=wait)
                if not wait:
                    deadline = time.monotonic() + 30 + debounce * 4
                    time.sleep(debounce)
                    while vault.learning.pending() and time.monotonic() < deadline:
                        time.sleep(0.05)
                    time.sleep(0.2)  # let the worker finish the batch it took
            usage = vault.llm_usage(user_id="priya").to_dict()
            facts = len(vault.profile(user_id="priya").facts)
            turns = vault.count(user_id="priya", session_id="chat")
        seconds = time.perf_counter() - started
        server_in, server_out = chat.tokens()
        ledger_in = sum(r["tokens_in"] for r in usage["by_operation"])
        ledger_out = sum(r["tokens_out"] for r in usage["by_operation"])
        return {
            "scenario": name,
            "server_calls": len(chat.requests),
            "ledger_calls": usage["calls"],
            "server_tokens": (server_in, server_out),
            "ledger_tokens": (ledger_in, ledger_out),
            "facts": facts,
            "turns": turns,
            "seconds": seconds,
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--debounce", type=float, default=0.3, help="quiet seconds (default 0.3)")
    parser.add_argument("--store", choices=("sqlite", "memory"), default="sqlite")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        rows = [
            run(
                "debounce, one quiet period",
                [20],
                wait=False,
                debounce=args.debounce,
                store=args.store,
                workdir=workdir,
            ),
            run(
                "debounce, 4 bursts",
                [5, 5, 5, 5],
                wait=False,
                debounce=args.debounce,
                store=args.store,
                workdir=workdir,
            ),
            run(
                "no debounce",
                [20],
                wait=True,
                debounce=args.debounce,
                store=args.store,
                workdir=workdir,
            ),
        ]
    print(f"20-turn conversation, remember() after every turn; store {args.store}\n")
    print(
        "| scenario | LLM calls (server / ledger) | tokens in+out (server) "
        "| tokens in+out (ledger) | ledger = server | facts | turns archived | s |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        same = r["server_calls"] == r["ledger_calls"] and r["server_tokens"] == r["ledger_tokens"]
        si, so = r["server_tokens"]
        li, lo = r["ledger_tokens"]
        print(
            f"| {r['scenario']} | {r['server_calls']} / {r['ledger_calls']} "
            f"| {si}+{so} = {si + so} "
            f"| {li}+{lo} = {li + lo} | {'yes' if same else 'NO'} | {r['facts']} | {r['turns']} "
            f"| {r['seconds']:.1f} |"
        )
    base = sum(rows[2]["server_tokens"])
    for r in rows[:2]:
        saved = 1 - sum(r["server_tokens"]) / base if base else 0.0
        print(f"\n{r['scenario']}: {saved:.0%} fewer tokens than no debounce", end="")
    print(
        "\n(one extraction adds at most extraction.max_facts_per_extraction = "
        f"{load_config(environ={}).extraction.max_facts_per_extraction} facts)"
    )
    if any(
        r["server_calls"] != r["ledger_calls"] or r["server_tokens"] != r["ledger_tokens"]
        for r in rows
    ):
        sys.exit("the ledger does not match the server's count")


if __name__ == "__main__":
    main()
