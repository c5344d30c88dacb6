"""The source subject (who an entry is about or from): stored, changed and filtered on
every backend, inside the store's own queries (list, count, keyword search)."""

from __future__ import annotations

from memvault import Store
from memvault.stores.values import EntryFilter

from .support import OWNER, doc, entry, hit_ids, ids, put


def test_the_subject_is_stored_and_read_back(store: Store) -> None:
    put(
        store,
        entry("u", "likes tea", source_subject="user"),
        entry("c", "Caroline paints watercolours", source_subject="Caroline"),
        entry("n", "nobody said"),
    )
    assert store.get(OWNER, "u").source_subject == "user"  # type: ignore[union-attr]
    assert store.get(OWNER, "c").source_subject == "Caroline"  # type: ignore[union-attr]
    assert store.get(OWNER, "n").source_subject is None  # type: ignore[union-attr]


def test_list_count_and_keyword_search_filter_by_subject(store: Store) -> None:
    put(
        store,
        entry("u1", "the tea is green", source_subject="user", seconds=1),
        entry("a1", "the tea was recommended", source_subject="assistant", seconds=2),
        entry("c1", "the tea comes from Caroline", source_subject="Caroline", seconds=3),
        entry("n1", "the tea nobody named", seconds=4),
        entry("u2", "coffee in the morning", source_subject="user", seconds=5),
    )
    for subject, expected in {
        "user": ["u2", "u1"],
        "assistant": ["a1"],
        "Caroline": ["c1"],
        "caroline": [],  # a third party's name is matched as written
    }.items():
        flt = EntryFilter(source_subject=subject)
        assert ids(store.list_entries(OWNER, flt)) == expected, subject
        assert store.count(OWNER, flt) == len(expected), subject
        searched = hit_ids(store, OWNER, "tea", flt=flt)
        assert sorted(searched) == sorted(e for e in expected if e != "u2"), subject
    assert store.count(OWNER) == 5


def test_an_update_changes_the_subject(store: Store) -> None:
    (e,) = put(store, entry("e1", "the tea is green", source_subject="user"))
    changed = e.replace(source_subject="Mel")
    store.update(OWNER, "e1", lambda current: (current.replace(source_subject="Mel"), doc(e)))
    assert store.get(OWNER, "e1") == changed
    assert hit_ids(store, OWNER, "tea", flt=EntryFilter(source_subject="Mel")) == ["e1"]
    assert hit_ids(store, OWNER, "tea", flt=EntryFilter(source_subject="user")) == []
