"""Precision and recall of the sensitive-data detectors, and their false positives on chat.

Part 1 builds a labelled set from a seeded RNG: for every detector, positives
carrying one real-looking value inside an English or Chinese sentence, and
negatives built to look like them. Card numbers get a computed Luhn check
digit, resident ids a computed ISO 7064 check character and a birth date and
area code that ``stdnum`` accepts; negatives are the same numbers with a wrong
check digit, order and tracking numbers, timestamps, extension numbers, dates,
prices and version strings. ``detect_all`` (every detector together, overlaps
resolved, as ``redact`` runs them) is scored per kind:

* a positive counts as found when a finding of its kind covers exactly its value;
* a negative counts as a false positive when any finding of that kind appears.

Part 2 runs ``detect_all`` over every dialog turn of the 10 LoCoMo conversations,
which are benign chat, and reports how many turns would be redacted and why.
The data is read in place from ``../shared/bench/data/locomo/locomo10.json``.

    .venv/bin/python bench/pii_eval.py [--seed N] [--per-class N] [--data PATH]
"""

from __future__ import annotations

import argparse
import base64
import json
import random
import re
import string
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import phonenumbers
from stdnum import luhn
from stdnum.cn import ric

from memvault.security.pii import detect_all

DATA = (
    Path(__file__).resolve().parents[2] / "shared" / "bench" / "data" / "locomo" / "locomo10.json"
)
_SESSION_KEY = re.compile(r"session_\d+")

# (prefix, length) of real issuer ranges; UnionPay 62xx dominates in China.
CARD_RANGES = (
    ("4", 16), ("4", 13), ("4", 19), ("51", 16), ("53", 16), ("55", 16), ("2221", 16),
    ("2720", 16), ("34", 15), ("37", 15), ("36", 14), ("3528", 16), ("3589", 16),
    ("6011", 16), ("65", 16), ("6222", 19), ("6228", 19), ("6212", 16), ("6217", 19),
)  # fmt: skip
AREAS = ("110101", "110105", "110108", "310104", "310115", "320102", "330102", "420102",
         "440104", "440305", "500103", "510104", "610102", "210102", "370102")  # fmt: skip
MOBILE_PREFIXES = ("130", "131", "135", "136", "138", "139", "150", "151", "158", "159",
                   "166", "177", "180", "186", "187", "188", "189", "199")  # fmt: skip
REGIONS = ("US", "GB", "DE", "FR", "JP", "AU", "SG", "HK", "IN", "BR", "CA", "KR", "ES", "IT")

EN = "en"
ZH = "zh"
CARD_TEMPLATES = {
    EN: ["My card number is {v}.", "Charge it to {v} please", "card: {v}", "use {v} for rent"],
    ZH: ["我的银行卡号是{v}，帮我记一下", "卡号：{v}", "工资卡 {v} 别弄错了", "用{v}这张卡付"],
}
ID_TEMPLATES = {
    EN: ["My ID number is {v}.", "ID: {v}", "Passport aside, my resident ID is {v}"],
    ZH: ["我的身份证号是{v}", "身份证：{v}。", "证件号码 {v} 请核对", "登记身份证{v}"],
}
PHONE_TEMPLATES = {
    EN: ["Call me at {v}.", "my number is {v}", "phone: {v}", "text {v} when you land"],
    ZH: ["我的手机号是{v}", "电话：{v}。", "有事打{v}找我", "联系方式 {v}"],
}
EMAIL_TEMPLATES = {
    EN: ["Email me at {v}.", "my address is {v}", "cc {v} on that", "contact: {v}"],
    ZH: ["我的邮箱是{v}", "发到{v}就行", "邮箱：{v}。"],
}
KEY_TEMPLATES = {
    EN: ["here is the key {v}", "OPENAI_API_KEY={v}", "use this: {v}", "the secret is {v}"],
    ZH: ["密钥是 {v}", "这是我的 API key：{v}", "令牌 {v} 别外传", "配置里写 {v}"],
}
PASSWORD_TEMPLATES = {
    EN: [
        "my password is {v}",
        "The wifi password is {v}.",
        "password: {v}",
        "pwd: {v}",
        "my password for {site} is {v}",
        "the password to the router is {v}",
        "I changed my password to {v}",
        'the password is "{v}"',
        "passcode = {v}",
    ],
    ZH: [
        "我的密码是{v}",
        "wifi 密码是 {v}",
        "密码：{v}",
        "口令：{v}",
        "wifi 密码 {v}",
        "{site}的密码是{v}，别忘了",
        "银行卡密码为{v}",
        "我把密码改成了{v}",
        "登录密码设为 {v}",
    ],
}
PASSWORD_MENTIONS = {
    EN: [
        "I forgot my password again",
        "reset your password via the link",
        "please reset your password to access the site",
        "Your password is incorrect.",
        "password is required to log in",
        "The password is too short",
        "password is case sensitive",
        "the password is the same as before",
        "My password manager is great",
        "Password: ********",
        "I need a stronger password for {site}",
        "Did you change the {site} password?",
        "the password must be at least 8 characters",
        "never share your password with anyone",
        "what is the wifi password?",
        "Password reset link: https://{site}.com/reset",
        "the pin is 4 digits long",
        "my password for {site} is written on a sticky note",
    ],
    ZH: [
        "我忘记密码了",
        "密码强度要求至少8位",
        "请通过链接重置密码",
        "密码是什么？",
        "密码为 8 位以上",
        "设置密码为8-16位",
        "密码：请点击链接重置",
        "{site}的密码我记不清了",
        "密码错误次数太多被锁了",
        "记得定期修改密码",
        "wifi 密码是多少？",
        "不要把密码告诉别人",
        "密码需要包含大小写字母和数字",
        "我把密码写在本子上了",
    ],
}
SITES = ("Netflix", "Gmail", "GitHub", "Amazon", "支付宝", "微信", "淘宝", "Steam", "bank")
WORDS = ("sunshine", "dragon", "monkey", "tiger", "panda", "summer", "coffee", "river", "qwerty")


@dataclass(frozen=True, slots=True)
class Sample:
    text: str
    value: str | None  # the sensitive value in a positive, None in a negative
    group: str  # what the sample is (for the breakdown of misses)


@dataclass
class Score:
    kind: str
    tp: int = 0
    fn: int = 0
    fp: int = 0
    tn: int = 0
    misses: Counter[str] = field(default_factory=Counter)

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0


def digits(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(string.digits) for _ in range(n))


def place(rng: random.Random, templates: dict[str, list[str]], value: str) -> str:
    language = rng.choice((EN, ZH))
    return rng.choice(templates[language]).format(v=value, site=rng.choice(SITES))


# --- generators -------------------------------------------------------------------------------


def card(rng: random.Random) -> str:
    prefix, length = rng.choice(CARD_RANGES)
    body = prefix + digits(rng, length - len(prefix) - 1)
    return body + luhn.calc_check_digit(body)


def grouped(rng: random.Random, number: str) -> str:
    if len(number) not in (16, 19) or rng.random() < 0.5:
        return number
    sep = rng.choice(" -")
    return sep.join(number[i : i + 4] for i in range(0, len(number), 4))


def wrong_check(rng: random.Random, number: str) -> str:
    last = number[-1]
    choices = [d for d in string.digits if d != last]
    return number[:-1] + rng.choice(choices)


def timestamp(rng: random.Random) -> str:
    return (
        f"{rng.randrange(2015, 2026)}{rng.randrange(1, 13):02d}{rng.randrange(1, 29):02d}"
        f"{rng.randrange(24):02d}{rng.randrange(60):02d}{rng.randrange(60):02d}"
    )


def order_number(rng: random.Random, length: int) -> str:
    if rng.random() < 0.5:
        return timestamp(rng)[:8] + digits(rng, max(0, length - 8))
    return str(rng.randrange(1, 10)) + digits(rng, length - 1)


def cn_id(rng: random.Random) -> str:
    while True:
        born = f"{rng.randrange(1940, 2012)}{rng.randrange(1, 13):02d}{rng.randrange(1, 29):02d}"
        body = rng.choice(AREAS) + born + digits(rng, 3)
        number = body + ric.calc_check_digit(body + "0")
        if ric.is_valid(number):
            return number


def mobile(rng: random.Random) -> str:
    return rng.choice(MOBILE_PREFIXES) + digits(rng, 8)


def international(rng: random.Random) -> str:
    while True:
        region = rng.choice(REGIONS)
        kind = rng.choice(
            (phonenumbers.PhoneNumberType.MOBILE, phonenumbers.PhoneNumberType.FIXED_LINE)
        )
        example = phonenumbers.example_number_for_type(region, kind)
        if example is None:
            continue
        national = str(example.national_number)
        national = national[:-4] + digits(rng, 4)
        number = phonenumbers.parse(f"+{example.country_code}{national}")
        if phonenumbers.is_valid_number(number):
            style = rng.choice(
                (phonenumbers.PhoneNumberFormat.E164, phonenumbers.PhoneNumberFormat.INTERNATIONAL)
            )
            return phonenumbers.format_number(number, style)


def token(rng: random.Random, n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    while True:
        value = "".join(rng.choice(alphabet) for _ in range(n))
        if any(c.isdigit() for c in value) and any(c.isalpha() for c in value):
            return value


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def api_key(rng: random.Random) -> str:
    kind = rng.randrange(9)
    if kind == 0:
        return "sk-" + token(rng, 48)
    if kind == 1:
        return "sk-proj-" + token(rng, 64, string.ascii_letters + string.digits + "_-")
    if kind == 2:
        return "AKIA" + token(rng, 16, string.ascii_uppercase + string.digits)
    if kind == 3:
        return "ghp_" + token(rng, 36)
    if kind == 4:
        return "github_pat_" + token(rng, 22) + "_" + token(rng, 59)
    if kind == 5:
        return rng.choice(("xoxb-", "xoxp-")) + "-".join(
            (digits(rng, 12), digits(rng, 12), token(rng, 24))
        )
    if kind == 6:
        header = b64url(json.dumps({"alg": rng.choice(("HS256", "RS256")), "typ": "JWT"}).encode())
        payload = b64url(json.dumps({"sub": digits(rng, 8), "iat": rng.randrange(10**9)}).encode())
        return f"{header}.{payload}.{token(rng, 43, string.ascii_letters + string.digits + '_-')}"
    if kind == 7:
        return token(rng, rng.randrange(24, 48))  # bare high-entropy value next to a keyword
    body = "\n".join(token(rng, 64, string.ascii_letters + string.digits + "+/") for _ in range(3))
    return f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----"


def password(rng: random.Random) -> str:
    shape = rng.randrange(5)
    if shape == 0:
        return rng.choice(WORDS) + digits(rng, rng.randrange(2, 5))
    if shape == 1:
        return digits(rng, rng.choice((6, 8)))
    if shape == 2:
        return rng.choice(WORDS).capitalize() + rng.choice("!@#$%&*") + digits(rng, 4)
    if shape == 3:
        return token(rng, rng.randrange(8, 16))
    return token(rng, 10, string.ascii_letters + string.digits + "!@#$%^&*_-")


def email(rng: random.Random) -> str:
    first = rng.choice(("li", "wang", "zhang", "anna", "john", "maria", "kevin", "chen", "sam"))
    last = rng.choice(("", ".smith", "_wei", ".lee", "+news", str(rng.randrange(100))))
    domain = rng.choice(("gmail.com", "qq.com", "163.com", "example.org", "mail.company.cn",
                         "outlook.com", "uni.edu.au", "foxmail.com"))  # fmt: skip
    return f"{first}{last}@{domain}"


# --- labelled sets ----------------------------------------------------------------------------


def pick(rng: random.Random, templates: tuple[str, ...], value: str) -> str:
    return rng.choice(templates).format(v=value)


HEX = "0123456789abcdef"
ORDER_CUES = ("订单号：{v}", "Order #{v} shipped", "快递单号 {v}", "tracking number: {v}")
NO_CUE = ("I got {v} from the shop", "收到 {v} 了", "see {v}")
TIME_CUES = ("logged at {v}", "时间戳 {v}", "{v} build")
LONG_WORDS = ("internationalization", "characteristically", "responsibilities-and-duties")


def ext_date_price_version(rng: random.Random) -> str:
    return rng.choice(
        (
            f"ext. {digits(rng, 4)}",
            f"call x{digits(rng, 4)}",
            f"分机 {digits(rng, 3)}",
            f"on 2023-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d}",
            f"{rng.randrange(1990, 2030)}年{rng.randrange(1, 13)}月{rng.randrange(1, 29)}日",
            f"costs ¥{rng.randrange(1, 99999):,}.{digits(rng, 2)}",
            f"version {rng.randrange(1, 9)}.{rng.randrange(30)}.{digits(rng, 12)}",
        )
    )


def bank_card_set(rng: random.Random, n: int) -> Iterator[Sample]:
    for _ in range(n):
        value = grouped(rng, card(rng))
        yield Sample(place(rng, CARD_TEMPLATES, value), value, "valid card")

    def epoch_or_timestamp() -> str:
        stamps = (timestamp(rng), timestamp(rng) + digits(rng, 3))
        return rng.choice((*stamps, str(rng.randrange(1_500_000_000_000, 1_800_000_000_000))))

    negatives: list[tuple[str, Callable[[], str]]] = [
        ("wrong check digit", lambda: place(rng, CARD_TEMPLATES, wrong_check(rng, card(rng)))),
        (
            "order number, cue",
            lambda: pick(rng, ORDER_CUES, order_number(rng, 13 + rng.randrange(7))),
        ),
        (
            "order number, no cue",
            lambda: pick(rng, NO_CUE, order_number(rng, 13 + rng.randrange(7))),
        ),
        ("timestamp", lambda: pick(rng, TIME_CUES, epoch_or_timestamp())),
        ("ext / date / price / version", lambda: ext_date_price_version(rng)),
    ]
    yield from _negatives(rng, negatives, n)


def cn_id_set(rng: random.Random, n: int) -> Iterator[Sample]:
    for _ in range(n):
        value = cn_id(rng)
        if rng.random() < 0.1 and value.endswith("X"):
            value = value[:-1] + "x"
        yield Sample(place(rng, ID_TEMPLATES, value), value, "valid id")

    def bad_date() -> str:
        month, day = rng.choice(((0, 10), (13, 10), (2, 30), (4, 31), (19, 1), (6, 0), (1, 32)))
        body = f"{rng.choice(AREAS)}{rng.randrange(1950, 2010)}{month:02d}{day:02d}{digits(rng, 3)}"
        return body + ric.calc_check_digit(body + "0")

    negatives: list[tuple[str, Callable[[], str]]] = [
        ("wrong check character", lambda: place(rng, ID_TEMPLATES, wrong_check(rng, cn_id(rng)))),
        ("impossible birth date", lambda: place(rng, ID_TEMPLATES, bad_date())),
        (
            "order number",
            lambda: pick(rng, ("订单号 {v}", "order {v}", "流水 {v}"), order_number(rng, 18)),
        ),
        (
            "timestamp + sequence",
            lambda: pick(rng, ("{v}", "批次 {v}", "run {v}"), timestamp(rng) + digits(rng, 4)),
        ),
        (
            "random 18 digits",
            lambda: place(rng, ID_TEMPLATES, str(rng.randrange(1, 10)) + digits(rng, 17)),
        ),
    ]
    yield from _negatives(rng, negatives, n)


def phone_set(rng: random.Random, n: int) -> Iterator[Sample]:
    for i in range(n):
        if i % 5 < 3:
            number = mobile(rng)
            spaced = f"{number[:3]} {number[3:7]} {number[7:]}"
            dashed = f"{number[:3]}-{number[3:7]}-{number[7:]}"
            value = rng.choice((number, f"+86 {number}", dashed, f"+86 {spaced}"))
        else:
            value = international(rng)
        yield Sample(place(rng, PHONE_TEMPLATES, value), value, "valid phone")

    def stamp() -> str:
        return rng.choice((timestamp(rng), str(rng.randrange(1_500_000_000, 1_800_000_000))))

    def national() -> str:
        return f"{rng.randrange(200, 999)}{rng.randrange(200, 999)}{digits(rng, 4)}"

    order_cues = ("订单号{v}", "order no. {v}", "运单号：{v}", "ticket #{v}")
    negatives: list[tuple[str, Callable[[], str]]] = [
        ("timestamp", lambda: pick(rng, ("at {v}", "时间 {v}", "ts={v}"), stamp())),
        ("order number", lambda: pick(rng, order_cues, mobile(rng))),
        ("national number, no +", lambda: pick(rng, ("call {v}", "dial {v}"), national())),
        ("ext / date / price / version", lambda: ext_date_price_version(rng)),
        (
            "11 digits, not a mobile",
            lambda: pick(
                rng,
                ("code {v}", "编号 {v}", "{v}"),
                rng.choice(("10", "11", "12")) + digits(rng, 9),
            ),
        ),
        ("card / id digits", lambda: rng.choice((card(rng), cn_id(rng)))),
    ]
    yield from _negatives(rng, negatives, n)


def email_set(rng: random.Random, n: int) -> Iterator[Sample]:
    for _ in range(n):
        value = email(rng)
        yield Sample(place(rng, EMAIL_TEMPLATES, value), value, "valid email")
    negatives: list[tuple[str, Callable[[], str]]] = [
        ("asset name", lambda: f"icon@{rng.randrange(2, 4)}x.{rng.choice(('png', 'jpg', 'svg'))}"),
        ("handle", lambda: f"ping @{rng.choice(WORDS)}{rng.randrange(100)} later"),
        ("spelled out", lambda: f"{rng.choice(WORDS)} at example dot com"),
        ("no domain", lambda: f"{rng.choice(WORDS)}@{rng.choice(('localhost', 'server', ''))}"),
        ("at-sign prose", lambda: f"meet @ {rng.randrange(1, 12)}pm, 3 @ $5 each"),
    ]
    yield from _negatives(rng, negatives, n)


def api_key_set(rng: random.Random, n: int) -> Iterator[Sample]:
    for _ in range(n):
        value = api_key(rng)
        text = place(rng, KEY_TEMPLATES, value)
        if value.startswith("-----"):
            group = "PEM private key"
        elif re.fullmatch(r"[A-Za-z0-9]+", value) and not value.startswith(("AKIA", "ghp_")):
            # Reported only next to a keyword; templates such as "use this: {v}" have none.
            group = "bare high-entropy value"
        else:
            group = "prefixed key / JWT"
        yield Sample(text, value, group)

    def uuid_link() -> str:
        parts = (token(rng, 8, HEX), token(rng, 4, HEX), "4" + digits(rng, 3), token(rng, 12, HEX))
        return "see https://example.com/doc/" + "-".join(parts)

    def sk_words() -> str:
        words = "-".join(rng.choice(WORDS) for _ in range(3))
        return f"we use sk-{rng.choice(('learn', 'image'))}-{words} pipelines"

    key_cues = ("the key point is {v}", "token of {v}", "密钥管理 {v}")
    negatives: list[tuple[str, Callable[[], str]]] = [
        (
            "commit hash, no keyword",
            lambda: pick(rng, ("fixed in {v}", "提交 {v} 修复了"), token(rng, 40, HEX)),
        ),
        ("uuid in a link", uuid_link),
        ("hyphenated sk- word", sk_words),
        ("long word near key", lambda: pick(rng, key_cues, rng.choice(LONG_WORDS))),
        ("fake jwt", lambda: "eyJ" + ".".join(rng.choice(WORDS) for _ in range(3))),
        ("short AKIA", lambda: f"AKIA{token(rng, 8, string.ascii_uppercase + string.digits)} cut"),
    ]
    yield from _negatives(rng, negatives, n)


def password_set(rng: random.Random, n: int) -> Iterator[Sample]:
    for _ in range(n):
        value = password(rng)
        yield Sample(place(rng, PASSWORD_TEMPLATES, value), value, "password")
    languages = (EN, ZH)
    for i in range(n):
        language = languages[i % 2]
        template = rng.choice(PASSWORD_MENTIONS[language])
        yield Sample(template.format(site=rng.choice(SITES)), None, f"mention ({language})")


def _negatives(
    rng: random.Random, makers: list[tuple[str, Callable[[], str]]], n: int
) -> Iterator[Sample]:
    for i in range(n):
        group, make = makers[i % len(makers)]
        yield Sample(make(), None, group)


SETS: dict[str, tuple[Callable[[random.Random, int], Iterator[Sample]], frozenset[str]]] = {
    "bank_card": (bank_card_set, frozenset({"bank_card"})),
    "cn_id": (cn_id_set, frozenset({"cn_id"})),
    "phone": (phone_set, frozenset({"phone"})),
    "email": (email_set, frozenset({"email"})),
    "api_key": (api_key_set, frozenset({"api_key", "private_key"})),
    "password": (password_set, frozenset({"password"})),
}
CHECKSUM_BASED = ("bank_card", "cn_id")


def score(kind: str, samples: list[Sample], kinds: frozenset[str]) -> Score:
    result = Score(kind)
    for sample in samples:
        found = [f for f in detect_all(sample.text) if f.kind in kinds]
        if sample.value is None:
            if found:
                result.fp += 1
                result.misses[f"FP {sample.group}"] += 1
            else:
                result.tn += 1
        elif any(f.text == sample.value for f in found):
            result.tp += 1
        else:
            result.fn += 1
            result.misses[f"FN {sample.group}"] += 1
    return result


def render_scores(scores: list[Score]) -> str:
    lines = [
        "| detector | positives | negatives | TP | FN | FP | precision | recall | target |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for s in scores:
        if s.kind in CHECKSUM_BASED:
            ok = s.precision >= 0.95 and s.recall >= 0.98
            target = "P≥0.95, R≥0.98: " + ("met" if ok else "MISSED")
        else:
            target = "reported"
        lines.append(
            f"| {s.kind} | {s.tp + s.fn} | {s.fp + s.tn} | {s.tp} | {s.fn} | {s.fp} "
            f"| {s.precision:.3f} | {s.recall:.3f} | {target} |"
        )
    errors = [(s.kind, group, count) for s in scores for group, count in s.misses.most_common()]
    if errors:
        lines += ["", "Errors by group:", ""]
        lines += [f"- {kind}: {group} × {count}" for kind, group, count in errors]
    return "\n".join(lines)


# --- LoCoMo -----------------------------------------------------------------------------------


def locomo_turns(path: Path) -> Iterator[tuple[str, str]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    for item in data:
        conversation = item["conversation"]
        keys = sorted(
            (key for key in conversation if _SESSION_KEY.fullmatch(key)),
            key=lambda key: int(key.split("_")[1]),
        )
        for key in keys:
            for turn in conversation[key]:
                yield str(turn.get("dia_id", "?")), str(turn.get("text", ""))


def render_locomo(path: Path) -> str:
    turns = list(locomo_turns(path))
    started = time.perf_counter()
    flagged = [(dia, text, detect_all(text)) for dia, text in turns]
    seconds = time.perf_counter() - started
    flagged = [(dia, text, found) for dia, text, found in flagged if found]
    by_kind = Counter(
        f.kind for _, _, found in flagged for f in {f.kind: f for f in found}.values()
    )
    rate = len(flagged) / len(turns) if turns else 0.0
    lines = [
        "| turns | turns redacted | rate | target | turns/s |",
        "|---:|---:|---:|---|---:|",
        f"| {len(turns)} | {len(flagged)} | {rate:.3%} | < 1%: {'met' if rate < 0.01 else 'MISSED'}"
        f" | {len(turns) / seconds:,.0f} |",
        "",
        "By kind: " + (", ".join(f"{k} × {n}" for k, n in by_kind.most_common()) or "none"),
    ]
    if flagged:
        lines += ["", "| dia_id | kinds | finding | text |", "|---|---|---|---|"]
        for dia, text, found in flagged[:10]:
            shown = text.replace("|", "\\|").replace("\n", " ")
            shown = shown if len(shown) <= 140 else shown[:137] + "..."
            values = "; ".join(f.text for f in found)
            lines.append(f"| {dia} | {', '.join(f.kind for f in found)} | {values} | {shown} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=4)
    parser.add_argument("--per-class", type=int, default=500, help="positives and negatives each")
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()

    scores = []
    for kind, (build, kinds) in SETS.items():
        rng = random.Random(f"{args.seed}:{kind}")
        scores.append(score(kind, list(build(rng, args.per_class)), kinds))
    print(f"## Labelled set (seed {args.seed}, {args.per_class} positives + negatives each)\n")
    print(render_scores(scores))
    print("\n## LoCoMo dialog turns (benign chat)\n")
    if args.data.exists():
        print(render_locomo(args.data))
    else:
        print(f"{args.data} not found; skipped")


if __name__ == "__main__":
    main()
