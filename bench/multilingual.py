"""The local models on a small bilingual vault: Chinese paraphrases, speed of each model.

A personal vault of 24 memories (18 Chinese, 6 English) and 24 questions that say the
same thing in other words (20 Chinese, 4 English); each question has one right memory.
Every model runs through the real ``Vault`` (``embedding.model``), by meaning alone
(``vector``: keyword weight 0) and as shipped (``hybrid``). Then the cost of each model:
one query at a time (p50 / p95 over 100 searches, the query's embedding included), and
a batch of 512 memories stored and embedded (``add_many`` + ``flush``).

This is memvault's own small set, written for this benchmark (the memories and
questions are below); it is not a public data set.

    .venv/bin/python bench/multilingual.py [--models all-MiniLM-L6-v2 multilingual-e5-small]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from memvault import Vault, load_config

MEMORIES = [
    "公司的数据仓库用的是 ClickHouse",
    "我每天早上喝一杯黑咖啡,不加糖",
    "下周三我要去上海出差三天",
    "我女儿在学钢琴,每周六上课",
    "我对花生过敏,吃了会起疹子",
    "我们组的代码都放在内部的 GitLab 上",
    "我的车是一辆白色的特斯拉 Model 3",
    "我老家在四川成都,春节会回去",
    "周报每周五下午五点之前要交给经理",
    "我最近在读《三体》,已经看到第二部",
    "我不喜欢开视频会议,更愿意打电话",
    "家里养了一只橘猫,叫小胖",
    "我们的服务部署在阿里云的杭州机房",
    "我每周二和周四晚上去健身房跑步",
    "我太太是一名小学语文老师",
    "生产环境的数据库密码每三个月轮换一次",
    "我习惯用 Vim 写代码,不用 IDE",
    "今年的年假我打算去云南旅行",
    "Alice prefers short answers in bullet points",
    "Bob is allergic to shellfish",
    "The staging cluster runs Kubernetes 1.29",
    "Carol's birthday is on the 12th of March",
    "The team retro happens every second Monday",
    "Dave drives a red pickup truck",
]

# (question, index of the right memory)
QUESTIONS = [
    ("我们的分析型数据库是什么产品?", 0),
    ("早饭时我一般喝什么饮料?", 1),
    ("我什么时候去外地工作?", 2),
    ("孩子在学什么乐器?", 3),
    ("我有什么食物不能吃?", 4),
    ("团队的源码托管在哪里?", 5),
    ("我开的是什么牌子的汽车?", 6),
    ("我是哪个省的人?", 7),
    ("每周的工作总结什么时候截止?", 8),
    ("我现在在看哪本科幻小说?", 9),
    ("我喜欢哪种沟通方式?", 10),
    ("我的宠物叫什么名字?", 11),
    ("线上系统托管在哪个云厂商?", 12),
    ("我一周锻炼几次?", 13),
    ("我爱人做什么工作?", 14),
    ("线上库的口令多久更换一次?", 15),
    ("我平时用什么编辑器编程?", 16),
    ("休假准备去哪里玩?", 17),
    ("Alice 喜欢什么样的回复?", 18),
    ("Bob 对什么过敏?", 19),
    ("Which container orchestrator does the test environment use?", 20),
    ("When does Carol celebrate turning a year older?", 21),
    ("How often do we hold the retrospective?", 22),
    ("What kind of vehicle does Dave own?", 23),
]


def vault_for(model: str, mode: str, tmp: Path, phase: str) -> Vault:
    overrides = {"embedding": {"provider": "local", "model": model, "background": False}}
    if mode == "vector":
        overrides["retrieval"] = {"keyword_weight": 0.0}
    config = load_config(environ={}, home=tmp, **overrides)
    return Vault(tmp / f"{model}-{mode}-{phase}.db", config=config)


def quality(model: str, mode: str, tmp: Path) -> tuple[float, float, float]:
    """hit@1, hit@5 over all questions, hit@5 over the Chinese ones."""
    with vault_for(model, mode, tmp, "quality") as vault:
        ids = [e.id for e in vault.add_many([{"content": m} for m in MEMORIES], user_id="u")]
        ranks = []
        for question, right in QUESTIONS:
            hits = [h.entry.id for h in vault.search(question, user_id="u", limit=5)]
            ranks.append(hits.index(ids[right]) + 1 if ids[right] in hits else 99)
    zh = [r for r, (q, _) in zip(ranks, QUESTIONS, strict=True) if not q.isascii()]
    return (
        sum(r == 1 for r in ranks) / len(ranks),
        sum(r <= 5 for r in ranks) / len(ranks),
        sum(r <= 5 for r in zh) / len(zh),
    )


def speed(model: str, tmp: Path) -> tuple[float, float, float]:
    """Search p50 / p95 (ms) and batch embedding ms per memory."""
    with vault_for(model, "hybrid", tmp, "speed") as vault:
        vault.add_many([{"content": m} for m in MEMORIES], user_id="u")
        vault.search("热身", user_id="u")  # load the model and the keyword segmenter
        latencies = []
        for i in range(100):
            question = QUESTIONS[i % len(QUESTIONS)][0] + f" {i}"  # never a cached query
            start = time.perf_counter()
            vault.search(question, user_id="u", limit=5)
            latencies.append((time.perf_counter() - start) * 1000)
        batch = [{"content": f"{MEMORIES[i % len(MEMORIES)]} (第 {i} 条)"} for i in range(512)]
        start = time.perf_counter()
        vault.add_many(batch, user_id="batch")
        vault.flush()
        per_memory = (time.perf_counter() - start) * 1000 / len(batch)
    latencies.sort()
    p95 = latencies[round(0.95 * (len(latencies) - 1))]
    return statistics.median(latencies), p95, per_memory


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--models", nargs="+", default=["all-MiniLM-L6-v2", "multilingual-e5-small"]
    )
    args = parser.parse_args()
    n_zh = sum(not q.isascii() for q, _ in QUESTIONS)
    print(f"{len(MEMORIES)} memories, {len(QUESTIONS)} paraphrased questions ({n_zh} Chinese)\n")
    print(
        "| model | mode | hit@1 | hit@5 | Chinese hit@5 | search p50 ms | search p95 ms "
        "| batch ms/memory |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for model in args.models:
            p50, p95, per = speed(model, Path(tmp))
            for mode in ("vector", "hybrid"):
                h1, h5, zh5 = quality(model, mode, Path(tmp))
                timing = f"{p50:.1f} | {p95:.1f} | {per:.1f}" if mode == "hybrid" else " | | "
                print(f"| {model} | {mode} | {h1:.3f} | {h5:.3f} | {zh5:.3f} | {timing} |")


if __name__ == "__main__":
    main()
