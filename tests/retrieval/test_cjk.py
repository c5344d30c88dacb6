"""Chinese, Japanese and Korean substrings always match (issue 13, item 2).

jieba cuts a query and a document independently, and often differently: "销售看板" is
indexed as 看 / 板 while the query "看板" asks for 看板, so the entry was missed. CJK
runs are now indexed as character bigrams beside jieba's words, queries are cut the
same way, and a query's run is also searched as a phrase of its bigrams, so an entry
holding it contiguously outranks one where its bigrams are scattered. The table below
runs through ``Vault.search`` on every backend (SQLite file and in-memory).
"""

from __future__ import annotations

import pytest

from memvault import Vault
from memvault.stores.values import View
from memvault.text import (
    cjk_bigrams,
    cjk_runs,
    index_text,
    query_phrases,
    query_terms,
    tokenize,
)

DOCS: dict[str, str] = {
    "kanban": "销售看板下周上线",
    "feishu": "我们用飞书管理项目进度",
    "tofu": "这家餐厅的麻婆豆腐特别好吃",
    "pku": "他在北京大学读计算机",
    "report": "下周三要交季度报告",
    "zhongtai": "数据中台的权限申请流程",
    "bridge": "周末去看了南京市长江大桥",
    "concert": "周杰伦的演唱会门票已经买好了",
    "warehouse": "公司的数据仓库用的是 ClickHouse",
    "kafka": "Kafka 集群扩容到十二个节点",
    "grafana": "告警规则都配置在 Grafana 里面",
    "dentist": "每半年去牙科诊所洗一次牙",
    "gym": "健身房的私教课每周二和周四",
    "sister": "妹妹在深圳做跨境电商",
    "rent": "房租每个月五号交给房东",
    "visa": "日本签证需要提前一个月办理",
    "tokyo": "東京タワーに行きました",
    "meeting_ja": "来週の会議はオンラインで行います",
    "db_ja": "新しいデータベースを導入しました",
    "seoul": "서울에서 회의가 있습니다",
    "deadline_ko": "내일 프로젝트 마감입니다",
    "backup_ko": "데이터베이스 백업을 매일 확인하세요",
    "sales_team": "销售团队说看板不好用",  # 销售 and 看板, but apart
    "cat": "家里的猫叫小橘，喜欢吃鱼",
    "backend": "后端服务用 Python 和 Golang 写的",
    "wedding": "十月份参加表姐的婚礼",
    "allergy": "对花生过敏，不能吃坚果",
    "flight": "周五晚上的航班飞成都",
    "coffee": "早上只喝美式咖啡不加糖",
    "piano": "女儿每周六上钢琴课",
}

# (query, the entry it must find, "first" or "top3" where several entries hold it).
# The rows marked "cut" are substrings jieba cuts differently in query and document;
# before bigrams each of them missed its entry (nothing found, or another entry first).
ROWS: list[tuple[str, str, str]] = [
    # exact substrings of 2-6 characters
    ("看板", "kanban", "top3"),  # sales_team holds it too
    ("售看板", "kanban", "first"),  # cut
    ("销售看板", "kanban", "first"),
    ("飞书", "feishu", "first"),  # cut
    ("书管理", "feishu", "first"),
    ("中台", "zhongtai", "first"),  # cut
    ("权限申请", "zhongtai", "first"),
    ("杰伦", "concert", "first"),  # cut
    ("周杰", "concert", "first"),  # cut
    ("唱会", "concert", "first"),  # cut
    ("演唱会门票", "concert", "first"),
    ("市长", "bridge", "first"),  # cut
    ("长江大桥", "bridge", "first"),
    ("北京大学", "pku", "first"),
    ("下周三", "report", "first"),
    ("季度报", "report", "first"),
    ("麻婆豆腐", "tofu", "first"),
    ("婆豆腐", "tofu", "first"),
    ("牙科诊所", "dentist", "first"),
    ("私教", "gym", "first"),  # cut
    ("周二", "gym", "first"),  # cut
    ("跨境电商", "sister", "first"),
    ("五号交", "rent", "first"),
    ("个月办理", "visa", "first"),  # cut
    ("叫小橘", "cat", "first"),  # cut
    ("花生过敏", "allergy", "first"),
    ("美式咖啡", "coffee", "first"),
    ("钢琴课", "piano", "first"),
    ("表姐的婚礼", "wedding", "first"),
    ("数据仓", "warehouse", "first"),  # cut
    # mixed Chinese and English
    ("ClickHouse 数据仓库", "warehouse", "first"),
    ("Kafka 扩容", "kafka", "first"),
    ("Grafana 告警", "grafana", "first"),
    ("Golang 后端", "backend", "first"),
    # Japanese and Korean
    ("タワー", "tokyo", "first"),
    ("会議", "meeting_ja", "first"),
    ("オンライン", "meeting_ja", "first"),
    ("データベース", "db_ja", "first"),
    ("회의", "seoul", "first"),
    ("서울", "seoul", "first"),
    ("마감", "deadline_ko", "first"),
    ("백업", "backup_ko", "first"),
    # paraphrases: the words of the entry, not its text
    ("看板什么时候上线", "kanban", "first"),
    ("演唱会的票买了吗", "concert", "first"),
    ("权限怎么申请", "zhongtai", "first"),
    ("哪天交报告", "report", "first"),
    ("她对什么过敏", "allergy", "first"),
    ("航班几点飞", "flight", "first"),
]


def _ranked(vault: Vault, ids: dict[str, str], query: str) -> list[str]:
    return [ids[h.entry.id] for h in vault.search(query, user_id="lin", limit=10)]


def test_no_substring_or_paraphrase_misses_its_entry(vault: Vault) -> None:
    ids = {vault.add(text, user_id="lin").id: key for key, text in DOCS.items()}
    assert len(ROWS) >= 30
    missed = []
    for query, wanted, how in ROWS:
        ranked = _ranked(vault, ids, query)
        if wanted not in ranked[: 1 if how == "first" else 3]:
            missed.append((query, wanted, ranked[:3]))
    assert missed == []


def test_every_substring_of_every_entry_finds_an_entry_holding_it(vault: Vault) -> None:
    # Beyond the table: every CJK substring of 2-6 characters, however meaningless
    # (stop words aside, which no query searches for).
    ids = {vault.add(text, user_id="lin").id: key for key, text in DOCS.items()}
    missed, second = [], set()
    for text in DOCS.values():
        for run in [r for r in cjk_runs(text) if len(r) >= 2]:
            for size in range(2, min(6, len(run)) + 1):
                for start in range(len(run) - size + 1):
                    query = run[start : start + size]
                    if not query_terms(query):
                        continue
                    holders = {k for k, t in DOCS.items() if query in t}
                    ranked = _ranked(vault, ids, query)
                    if not holders & set(ranked[:3]):
                        missed.append((query, ranked[:3]))
                    elif ranked[0] not in holders:
                        second.add(query)
    assert missed == []
    # Two made-up two-character strings across word boundaries come second: jieba
    # gives each of their characters as a word, which another entry holds as a word
    # too; with as few entries as here the bigram's weight is no larger. (In a real
    # vault a single character is far more common than a bigram, and weighs less.)
    assert second == {"月办", "板不"}


# A query's run held contiguously (P) against the same bigrams scattered (S).
PHRASE_PAIRS = [
    ("数据中台", "数据中台的权限申请流程", "数据中心在中台旁边"),
    ("销售看板", "销售看板下周上线", "销售看了看板，看板上的销售数据"),
    ("季度报告", "下周三要交季度报告", "季度末的报告，报告季度"),
    ("長江大橋", "長江大橋", "長江和大橋"),
    ("データベース", "データベースを導入しました", "データとベースとデータベ"),
]


@pytest.mark.parametrize(("query", "contiguous", "scattered"), PHRASE_PAIRS)
def test_a_contiguous_match_outranks_scattered_bigrams(
    vault: Vault, query: str, contiguous: str, scattered: str
) -> None:
    apart = vault.add(scattered, user_id="lin")  # stored first: it would win a tie
    together = vault.add(contiguous, user_id="lin")
    for text in ("今天天气很好", "明天开会", "周末去爬山", "晚饭吃面条", "买了一本书"):
        vault.add(text, user_id="lin")
    hits = vault.search(query, user_id="lin", limit=5)
    assert [h.entry.id for h in hits][:2] == [together.id, apart.id]
    assert hits[0].sources["keyword"] > hits[1].sources["keyword"]


def test_the_phrase_decides_where_bigrams_alone_do_not(vault: Vault) -> None:
    # Every bigram of 数据中台 is in the scattered entry, which jieba's words favour;
    # only the phrase tells the two apart.
    apart = vault.add("数据中心在中台旁边", user_id="lin")
    together = vault.add("数据中台的权限申请流程", user_id="lin")
    for text in ("今天天气很好", "明天开会", "周末去爬山", "晚饭吃面条", "买了一本书"):
        vault.add(text, user_id="lin")
    store = vault.store
    view = View("lin", all_agents=True)
    terms = query_terms("数据中台")
    by_terms = [e.id for e, _ in store.keyword_search(view, terms)]
    assert by_terms[:2] == [apart.id, together.id]
    with_phrase = [e.id for e, _ in store.keyword_search(view, terms + query_phrases("数据中台"))]
    assert with_phrase[:2] == [together.id, apart.id]


def test_explain_shows_the_phrases_it_searched(vault: Vault) -> None:
    vault.add("销售看板下周上线", user_id="lin")
    why = vault.explain("销售看板", user_id="lin")
    assert why.phrases == ("销售 售看 看板",)
    assert why.to_dict()["phrases"] == ["销售 售看 看板"]
    assert "phrases '销售 售看 看板'" in str(why)


# -- tokens ---------------------------------------------------------------------------


def test_a_cjk_run_gives_jiebas_words_then_its_bigrams() -> None:
    assert tokenize("销售看板") == ["销售", "看", "板", "销售", "售看", "看板"]
    assert tokenize("销售看板", bigrams=False) == ["销售", "看", "板"]  # what version 10 stored
    assert cjk_bigrams("销售看板") == ["销售", "售看", "看板"]
    # A lone character is its own unigram, once.
    assert tokenize("猫") == ["猫"]
    assert tokenize("猫 and 狗") == ["猫", "狗"]
    # Stop-word bigrams are left out, in documents and queries alike.
    assert "我们" not in tokenize("我们的看板")
    assert "们的" in tokenize("我们的看板")


def test_kana_and_hangul_runs_get_bigrams() -> None:
    assert {"タワ", "ワー"} <= set(tokenize("東京タワー"))
    assert {"서울", "울에", "에서"} <= set(tokenize("서울에서"))
    # A katakana middle dot ends a piece: no bigram holds it.
    assert cjk_bigrams("ジョン・スミス") == ["ジョ", "ョン", "スミ", "ミス"]


def test_english_tokens_are_unchanged() -> None:
    text = "Alice writes the Go services and prefers short answers"
    assert tokenize(text) == ["alic", "write", "go", "servic", "prefer", "short", "answer"]
    assert tokenize(text) == tokenize(text, bigrams=False)
    assert query_phrases(text) == []
    assert index_text("ClickHouse 数据仓库").split()[0] == "clickhous"


def test_query_phrases_are_the_runs_of_two_bigrams_or_more() -> None:
    assert query_phrases("销售看板什么时候上线") == ["销售 售看 看板 板什 么时 时候 候上 上线"]
    assert query_phrases("看板") == []  # one bigram: a plain term already
    assert query_phrases("Kafka 集群扩容, 数据仓库") == ["集群 群扩 扩容", "数据 据仓 仓库"]
    assert len(query_phrases("。".join(["一二三"] * 20), max_phrases=3)) == 1
    long = query_phrases("天" + "地人" * 40)  # 81 characters, 80 bigrams
    assert [len(p.split()) for p in long] == [32, 32, 16]
    assert len(query_phrases("。".join(f"{c}二三" for c in "四五六七八九"), max_phrases=3)) == 3
