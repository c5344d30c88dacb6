"""jieba's dictionary read from a table on disk cuts exactly as jieba with the dictionary
loaded whole (``memvault.jieba_table``): the same words in the same order, for jieba's
own calls and for memvault's tokens, on hundreds of Chinese and mixed sentences; the
table is built again when it belongs to another dictionary or is damaged, and a table
damaged while in use falls back to the whole dictionary, never to other words.

Real jieba, real files; the tokenizers are fresh ``jieba.Tokenizer`` objects, so jieba's
default one (which the rest of the suite uses) is left alone.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import jieba
import jieba.posseg as posseg
import pytest

from memvault.jieba_table import PrefixTable, install, table_path

ROOT = Path(__file__).parents[1]

MIXED = [
    "公司的数据仓库用的是 ClickHouse",
    "Kafka 集群扩容到十二个节点",
    "后端服务用 Python 和 Golang 写的，部署在 k8s 上",
    "我的邮箱是 alice@example.com，电话 138-0013-8000",
    "周杰伦的演唱会门票已经买好了！！",
    "他在北京大学读计算机，2024年毕业",
    "南京市长江大桥",
    "结婚的和尚未结婚的",
    "乌龙茶、阿里巴巴、腾讯和字节跳动",
    "東京タワーに行きました",
    "서울에서 회의가 있습니다",
    "GPT-4o 和 Claude 3.5 Sonnet 哪个更适合写代码？",
    "C++ 和 C# 的区别；.NET 8.0 发布了",
    "   空格   和\t制表符\n换行",
    "数据仓库用的是什么",
    "张三李四王五赵六在上海浦东新区陆家嘴开会",
    "我爱自然语言处理😀🎉",
    "一二三四五六七八九十百千万亿",
    "這是繁體中文的句子，測試一下",
    "a",
    "",
]


def _sample() -> list[str]:
    """The questions of memvault's Chinese retrieval set, every fifth turn of its
    conversations, the Chinese of the CJK retrieval tests and mixed sentences."""
    data = json.loads((ROOT / "bench" / "data" / "zh.json").read_text(encoding="utf-8"))
    texts = [q["text"] for user in data["users"] for q in user["questions"]]
    texts += [turn["content"] for user in data["users"] for turn in user["turns"][::5]]
    from tests.retrieval.test_cjk import DOCS

    return texts + list(DOCS.values()) + MIXED


SAMPLE = _sample()


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory holding the table of jieba's dictionary, built once for the module."""
    directory = tmp_path_factory.mktemp("cache")
    install(jieba.Tokenizer(), directory)
    return directory


@pytest.fixture(scope="module")
def whole() -> jieba.Tokenizer:
    tokenizer = jieba.Tokenizer()
    tokenizer.initialize()
    return tokenizer


def _cuts(tokenizer: jieba.Tokenizer, text: str) -> list[list[str]]:
    return [
        tokenizer.lcut(text),
        tokenizer.lcut(text, HMM=False),
        tokenizer.lcut(text, cut_all=True),
        tokenizer.lcut_for_search(text),
        tokenizer.lcut_for_search(text, HMM=False),
    ]


def test_the_table_cuts_every_sentence_as_the_whole_dictionary(
    tables: Path, whole: jieba.Tokenizer
) -> None:
    assert len(SAMPLE) > 500
    lazy = jieba.Tokenizer()
    install(lazy, tables)
    assert isinstance(lazy.FREQ, PrefixTable) and lazy.total == whole.total
    for text in SAMPLE:
        assert _cuts(lazy, text) == _cuts(whole, text), text
    tagger, whole_tagger = posseg.POSTokenizer(lazy), posseg.POSTokenizer(whole)
    for text in SAMPLE[::4]:
        assert [tuple(p) for p in tagger.lcut(text)] == [tuple(p) for p in whole_tagger.lcut(text)]


def test_words_a_process_adds_count_as_in_jieba(tables: Path, whole: jieba.Tokenizer) -> None:
    lazy = jieba.Tokenizer()
    install(lazy, tables)
    added = jieba.Tokenizer()
    added.FREQ, added.total, added.initialized = dict(whole.FREQ), whole.total, True
    # (Not del_word or suggest_freq(tune=True): jieba applies those to every tokenizer.)
    for tokenizer in (lazy, added):
        tokenizer.add_word("数据中台权限", 50_000)
        tokenizer.add_word("售看板", 90_000)
    assert lazy.suggest_freq("江大桥") == added.suggest_freq("江大桥")
    for text in ("数据中台权限申请", "销售看板下周上线", "南京市长江大桥"):
        assert _cuts(lazy, text) == _cuts(added, text)
    assert "售看板" in lazy.lcut("销售看板下周上线")
    assert lazy.total == added.total


_TOKENS = """
import json, sys
from pathlib import Path
from memvault import text
from memvault.graph.extract import extract_rules
if sys.argv[1] != "-":
    text.use_word_table(lambda: Path(sys.argv[1]))
texts = json.loads(sys.stdin.read())
out = [
    [text.tokenize(t), text.tokenize(t, bigrams=False), text.query_terms(t),
     text.query_phrases(t), text.index_text(t, t[::-1]), repr(extract_rules(t))]
    for t in texts
]
import jieba
print(json.dumps({"freq": type(jieba.dt.FREQ).__name__, "out": out}, ensure_ascii=False))
"""


def _memvault_tokens(texts: list[str], table: str) -> dict[str, object]:
    """memvault's tokens and graph extraction of ``texts`` in a fresh process, jieba's
    dictionary read from the table in ``table`` ("-": loaded whole)."""
    done = subprocess.run(
        [sys.executable, "-c", _TOKENS, table],
        input=json.dumps(texts, ensure_ascii=False),
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "PYTHONHASHSEED": "0"},
        timeout=300,
        check=True,
    )
    report: dict[str, object] = json.loads(done.stdout)
    return report


def test_memvaults_tokens_are_the_same_in_both_modes(tables: Path) -> None:
    lazy, full = _memvault_tokens(SAMPLE, str(tables)), _memvault_tokens(SAMPLE, "-")
    assert (lazy["freq"], full["freq"]) == ("PrefixTable", "dict")
    assert lazy["out"] == full["out"]


# A small dictionary of its own (word, frequency, tag), to build tables quickly.
SMALL = (
    "数据 5000 n\n数据仓库 800 n\n仓库 3000 n\n用 9000 p\n的 20000 uj\n是 15000 v\n什么 4000 r\n"
)
TEXTS = ["数据仓库用的是什么", "仓库的数据是什么", "用什么数据仓库"]


def _tokenizer(dictionary: Path, tmp: Path) -> jieba.Tokenizer:
    tokenizer = jieba.Tokenizer(str(dictionary))
    tokenizer.tmp_dir = str(tmp)  # jieba's own cache of a whole load, kept in the test's dir
    return tokenizer


def _whole(dictionary: Path, tmp: Path) -> jieba.Tokenizer:
    tokenizer = _tokenizer(dictionary, tmp)
    tokenizer.initialize()
    return tokenizer


def test_a_table_is_built_once_and_read_after(tmp_path: Path) -> None:
    dictionary = tmp_path / "dict.txt"
    dictionary.write_text(SMALL, encoding="utf-8")
    cache = tmp_path / "cache"
    install(_tokenizer(dictionary, tmp_path), cache)
    (path,) = cache.glob("jieba-*.sqlite3")
    assert path == table_path(cache, dictionary.read_bytes())
    built = path.stat()
    lazy = _tokenizer(dictionary, tmp_path)
    install(lazy, cache)
    assert path.stat().st_ino == built.st_ino  # opened, not built again
    assert sorted(p.name for p in cache.iterdir()) == [path.name]  # no temporary file left
    whole = _whole(dictionary, tmp_path)
    assert dict(lazy.FREQ) == whole.FREQ and len(lazy.FREQ) == len(whole.FREQ)
    for text in TEXTS:
        assert _cuts(lazy, text) == _cuts(whole, text)


def test_another_dictionary_gets_a_table_of_its_own(tmp_path: Path) -> None:
    dictionary = tmp_path / "dict.txt"
    dictionary.write_text(SMALL, encoding="utf-8")
    cache = tmp_path / "cache"
    install(_tokenizer(dictionary, tmp_path), cache)
    (old,) = cache.glob("jieba-*.sqlite3")
    dictionary.write_text(SMALL + "用的是 90000 v\n", encoding="utf-8")
    lazy = _tokenizer(dictionary, tmp_path)
    install(lazy, cache)
    new = table_path(cache, dictionary.read_bytes())
    assert new != old and new.exists()
    whole = _whole(dictionary, tmp_path)
    assert "用的是" in whole.lcut(TEXTS[0])
    for text in TEXTS:
        assert _cuts(lazy, text) == _cuts(whole, text)


def _damage_by_copying_another_table(path: Path, tmp: Path) -> None:
    """A whole, valid table, but of another dictionary, under ``path``'s name."""
    other = tmp / "other.txt"
    other.write_text("别的 100 n\n", encoding="utf-8")
    elsewhere = tmp / "elsewhere"
    install(_tokenizer(other, tmp), elsewhere)
    (built,) = elsewhere.glob("jieba-*.sqlite3")
    shutil.copyfile(built, path)


@pytest.mark.parametrize(
    "damage",
    [
        lambda path, tmp: path.write_bytes(b"not a database at all" * 100),
        lambda path, tmp: path.write_bytes(path.read_bytes()[: path.stat().st_size // 2]),
        lambda path, tmp: path.write_bytes(b""),
        _damage_by_copying_another_table,
    ],
    ids=["garbage", "cut-short", "empty", "another-dictionary"],
)
def test_a_damaged_or_stale_table_is_built_again(tmp_path: Path, damage: object) -> None:
    dictionary = tmp_path / "dict.txt"
    dictionary.write_text(SMALL, encoding="utf-8")
    cache = tmp_path / "cache"
    install(_tokenizer(dictionary, tmp_path), cache)
    path = table_path(cache, dictionary.read_bytes())
    assert callable(damage)
    damage(path, tmp_path)
    lazy = _tokenizer(dictionary, tmp_path)
    install(lazy, cache)
    assert isinstance(lazy.FREQ, PrefixTable)
    whole = _whole(dictionary, tmp_path)
    assert dict(lazy.FREQ) == whole.FREQ and lazy.total == whole.total
    for text in TEXTS:
        assert _cuts(lazy, text) == _cuts(whole, text)


def test_a_table_damaged_in_use_falls_back_to_the_whole_dictionary(
    tables: Path, tmp_path: Path, whole: jieba.Tokenizer
) -> None:
    (built,) = tables.glob("jieba-*.sqlite3")
    path = tmp_path / built.name
    shutil.copyfile(built, path)
    lazy = jieba.Tokenizer()
    install(lazy, tmp_path)
    first, rest = SAMPLE[:5], SAMPLE[5:]
    for text in first:
        assert _cuts(lazy, text) == _cuts(whole, text)
    with path.open("r+b") as f:  # the same file, overwritten under the open table
        f.write(b"\0" * path.stat().st_size)
    for text in rest:
        assert _cuts(lazy, text) == _cuts(whole, text), text
    assert not path.exists()  # removed, so the next process builds it again


def test_a_table_that_cannot_be_written_leaves_memvault_on_the_whole_dictionary(
    tmp_path: Path,
) -> None:
    """``text`` loads the dictionary as usual when the table cannot be built."""
    blocked = tmp_path / "file"
    blocked.write_text("a file where the cache directory should be", encoding="utf-8")
    report = _memvault_tokens(["数据仓库用的是什么"], str(blocked / "cache"))
    assert report["freq"] == "dict"


_BUILD = """
import sys
from pathlib import Path
import jieba
from memvault.jieba_table import install
tokenizer = jieba.Tokenizer()
install(tokenizer, Path(sys.argv[1]))
print("|".join(tokenizer.lcut_for_search(sys.argv[2])))
"""


def test_processes_building_the_table_at_once_each_get_a_whole_one(
    tmp_path: Path, whole: jieba.Tokenizer
) -> None:
    text = "他在北京大学读计算机，数据仓库用的是 ClickHouse"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    builders = [
        subprocess.Popen(
            [sys.executable, "-c", _BUILD, str(tmp_path), text],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(3)
    ]
    for builder in builders:
        out, err = builder.communicate(timeout=300)
        assert builder.returncode == 0, err
        assert out.strip().split("|") == whole.lcut_for_search(text)
    (table,) = tmp_path.iterdir()  # one table, no temporary file left
    built = table.stat().st_ino
    install(jieba.Tokenizer(), tmp_path)  # whole: opened, not built again
    assert table.stat().st_ino == built
