"""Chinese-heavy keyword index: write speed, size on disk, substring recall, query latency.

Keyword channel only (no embedder). 2,000 synthetic Chinese entries (some with English
words mixed in) are added through ``Vault.add_many``; then random substrings of 2-6
characters cut from stored entries are searched. A substring query "hits" when an
entry that contains it is ranked first, and "misses" when no such entry is in the top
10. Prints a Markdown table. The text is made up here from small word lists, so the
numbers compare two versions of the engine, not languages.

    .venv/bin/python bench/cjk.py [--entries 2000] [--queries 300] [--batch 100]
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import tempfile
import time
from pathlib import Path

from memvault import Vault

PEOPLE = "张伟 王芳 李娜 刘洋 陈静 杨帆 赵磊 黄敏 周杰 吴倩 徐立 孙悦 马超 朱琳 胡军".split()
PLACES = "北京 上海 深圳 杭州 成都 南京 武汉 西安 苏州 厦门 青岛 长沙 东京 首尔".split()
THINGS = (
    "销售看板 数据仓库 权限系统 季度报告 客户名单 测试环境 发布流程 监控告警 年度预算 "
    "招聘计划 培训课程 会议纪要 产品路线图 用户反馈 支付接口 搜索服务 推荐算法 日志平台 "
    "数据中台 财务报表 合同模板 项目周报 代码评审 灰度发布 缓存集群 消息队列 移动应用 "
    "官网首页 客服工单 飞书文档 团建活动 体检报告 租房合同 健身计划 旅行路线 生日聚会"
).split()
VERBS = (
    "负责 更新了 提交了 讨论了 推迟了 上线了 重写了 检查了 整理了 优化了 迁移了 取消了 "
    "安排了 确认了 修复了 评估了 准备了 分享了"
).split()
TIMES = "今天 昨天 明天 下周一 下周三 上个月 月底 周五下午 春节前 国庆后 明年年初".split()
TAILS = (
    "需要尽快处理 大家都很满意 还有一些问题 老板要求重新评估 预计两周完成 "
    "已经通知了相关同事 费用比预期高 进度比计划快 下次会议再讨论 请记得备份数据"
).split()
ENGLISH = "ClickHouse Kafka Redis Python Golang Kubernetes Grafana Jira Figma PostgreSQL".split()
_CJK = re.compile(r"[\u3400-\u9fff\u3040-\u30ff\uac00-\ud7af]+")


def sentence(rng: random.Random) -> str:
    parts = [
        rng.choice(TIMES),
        rng.choice(PEOPLE),
        "在" + rng.choice(PLACES),
        rng.choice(VERBS),
        rng.choice(THINGS),
    ]
    if rng.random() < 0.3:
        parts.append("用" + rng.choice(ENGLISH))
    parts.append("，" + rng.choice(TAILS) + "。")
    if rng.random() < 0.4:
        parts.append(rng.choice(PEOPLE) + "说" + rng.choice(THINGS) + rng.choice(TAILS) + "。")
    return "".join(parts)


def substrings(rng: random.Random, texts: list[str], n: int) -> list[str]:
    out: list[str] = []
    while len(out) < n:
        runs = _CJK.findall(rng.choice(texts))
        run = rng.choice(runs)
        size = rng.randint(2, 6)
        if len(run) < size:
            continue
        start = rng.randrange(len(run) - size + 1)
        out.append(run[start : start + size])
    return out


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--entries", type=int, default=2000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--batch", type=int, default=100)
    args = parser.parse_args()
    rng = random.Random(11)
    texts = [sentence(rng) for _ in range(args.entries)]
    queries = substrings(rng, texts, args.queries)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cjk.db"
        vault = Vault(path, embedder=None)  # keyword channel only
        vault.search("预热", user_id="bench")  # load jieba's dictionary outside the timing
        start = time.perf_counter()
        for i in range(0, len(texts), args.batch):
            batch = texts[i : i + args.batch]
            vault.add_many([{"content": t} for t in batch], user_id="bench")
        seconds = time.perf_counter() - start
        hits = misses = 0
        latencies: list[float] = []
        for q in queries:
            t0 = time.perf_counter()
            found = vault.search(q, user_id="bench", limit=10)
            latencies.append((time.perf_counter() - t0) * 1000)
            holds = [q in h.entry.content for h in found]
            hits += bool(holds and holds[0])
            misses += not any(holds)
        vault.close()
        size = sum(p.stat().st_size for p in Path(tmp).iterdir() if p.name.startswith("cjk.db"))
    print(f"{args.entries} Chinese entries, {len(queries)} substring queries of 2-6 characters\n")
    print(
        "| entries/s | db size MB | substring ranked 1st | substring not in top 10 "
        "| query p50 ms | query p95 ms |"
    )
    print("|---|---|---|---|---|---|")
    print(
        f"| {args.entries / seconds:.0f} | {size / 1e6:.2f} | {hits / len(queries):.3f} "
        f"| {misses / len(queries):.3f} | {statistics.median(latencies):.1f} "
        f"| {percentile(latencies, 0.95):.1f} |"
    )


if __name__ == "__main__":
    main()
