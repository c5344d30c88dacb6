"""``KeywordIndex``: BM25 over the stored tokens, inside the view and its filters, scored
with the caller's own statistics."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import timedelta

import pytest

from memvault import Domain, Kind, MemClass, MemoryEntry, Store, Tier
from memvault.retrieval.terms import CommonTermPlanner
from memvault.stores.protocols import KeywordIndex
from memvault.stores.values import EntryFilter, KeywordWeights, SearchDoc, View
from memvault.text import index_text

from .support import OWNER, SHARED, T0, alice_data, doc, entry, hit_ids, put, scores_of

# -- keyword search ----------------------------------------------------------------


def test_every_backend_is_a_keyword_index(store: Store) -> None:
    assert isinstance(store, KeywordIndex)


def test_search_docs_returns_the_stored_tokens_of_the_users_entries(store: Store) -> None:
    mine = SearchDoc(head="title", body="warehouse clickhouse", extra="context near")
    store.insert([(entry("e1", "Our warehouse"), mine)])
    put(store, entry("e2", "Lunch at noon"), entry("e1", "bob's", user="bob"))

    docs = store.search_docs("alice", ["e1", "e2", "nope", "e1"])
    assert docs == {"e1": mine, "e2": doc(entry("e2", "Lunch at noon"))}
    assert store.search_docs("bob", ["e1", "e2"]) == {"e1": doc(entry("e1", "bob's", user="bob"))}
    assert store.search_docs("carol", ["e1"]) == {}
    assert store.search_docs("alice", []) == {}


def test_keyword_search_finds_an_entry_by_one_of_its_tokens(store: Store) -> None:
    put(
        store,
        entry("e1", "Our warehouse runs on ClickHouse"),
        entry("e2", "Lunch is at noon"),
        entry("e3", "公司的数据仓库用的是 ClickHouse"),
    )
    assert hit_ids(store, OWNER, "warehouses") == ["e1"]  # stemmed like the document
    assert sorted(hit_ids(store, OWNER, "clickhouse")) == ["e1", "e3"]
    assert hit_ids(store, OWNER, "数据仓库") == ["e3"]
    assert hit_ids(store, OWNER, "zebra") == []
    assert store.keyword_search(OWNER, []) == []


def test_a_token_of_any_length_is_found(store: Store) -> None:
    # MariaDB's FULLTEXT index left out words over 84 characters (a hash, a long
    # identifier); every backend finds them, and tells two long ones apart.
    long_a, long_b = "k" * 250 + "a", "k" * 250 + "b"
    put(store, entry("e1", f"the key {long_a} here"), entry("e2", f"the key {long_b}"))
    assert hit_ids(store, OWNER, long_a) == ["e1"]
    assert hit_ids(store, OWNER, long_b) == ["e2"]


def test_keyword_search_scores_are_positive_and_best_first(store: Store) -> None:
    put(
        store,
        entry("both", "red apples and green pears", seconds=1),
        entry("one", "red cars and fast trains", seconds=2),
        # Entries that match nothing keep both terms rare enough to carry weight.
        *[entry(f"filler{i}", f"unrelated text number {i}", seconds=3 + i) for i in range(6)],
    )
    ranked = store.keyword_search(OWNER, ["red", "pear"])

    assert [e.id for e, _ in ranked] == ["both", "one"]
    assert ranked[0][1] > ranked[1][1] > 0


def test_keyword_search_ranks_name_matches_above_body_matches(store: Store) -> None:
    put(
        store,
        entry("in-body", "notes about the kafka cluster sizing"),
        entry("in-name", "notes about the cluster sizing", name="kafka"),
        *[entry(f"filler{i}", f"unrelated text number {i}") for i in range(6)],
    )
    assert hit_ids(store, OWNER, "kafka") == ["in-name", "in-body"]


def test_keyword_search_respects_limit(store: Store) -> None:
    put(store, *[entry(f"e{i}", f"common word {i}") for i in range(20)])
    assert len(hit_ids(store, OWNER, "common", limit=7)) == 7
    assert len(hit_ids(store, OWNER, "common", limit=100)) == 20


def test_common_terms_are_dropped_when_the_query_has_rarer_ones(store: Store) -> None:
    put(
        store,
        *[entry(f"c{i}", f"coffee note {i}") for i in range(5)],
        entry("rare", "coffee with lisbon friends"),
        entry("other", "tea in lisbon"),
        entry("plain", "an unrelated line"),
    )
    # 6 of 8 entries say coffee: over a 50% share it is common, and left out.
    by_share = CommonTermPlanner(cutoff=1000, share=0.5)
    assert sorted(hit_ids(store, OWNER, "coffee lisbon", planner=by_share)) == ["other", "rare"]
    # The share rule alone decides here; the absolute cutoff is far away.
    plain = CommonTermPlanner(cutoff=1000)
    assert len(hit_ids(store, OWNER, "coffee lisbon", planner=plain, limit=20)) == 7
    # A floor above the view's size keeps the share rule out of small vaults.
    floored = CommonTermPlanner(cutoff=1000, share=0.5, floor=8)
    assert len(hit_ids(store, OWNER, "coffee lisbon", planner=floored, limit=20)) == 7


def test_common_term_share_counts_only_the_callers_view(store: Store) -> None:
    put(
        store,
        entry("a-coffee", "coffee in the morning"),
        entry("a-lisbon", "a trip to lisbon"),
        entry("a-1", "plain line one"),
        entry("a-2", "plain line two"),
        *[entry(f"b{i}", f"coffee number {i}", user="bob") for i in range(10)],
    )
    # Counted over everyone, coffee (11 of 14 entries) would be common and dropped;
    # for alice it is in 1 of 4, so both words are searched.
    planner = CommonTermPlanner(cutoff=1000, share=0.6)
    found = sorted(hit_ids(store, OWNER, "coffee lisbon", planner=planner))
    assert found == ["a-coffee", "a-lisbon"]


def test_common_only_queries_ask_for_all_terms_first(store: Store) -> None:
    put(
        store,
        entry("both", "coffee and tea"),
        *[entry(f"c{i}", f"coffee {i}") for i in range(3)],
        *[entry(f"t{i}", f"tea {i}") for i in range(3)],
    )
    planner = CommonTermPlanner(cutoff=1000, share=0.3)
    assert hit_ids(store, OWNER, "coffee tea", planner=planner, limit=20) == ["both"]
    # Nothing holds every word: any of them will do.
    store.delete(OWNER, ["both"])
    assert len(hit_ids(store, OWNER, "coffee tea", planner=planner, limit=20)) == 6


def test_keyword_search_respects_the_view(store: Store) -> None:
    put(
        store,
        entry("shared", "zebra shared"),
        entry("mine", "zebra private to a1", agent_id="a1"),
        entry("theirs", "zebra private to a2", agent_id="a2"),
        entry("bobs", "zebra of bob", user="bob"),
        entry("bobs-a1", "zebra of bob's a1", user="bob", agent_id="a1"),
    )
    assert sorted(hit_ids(store, OWNER, "zebra")) == ["mine", "shared", "theirs"]
    assert hit_ids(store, SHARED, "zebra") == ["shared"]
    assert sorted(hit_ids(store, View("alice", "a1"), "zebra")) == ["mine", "shared"]
    assert sorted(hit_ids(store, View("alice", "a3"), "zebra")) == ["shared"]
    assert sorted(hit_ids(store, View("bob", "a1"), "zebra")) == ["bobs", "bobs-a1"]
    assert hit_ids(store, View("carol", all_agents=True), "zebra") == []


def test_keyword_search_applies_kind_tier_and_domain_filters(store: Store) -> None:
    put(
        store,
        entry("proj-work", "zebra", kind=Kind.PROJECT, domain=Domain.WORK),
        entry("proj-cold", "zebra", kind=Kind.PROJECT, tier=Tier.COLD),
        entry("user-life", "zebra", kind=Kind.USER, domain=Domain.LIFE),
        entry("ref-short", "zebra", kind=Kind.REFERENCE, mem_class=MemClass.SHORT_TERM),
    )
    cases = {
        EntryFilter(kind=Kind.PROJECT): ["proj-cold", "proj-work"],
        EntryFilter(kind=Kind.FEEDBACK): [],
        EntryFilter(tier=Tier.COLD): ["proj-cold"],
        EntryFilter(tier=Tier.ACTIVE): ["proj-work", "ref-short", "user-life"],
        EntryFilter(domain=Domain.WORK): ["proj-work"],
        EntryFilter(domain=Domain.LIFE): ["user-life"],
        EntryFilter(kind=Kind.PROJECT, domain=Domain.LIFE): [],
        EntryFilter(mem_class=MemClass.SHORT_TERM): ["ref-short"],
    }
    for flt, expected in cases.items():
        assert sorted(hit_ids(store, OWNER, "zebra", flt=flt)) == expected, flt


def test_keyword_search_fills_the_limit_when_filtering_by_session(store: Store) -> None:
    put(
        store,
        *[entry(f"s1-{i}", "apple apple apple", session_id="s1") for i in range(3)],
        *[entry(f"s2-{i}", "apple pie with some more words", session_id="s2") for i in range(2)],
    )
    found = hit_ids(store, OWNER, "apple", flt=EntryFilter(session_id="s2"), limit=2)
    assert sorted(found) == ["s2-0", "s2-1"]


# -- keyword scores use the caller's own statistics (issue 11, section 5) -------------
# FTS5's bm25() counts entries, lengths and document frequencies over the whole table,
# so a score moved when another user stored a word. Scores and order must depend on
# the caller's view alone.


def test_keyword_scores_and_order_ignore_other_users_data(store: Store) -> None:
    put(store, *alice_data())
    views = [OWNER, SHARED, View("alice", "a1"), View("alice", "a9")]
    before = scores_of(store, views)
    assert all(before[:4]), "every unfiltered query finds something"

    bob = [
        # the same words, more often, in longer and shorter entries
        *[
            entry(f"b{i}", "zebra apple lisbon coffee " * (1 + i % 3), user="bob")
            for i in range(30)
        ],
        *[entry(f"bn{i}", f"pie recipe notes {i}", user="bob", name="zebra") for i in range(5)],
        # none of the words
        *[entry(f"bx{i}", "completely different words " * 9, user="bob") for i in range(40)],
        # private to an agent with alice's agent id, and kinds alice filters on
        *[
            entry(f"bp{i}", "coffee zebra", user="bob", agent_id="a1", kind=Kind.PROJECT)
            for i in range(6)
        ],
    ]
    put(store, *bob)
    assert scores_of(store, views) == before

    # A user whose id only differs in case, and a further user with one entry.
    put(store, entry("c1", "zebra " * 50, user="Alice"), entry("d1", "apple", user="dave"))
    assert scores_of(store, views) == before

    # Changing and deleting others' entries moves nothing either.
    def lengthen(current: MemoryEntry) -> tuple[MemoryEntry, SearchDoc]:
        new = current.replace(content=current.content + " lisbon pie" * 20)
        return new, doc(new)

    store.update(View("bob", all_agents=True), "b0", lengthen)
    store.delete(View("bob", all_agents=True), [e.id for e in bob[::2]])
    assert scores_of(store, views) == before


def test_keyword_statistics_are_those_of_the_exact_view(store: Store) -> None:
    put(store, *alice_data())
    shared_and_a1 = [SHARED, View("alice", "a1")]
    before = scores_of(store, shared_and_a1)
    # Another agent's private entries are outside these views: their scores stay.
    put(
        store,
        *[entry(f"p{i}", "zebra apple lisbon " * 3, agent_id="a7") for i in range(12)],
    )
    assert scores_of(store, shared_and_a1) == before
    # The owner's view holds them, so its scores move.
    assert scores_of(store, [OWNER]) != scores_of(store, [View("alice", "a1")])


def test_ties_go_to_the_entry_stored_first(store: Store) -> None:
    put(store, *alice_data())
    ranked = store.keyword_search(OWNER, index_text("lisbon coffee").split(), limit=50)
    order = [e.id for e, _ in ranked]
    scores = dict((e.id, s) for e, s in ranked)
    assert scores["twin1"] == scores["twin2"]
    assert order.index("twin1") + 1 == order.index("twin2")


DAY = timedelta(days=1)


# -- filters inside the query ----------------------------------------------------------


def test_expired_entries_do_not_use_up_keyword_candidate_places(store: Store) -> None:
    now = T0 + timedelta(days=10)
    gone = now - timedelta(hours=1)
    put(
        store,
        # the best matches, all expired
        *[entry(f"old{i}", "walrus walrus walrus", expires_at=gone) for i in range(3)],
        # weaker matches, still valid (one until later, two forever)
        entry("new0", "a walrus in a long line of many other words", expires_at=now + DAY),
        *[entry(f"new{i}", "a walrus in a long line of many other words") for i in (1, 2)],
        *[entry(f"filler{i}", f"unrelated text number {i}") for i in range(6)],
    )
    assert hit_ids(store, OWNER, "walrus", limit=3) == ["old0", "old1", "old2"]
    valid = EntryFilter(valid_at=now)
    assert hit_ids(store, OWNER, "walrus", flt=valid, limit=3) == ["new0", "new1", "new2"]
    # Also when another filter joins it, and whatever ranking path the backend takes.
    both = EntryFilter(valid_at=now, kind=Kind.USER)
    assert hit_ids(store, OWNER, "walrus", flt=both, limit=3) == ["new0", "new1", "new2"]
    assert hit_ids(store, OWNER, "walrus", flt=EntryFilter(valid_at=T0), limit=3) == [
        "old0",
        "old1",
        "old2",
    ]


def test_valid_at_does_not_change_the_scores_of_what_it_keeps(store: Store) -> None:
    now = T0 + timedelta(days=10)
    put(
        store,
        entry("old", "walrus tusks", expires_at=now - DAY),
        entry("new", "walrus beach"),
        *[entry(f"filler{i}", f"unrelated text number {i}") for i in range(6)],
    )
    everything = dict(
        (e.id, s) for e, s in store.keyword_search(OWNER, index_text("walrus").split())
    )
    valid = store.keyword_search(OWNER, ["walrus"], flt=EntryFilter(valid_at=now))
    assert [(e.id, s) for e, s in valid] == [("new", everything["new"])]


# -- the engine decides which terms run (TermPlanner) -----------------------------------


class _Planner:
    """Records what the store asks, and runs the groups it was given."""

    def __init__(self, cutoff: int, groups: list[tuple[str, list[str]]]) -> None:
        self.cutoff = cutoff
        self.groups = groups
        self.common: dict[str, bool] = {}

    def cutoff_for(self, entries: int) -> int:
        return self.cutoff

    def plan(
        self, terms: Sequence[str], is_common: Callable[[str], bool]
    ) -> list[tuple[str, list[str]]]:
        self.common = {t: is_common(t) for t in terms}
        return self.groups


def test_a_planner_passed_in_decides_which_terms_run(store: Store) -> None:
    put(
        store,
        entry("both", "coffee and tea"),
        *[entry(f"c{i}", f"coffee {i}") for i in range(3)],
        entry("tea", "tea alone"),
        entry("b1", "tea tea tea", user="bob"),
        *[entry(f"b{i}", f"tea {i}", user="bob") for i in range(2, 9)],
    )
    terms = index_text("coffee tea").split()
    coffee, tea = terms
    # Empty groups fall through to the next one; every term of an AND group must match.
    planner = _Planner(2, [(" OR ", ["zebra"]), (" AND ", terms), (" OR ", terms)])
    found = store.keyword_search(OWNER, terms, planner=planner)
    assert [e.id for e, _ in found] == ["both"]
    # Common: in more than the cutoff of the caller's entries (bob's tea counts for nothing).
    assert planner.common == {coffee: True, tea: False}
    only_tea = _Planner(2, [(" OR ", [tea])])
    assert sorted(hit_ids(store, OWNER, "coffee tea", planner=only_tea)) == ["both", "tea"]
    # A cutoff of 0 means no term is common, and the store does not count.
    none_common = _Planner(0, [(" OR ", terms)])
    assert len(hit_ids(store, OWNER, "coffee tea", planner=none_common)) == 5
    assert none_common.common == {coffee: False, tea: False}
    assert store.keyword_search(OWNER, terms, planner=_Planner(2, [])) == []
    # Without a planner every term runs, as with a policy that calls no term common.
    assert hit_ids(store, OWNER, "coffee tea") == hit_ids(
        store, OWNER, "coffee tea", planner=CommonTermPlanner()
    )
    assert len(hit_ids(store, OWNER, "coffee tea")) == 5
    # The engine's policy object runs in the store like any planner.
    assert sorted(hit_ids(store, OWNER, "coffee tea", planner=CommonTermPlanner(cutoff=2))) == [
        "both",
        "tea",
    ]


# -- phrase terms ---------------------------------------------------------------------


def test_a_phrase_term_matches_its_tokens_next_to_each_other(store: Store) -> None:
    put(
        store,
        entry("together", "数据中台的权限申请流程"),
        entry("apart", "数据中心在中台旁边"),  # every bigram of 数据中台, not in a row
        entry("other", "今天天气很好"),
    )
    # Tokens split between two columns are not next to each other.
    split = entry("split", "中台")
    store.insert([(split, SearchDoc(head="数据 据中", body="中台"))])
    assert [e.id for e, _ in store.keyword_search(OWNER, ["数据 据中 中台"])] == ["together"]
    bigrams = ["数据", "据中", "中台"]
    without = store.keyword_search(OWNER, bigrams)
    with_phrase = store.keyword_search(OWNER, [*bigrams, "数据 据中 中台"])
    assert {e.id for e, _ in with_phrase} == {e.id for e, _ in without}
    assert with_phrase[0][0].id == "together"
    # The phrase adds its share, weighted by its length, to the tokens' shares.
    before = {e.id: s for e, s in without}
    after = {e.id: s for e, s in with_phrase}
    assert after["apart"] == before["apart"]
    assert after["together"] > before["together"]
    heavier = store.keyword_search(
        OWNER, [*bigrams, "数据 据中 中台"], weights=KeywordWeights(phrase=2.0)
    )
    gain = {e.id: s for e, s in heavier}["together"] - before["together"]
    assert gain == pytest.approx(2 * (after["together"] - before["together"]), rel=1e-9)


def test_a_phrase_counts_every_occurrence_and_every_column(store: Store) -> None:
    put(
        store,
        entry("once", "长江大桥 长江大河"),
        entry("twice", "长江大桥 长江大桥"),
        entry("in-name", "别的内容", name="长江大桥"),
        entry("in-body", "长江大桥", name="别的内容"),  # the same tokens as in-name
        *[entry(f"f{i}", f"无关的句子 {i}") for i in range(6)],
    )
    scores = {e.id: s for e, s in store.keyword_search(OWNER, ["长江 江大 大桥"])}
    assert set(scores) == {"once", "twice", "in-name", "in-body"}
    assert scores["twice"] > scores["once"]
    assert scores["in-name"] > scores["in-body"]


def test_phrase_terms_follow_the_view_and_filters(store: Store) -> None:
    put(
        store,
        entry("mine", "销售看板下周上线", kind=Kind.PROJECT),
        entry("mine-user", "销售看板已经上线"),
        entry("private", "销售看板的草稿", agent_id="a1"),
        entry("bobs", "销售看板下周上线", user="bob"),
    )
    phrase = ["销售 售看 看板"]
    assert sorted(e.id for e, _ in store.keyword_search(OWNER, phrase)) == [
        "mine",
        "mine-user",
        "private",
    ]
    assert sorted(e.id for e, _ in store.keyword_search(SHARED, phrase)) == ["mine", "mine-user"]
    projects = store.keyword_search(OWNER, phrase, flt=EntryFilter(kind=Kind.PROJECT))
    assert [e.id for e, _ in projects] == ["mine"]
