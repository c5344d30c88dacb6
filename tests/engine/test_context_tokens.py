"""A batch tokenises each neighbouring turn once; the index documents stay the same.

``add_many`` used to tokenise every turn's context (its neighbours' texts joined by
spaces), so a long answer was tokenised once as itself and again for each of up to four
neighbours. Now each text is tokenised once per batch and the tokens are joined. That
is the same document only if no token runs across the space between two texts, in any
language or normal form: shown here on texts chosen to break it (case rules that look
at the next letter, combining marks and jamo that compose, full width, CJK runs meeting
at the join) and on the stored rows of a real batch.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from memvault import Vault, load_config
from memvault.model import MemoryEntry
from memvault.retrieval.keyword import search_doc
from memvault.text import index_text

PIECES = [
    "ΟΔΟΣ",  # a final sigma: lower-cased by what follows it
    "Σίσυφος ΣΑΣ",
    "\u0301accent first",  # a combining mark with nothing to combine with
    "e\u0301te\u0301",
    "\u1100",  # a leading jamo, and a vowel jamo that would compose with it
    "\u1161\u11a8 한국어",
    "Ｆｕｌｌ ｗｉｄｔｈ ＡＢＣ１２３",
    "北京的天气",
    "很好。Beijing",
    "İstanbul'da DİYARBAKIR",
    "ﬁne ligature ﬀ",
    "Ann: see `def f(x): return x**2` in ./src/app.py",
    "",
    "   ",
    "assistant: 好的，明天见",
    "x",
]


def entry(content: str = "the turn itself") -> MemoryEntry:
    return MemoryEntry(id="e1", user_id="u", content=content, metadata={"speaker": "Ann"})


@pytest.mark.parametrize("pair", list(itertools.permutations(PIECES, 2)))
def test_tokens_of_joined_texts_are_the_texts_tokens_joined(pair: tuple[str, str]) -> None:
    joined = " ".join(pair)
    apart = " ".join(t for t in (index_text(p) for p in pair) if t)
    assert index_text(joined) == apart
    e = entry()
    assert search_doc(e, context=joined) == search_doc(e, context_tokens=apart)


def test_four_neighbours_as_one_context() -> None:
    e = entry()
    for near in itertools.islice(itertools.permutations(PIECES, 4), 2000):
        apart = " ".join(t for t in (index_text(p) for p in near) if t)
        assert search_doc(e, context=" ".join(near)) == search_doc(e, context_tokens=apart)


def test_a_batch_stores_the_documents_its_turns_context_gives(tmp_path: Path) -> None:
    """Every row a batch stores holds the document tokenised from the turn's whole
    context, as the store gives it (``Writer.doc`` reading the neighbours, the old way)."""
    turns = [
        {"content": text.strip() or "-", "session_id": "s", "metadata": {"speaker": f"p{i % 2}"}}
        for i, text in enumerate(PIECES * 2)
    ]
    config = load_config(environ={}, home=tmp_path, embedding={"provider": "none"})
    with Vault(tmp_path / "b.db", config=config) as vault:
        vault.add_many(turns[:5], user_id="u")
        vault.add_many(turns[5:], user_id="u")  # joins the session: neighbours from the store
        writer = vault._e.writer
        entries = vault.list(user_id="u", limit=100)
        expected = {e.id: writer.doc(e) for e in entries}
        stored = vault.store.search_docs("u", [e.id for e in entries])
    assert len(stored) == len(turns)
    for entry_id, want in expected.items():
        assert stored[entry_id] == want
        assert want.extra  # every turn has neighbours (and a speaker)
