"""What the rule extraction finds, pinned on a varied bilingual sample (issue 29 item 5).

The write path's extraction was made faster without changing what it finds: these
outputs were recorded before that work (``extraction_pinned.json``) and must stay the
same, both from ``extract_rules`` (with the names found earlier as the user's known
names) and as the graph a real SQLite vault stores from ``add_many``. The sample mixes
short English and Chinese chat lines, long answers with code, and names written in
lower case after they became known.

Re-record (only when a change of the rules is meant): ``python -m
tests.graph.test_extraction_pinned``.
"""

from __future__ import annotations

import json
import sqlite3
import unicodedata
from collections.abc import Mapping, Sequence
from contextlib import closing
from pathlib import Path
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from memvault import Vault, VaultConfig, load_config
from memvault.graph import extract_rules
from memvault.names import _CJK_RUN, _CLAUSE, _WORD, _tidy, candidate_keys

DATA = Path(__file__).parents[2] / "bench" / "data"
PINNED = Path(__file__).parent / "extraction_pinned.json"

_CODE = """```python
import pandas as pd
from fastapi import FastAPI

class OrderBook:
    \"\"\"Keeps the bids of Project Zeus in PostgreSQL.\"\"\"
    def top(self, n: int = 10) -> list[Bid]:
        return sorted(self.bids, key=lambda b: b.price)[:n]
```"""

_HAND = [
    ("Ann", "I moved to Lisbon last May and work at Bank of America with Dr. Smith."),
    ("Ann", "Then Grace said Bob's Project Zeus ships on Monday; ask ClickHouse folks."),
    ("Ann", "caroline and grace went hiking near Mount Everest with Jean-Luc O'Brien."),
    ("Ann", "张三下周去北京出差 with Ann，项目代号：星河，在阿里巴巴开会。"),
    ("assistant", "Sure! Talking to Sam about Node.js, C++ and the iPhone at NASA is fine."),
    ("Ann", "lisbon was lovely; zeus is late again, clickhouse too."),
    ("Ann", "王小明在清华大学读书，他的朋友李雷住在上海市浦东新区。"),
    ("Ann", "ＣｌｉｃｋＨｏｕｓｅ vs Postgres: Ｎｏｄｅ.js folks at Ｇｏｏｇｌｅ prefer it."),
]


def sample() -> list[tuple[str, str]]:
    """(speaker, text) pairs: English, Chinese, long composites and hand-written cases."""
    shapes = [
        (t["speaker"], t["content"])
        for u in json.loads((DATA / "shapes.json").read_text(encoding="utf-8"))["users"]
        for t in u["turns"]
    ]
    chinese = [
        (t["speaker"], t["content"])
        for u in json.loads((DATA / "zh.json").read_text(encoding="utf-8"))["users"]
        for t in u["turns"]
    ]
    out = shapes[::2] + chinese[::20]
    for k in range(8):
        part = shapes[k * 40 : k * 40 + 16] + chinese[k * 60 : k * 60 + 6]
        body = "\n\n".join(text for _, text in part)
        out.append(("assistant", f"{body}\n\n{_CODE}\n\n{body.upper() if k % 3 == 0 else ''}"))
    return out + _HAND


def _known_from(names: dict[str, str]) -> Any:
    def known(keys: Sequence[str]) -> Mapping[str, str]:
        return {k: names[k] for k in keys if k in names}

    return known


def extractions() -> list[dict[str, Any]]:
    """``extract_rules`` of each text, the names found before it counting as known."""
    names: dict[str, str] = {}
    out = []
    for speaker, text in sample():
        found = extract_rules(text, known=_known_from(names), people=[speaker])
        for m in found.mentions:
            names.setdefault(m.key, m.key)
        out.append(
            {
                "mentions": [[m.key, m.name, m.type] for m in found.mentions],
                "relations": [[r.source, r.target, r.type] for r in found.relations],
            }
        )
    return out


def stored_graph(directory: Path, config: VaultConfig) -> dict[str, Any]:
    """The graph a SQLite vault keeps after ``add_many`` of the sample in batches."""
    path = directory / "pinned.db"
    records = [
        {"content": text, "metadata": {"speaker": speaker, "n": n}, "session_id": f"s{n // 25}"}
        for n, (speaker, text) in enumerate(sample())
    ]
    stored = []
    with Vault(path, config=config) as vault:
        for start in range(0, len(records), 60):
            stored += vault.add_many(records[start : start + 60], user_id="u")
        # Through the store's read: co-mentions are kept as places on the links.
        _, said = vault.store.entry_links("u", [e.id for e in stored])
    db = sqlite3.connect(path)
    try:
        entity = {
            r[0]: [r[1], r[2]]
            for r in db.execute("SELECT entity_id, name, type FROM graph_entities")
        }
        number = {
            r[0]: int(r[1])
            for r in db.execute("SELECT id, json_extract(metadata, '$.n') FROM memories")
        }
        links: dict[int, list[list[str]]] = {}
        for entry_id, entity_id in db.execute("SELECT entry_id, entity_id FROM graph_links"):
            links.setdefault(number[entry_id], []).append(entity[entity_id])
        relations: dict[int, list[list[str]]] = {}
        for entry_id, source, target, kind in said:
            relations.setdefault(number[entry_id], []).append(
                [entity[source][0], entity[target][0], kind]
            )
        rows = db.execute("SELECT name_key, entity_id FROM graph_names")
        names = sorted([key, *entity[i]] for key, i in rows)
    finally:
        db.close()
    return {
        "entities": sorted(entity.values()),
        "names": names,
        "links": {str(n): sorted(v) for n, v in sorted(links.items())},
        "relations": {str(n): sorted(v) for n, v in sorted(relations.items())},
    }


def _config(home: Path) -> VaultConfig:
    return load_config(environ={}, home=home, embedding={"provider": "none"})


def test_rule_extraction_finds_what_it_found_before() -> None:
    pinned = json.loads(PINNED.read_text(encoding="utf-8"))["extractions"]
    now = extractions()
    assert len(now) == len(pinned)
    for i, (got, want) in enumerate(zip(now, pinned, strict=True)):
        assert got == want, f"text {i} of the sample"


def test_add_many_stores_the_graph_it_stored_before(tmp_path: Path) -> None:
    pinned = json.loads(PINNED.read_text(encoding="utf-8"))["graph"]
    got = stored_graph(tmp_path, _config(tmp_path))
    assert got["entities"] == pinned["entities"]
    assert got["names"] == pinned["names"]
    assert got["links"] == pinned["links"]
    assert got["relations"] == pinned["relations"]
    # ... read back from places on the links: the rules' co-mentions take no row.
    with closing(sqlite3.connect(tmp_path / "pinned.db")) as db:
        kinds = db.execute("SELECT DISTINCT rel_type FROM graph_relations").fetchall()
        places = db.execute("SELECT count(*) FROM graph_links WHERE co_first IS NOT NULL")
        assert kinds == [] and places.fetchone()[0] > 0


def _candidate_keys_by_definition(text: str, max_words: int) -> list[str]:
    """``candidate_keys`` as first written: every run's key computed whole."""
    seen: dict[str, None] = {}
    for clause in _CLAUSE.split(unicodedata.normalize("NFKC", text)):
        words = [m.group(0).casefold() for m in _WORD.finditer(clause)]
        for i in range(len(words)):
            for j in range(i, min(len(words), i + max_words)):
                key = _tidy(" ".join(words[i : j + 1]))
                if key:
                    seen.setdefault(key, None)
        for run in _CJK_RUN.findall(clause):
            for i in range(len(run)):
                for n in range(2, min(6, len(run) - i) + 1):
                    seen.setdefault(run[i : i + n].casefold(), None)
        if len(seen) >= 4000:
            break
    return list(seen)[:4000]


_PIECES = st.sampled_from(
    [
        "Bob",
        "bob's",
        "O'Brien’s",
        "x's",
        "a",
        "C++",
        "node.js",
        "foo_",
        "ß",
        "ŉ",
        "İstanbul",
        "ǅemal",
        "ΣΑΣ",
        "ſ",
        " ",
        "  ",
        ", ",
        ". ",
        "\n",
        "-",
        "_",
        "'",
        "’s",
        "“",
        "北京大学",
        "ｆｕｌｌ",
        "x" * 130,
        "s'",
        "&",
        "#",
    ]
)


@given(st.lists(_PIECES, max_size=16), st.integers(1, 4))
@example(["a", " ", "x's"], 2)  # a possessive ends a short run
@example(["Bob", " ", "foo_", " ", "O'Brien’s"], 3)
@example(["x" * 130, " ", "bob's"], 2)  # a key cut at its length
def test_candidate_keys_are_every_runs_key(pieces: list[str], max_words: int) -> None:
    text = "".join(pieces)
    assert candidate_keys(text, max_words=max_words) == _candidate_keys_by_definition(
        text, max_words
    )


def test_candidate_keys_of_the_sample_are_every_runs_key() -> None:
    for _, text in sample():
        assert candidate_keys(text, max_words=3) == _candidate_keys_by_definition(text, 3)


def _dumps(record: dict[str, Any]) -> str:
    """The record with one line per extraction and per part of the graph."""

    def one(value: object) -> str:
        return json.dumps(value, ensure_ascii=False)

    extractions = ",\n".join(one(e) for e in record["extractions"])
    graph = ",\n".join(f"{one(k)}: {one(v)}" for k, v in record["graph"].items())
    return f'{{"extractions": [\n{extractions}\n],\n"graph": {{\n{graph}\n}}}}\n'


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        record = {
            "extractions": extractions(),
            "graph": stored_graph(Path(tmp), _config(Path(tmp))),
        }
    PINNED.write_text(_dumps(record), encoding="utf-8")
    print(f"{len(record['extractions'])} extractions, {len(record['graph']['entities'])} entities")
