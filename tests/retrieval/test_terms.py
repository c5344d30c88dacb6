"""The common-term policy (``retrieval.terms``): which groups of query terms a keyword
search runs, and when a term counts as common. The stores carry it out; the
conformance suite checks that they do."""

from __future__ import annotations

from pathlib import Path

from memvault import Vault
from memvault.config import KeywordConfig, load_config
from memvault.retrieval.terms import CommonTermPlanner, plan_common_terms, planner_for


def test_rare_terms_run_alone_when_the_query_has_common_ones() -> None:
    common = {"coffee"}
    assert plan_common_terms(["coffee", "lisbon", "tea"], common.__contains__) == [
        (" OR ", ["lisbon", "tea"])
    ]


def test_a_query_of_common_terms_asks_for_all_of_them_first() -> None:
    groups = plan_common_terms(["coffee", "tea"], lambda _: True)
    assert groups == [(" AND ", ["coffee", "tea"]), (" OR ", ["coffee", "tea"])]


def test_one_term_or_no_common_term_runs_every_term() -> None:
    assert plan_common_terms(["coffee"], lambda _: True) == [(" OR ", ["coffee"])]
    assert plan_common_terms(["coffee", "tea"], lambda _: False) == [(" OR ", ["coffee", "tea"])]


def test_the_cutoff_shrinks_with_the_share_above_the_floor() -> None:
    assert CommonTermPlanner().cutoff_for(10_000) == 0  # the rule is off
    assert CommonTermPlanner(cutoff=5000).cutoff_for(100_000) == 5000
    by_share = CommonTermPlanner(cutoff=5000, share=0.2, floor=1000)
    assert by_share.cutoff_for(100_000) == 5000  # the absolute cutoff is lower
    assert by_share.cutoff_for(10_000) == 2000  # 20% of the view
    assert by_share.cutoff_for(2_000) == 1000  # never below the floor
    assert CommonTermPlanner(cutoff=5000, share=0.2).cutoff_for(3) == 1  # at least one


def test_the_keyword_settings_describe_the_planner(tmp_path: Path) -> None:
    assert planner_for(KeywordConfig()) == CommonTermPlanner(cutoff=5000, share=0.2, floor=1000)
    config = load_config(environ={}, home=tmp_path, keyword={"common_term_floor": 7})
    assert planner_for(config.keyword) == CommonTermPlanner(cutoff=5000, share=0.2, floor=7)


def test_the_vault_searches_with_the_configured_cutoff(tmp_path: Path) -> None:
    config = load_config(
        environ={}, home=tmp_path, keyword={"common_term_cutoff": 2}, embedding={"provider": "none"}
    )
    with Vault(tmp_path / "vault.db", config=config) as vault:
        for i in range(3):
            vault.add(f"coffee note {i}", user_id="alice")
        rare = vault.add("coffee in lisbon", user_id="alice")
        # coffee is in 4 of alice's entries, over the cutoff of 2: only lisbon runs.
        assert [h.entry.id for h in vault.search("coffee lisbon", user_id="alice")] == [rare.id]
