"""Sensitive-data detectors and redaction (memvault.security.pii).

Valid numbers are built here rather than copied from the web: card numbers get
their Luhn check digit computed, resident ids their ISO 7064 check character,
so every look-alike differs from a positive by exactly the property under test.
"""

from __future__ import annotations

import base64
import doctest
import json
import random
import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from stdnum import luhn
from stdnum.cn import ric

import memvault.security.pii as pii
from memvault.model import Sensitivity
from memvault.security.pii import Finding, Registry, detect_all, redact
from memvault.security.pii.api_key import ApiKeyDetector, PrivateKeyDetector, shannon_entropy
from memvault.security.pii.bank_card import BankCardDetector
from memvault.security.pii.cn_id import ChineseIdDetector
from memvault.security.pii.email import EmailDetector
from memvault.security.pii.password import PasswordDetector
from memvault.security.pii.phone import PhoneDetector

RNG_SEED = 20240601
AREAS = ("110101", "110105", "310104", "330106", "440305", "510104", "420102")
CARD_PREFIXES = (
    ("4", 16),
    ("4", 19),
    ("51", 16),
    ("55", 16),
    ("2221", 16),
    ("34", 15),
    ("37", 15),
    ("6222", 19),
    ("6228", 19),
    ("6212", 16),
    ("3530", 16),
)
MOBILE_PREFIXES = ("130", "135", "138", "139", "150", "158", "177", "186", "189", "199")


def texts(detector, text: str) -> list[str]:
    return [f.text for f in detector.detect(text)]


def kinds(text: str) -> list[str]:
    return [f.kind for f in detect_all(text)]


def make_card(rng: random.Random, prefix: str, length: int) -> str:
    body = prefix + "".join(rng.choice(string.digits) for _ in range(length - len(prefix) - 1))
    return body + luhn.calc_check_digit(body)


def break_check_digit(number: str) -> str:
    return number[:-1] + str((int(number[-1]) + 1 + random.Random(number).randrange(9)) % 10)


def make_cn_id(rng: random.Random) -> str:
    """A valid id; the area must have existed in the birth year, hence the retry."""
    while True:
        year = rng.randrange(1950, 2010)
        month = rng.randrange(1, 13)
        day = rng.randrange(1, 29)
        body = f"{rng.choice(AREAS)}{year:04d}{month:02d}{day:02d}{rng.randrange(1000):03d}"
        number = body + ric.calc_check_digit(body + "0")
        if ric.is_valid(number):
            return number


def make_mobile(rng: random.Random) -> str:
    return rng.choice(MOBILE_PREFIXES) + "".join(rng.choice(string.digits) for _ in range(8))


@pytest.fixture
def rng() -> random.Random:
    return random.Random(RNG_SEED)


# --- bank cards ------------------------------------------------------------------------------


def test_generated_card_numbers_are_found(rng: random.Random) -> None:
    detector = BankCardDetector()
    for prefix, length in CARD_PREFIXES * 10:
        card = make_card(rng, prefix, length)
        assert texts(detector, f"我的卡号是{card}，请帮我记住") == [card]
        assert texts(detector, f"card: {card}.") == [card]


@pytest.mark.parametrize(
    "written",
    ["4111 1111 1111 1111", "4111-1111-1111-1111", "3782 822463 10005", "6222 0212 3456 7890 128"],
)
def test_grouped_card_numbers_are_found_whole(written: str) -> None:
    digits = written.replace(" ", "").replace("-", "")
    assert luhn.is_valid(digits)
    assert texts(BankCardDetector(), f"卡号 {written} 谢谢") == [written]


def test_card_with_wrong_check_digit_is_ignored(rng: random.Random) -> None:
    detector = BankCardDetector()
    for prefix, length in CARD_PREFIXES * 5:
        bad = break_check_digit(make_card(rng, prefix, length))
        assert not luhn.is_valid(bad)
        assert texts(detector, f"卡号{bad}") == []


@pytest.mark.parametrize(
    "text",
    [
        "8888888888888888",  # one digit repeated (Luhn-valid filler)
        "timestamp 20231105123045 logged",
        "epoch ms 1699170645123",
        "订单号 4111111111111111",
        "order #4111111111111111 shipped",
        "tracking number: 5555555555554444",
        "版本 v4.1.11.1111111111111",
        "ext. 1234",
        "2023-11-05",
        "¥1,299.00",
        "4111 1111 1111 1111 1111 1111",  # more groups than any card
        "id 41111111111111111111",  # 20 digits
    ],
)
def test_card_look_alikes_are_ignored(text: str) -> None:
    assert texts(BankCardDetector(), text) == []


# --- Chinese resident ids ----------------------------------------------------------------


def test_generated_resident_ids_are_found(rng: random.Random) -> None:
    detector = ChineseIdDetector()
    for _ in range(100):
        number = make_cn_id(rng)
        assert ric.is_valid(number)
        assert texts(detector, f"身份证号{number}，已登记") == [number]


def test_lowercase_x_check_character_is_accepted(rng: random.Random) -> None:
    while not (number := make_cn_id(rng)).endswith("X"):
        pass
    lowered = number[:-1] + "x"
    assert texts(ChineseIdDetector(), f"ID {lowered}") == [lowered]


def test_resident_id_look_alikes_are_ignored(rng: random.Random) -> None:
    detector = ChineseIdDetector()
    for _ in range(50):
        number = make_cn_id(rng)
        wrong = number[:-1] + ("0" if number[-1] != "0" else "1")
        assert texts(detector, f"身份证 {wrong}") == []
    body = "11010119901332123"  # month 13
    assert texts(detector, body + ric.calc_check_digit(body + "0")) == []
    future = "11010121500101123"  # born in 2150
    assert texts(detector, future + ric.calc_check_digit(future + "0")) == []
    unknown_area = "99999919900101123"
    assert texts(detector, unknown_area + ric.calc_check_digit(unknown_area + "0")) == []
    assert texts(detector, "流水号 202311051230451234") == []
    # stdnum raises KeyError on this area code instead of saying "invalid".
    assert texts(detector, "编号 313402052812152902") == []


# --- phones ----------------------------------------------------------------------------------


def test_generated_mobiles_are_found(rng: random.Random) -> None:
    detector = PhoneDetector()
    for _ in range(100):
        number = make_mobile(rng)
        spaced = f"{number[:3]} {number[3:7]} {number[7:]}"
        assert texts(detector, f"手机{number}联系") == [number]
        assert texts(detector, f"电话：+86 {spaced}。") == [f"+86 {spaced}"]
        assert texts(detector, f"call 86-{number} now") == [f"86-{number}"]


@pytest.mark.parametrize(
    "number", ["+14155552671", "+44 20 7946 0958", "+33 1 42 68 53 00", "+81-90-1234-5678"]
)
def test_international_numbers_are_found(number: str) -> None:
    assert texts(PhoneDetector(), f"reach me at {number}, thanks") == [number]


@pytest.mark.parametrize(
    "text",
    [
        "timestamp 20231105123045",
        "订单号13812345678",
        "order no 13812345678",
        "extension ext. 1234",
        "dial x1234",
        "4155552671",  # national number without + is not claimed
        "+1 555 0100",  # too short to be valid
        "12345678901",  # 11 digits but not a mobile range
        "13812345678901234",  # inside a longer run
        "v13.8.1234",
        "price 1388.00 元",
        "2023-11-05 13:45",
    ],
)
def test_phone_look_alikes_are_ignored(text: str) -> None:
    assert texts(PhoneDetector(), text) == []


def test_phone_inside_card_or_id_is_not_reported(rng: random.Random) -> None:
    card = make_card(rng, "6222", 19)
    number = make_cn_id(rng)
    assert "phone" not in kinds(f"{card} {number}")


# --- e-mail ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "address", ["li.lei@example.com", "a+tag@mail.example.co.uk", "x_y-z@sub-domain.org"]
)
def test_emails_are_found(address: str) -> None:
    assert texts(EmailDetector(), f"邮箱是{address}，谢谢") == [address]


@pytest.mark.parametrize("text", ["icon@2x.png", "@alice hi", "a@b", "user@localhost", "x@@y.com"])
def test_email_look_alikes_are_ignored(text: str) -> None:
    assert texts(EmailDetector(), text) == []


# --- API keys and private keys ---------------------------------------------------------------


def random_token(rng: random.Random, length: int, alphabet: str = string.ascii_letters) -> str:
    token = "".join(rng.choice(alphabet + string.digits) for _ in range(length - 2))
    return token + rng.choice(string.digits) + rng.choice(alphabet)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def make_jwt(rng: random.Random) -> str:
    header = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    payload = b64url(json.dumps({"sub": str(rng.randrange(10**9))}).encode())
    return f"{header}.{payload}.{random_token(rng, 43)}"


def test_prefixed_keys_are_found(rng: random.Random) -> None:
    keys = [
        "sk-" + random_token(rng, 48),
        "sk-proj-" + random_token(rng, 64),
        "AKIA" + random_token(rng, 16, string.ascii_uppercase),
        "ghp_" + random_token(rng, 36),
        "github_pat_" + random_token(rng, 60),
        "xoxb-" + "-".join(random_token(rng, 12) for _ in range(3)),
        "xoxp-" + random_token(rng, 40),
        make_jwt(rng),
    ]
    for key in keys:
        assert texts(ApiKeyDetector(), f"配置里写的是 {key} 别外传") == [key], key


def test_high_entropy_string_needs_a_keyword_nearby(rng: random.Random) -> None:
    secret = random_token(rng, 32)
    assert shannon_entropy(secret) > 3.5
    for text in (f"the api token is {secret}", f"密钥：{secret}", f"令牌 {secret}"):
        assert texts(ApiKeyDetector(), text) == [secret]
    assert texts(ApiKeyDetector(), f"see the photo at /img/{secret}") == []
    assert texts(ApiKeyDetector(), "the key is internationalization") == []


@pytest.mark.parametrize(
    "text",
    [
        "I use sk-learn-style pipelines",  # hyphenated words after sk-
        "AKIA1234",  # too short
        "eyJhbGciOi.not.a-jwt",
        "eyJub3QiOiAiYWxnIn0.eyJzdWIiOiIxIn0.abc",  # header without "alg"
        "commit 3f2a9c8b7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a",
        "the keynote was about internationalization-and-localization",
    ],
)
def test_key_look_alikes_are_ignored(text: str) -> None:
    assert texts(ApiKeyDetector(), text) == []


def test_pem_private_key_block_is_one_finding() -> None:
    block = (
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx7\nq9Zb+/w==\n"
        "-----END RSA PRIVATE KEY-----"
    )
    assert texts(PrivateKeyDetector(), f"key:\n{block}\n以上") == [block]
    truncated = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE\nAAAA"
    assert texts(PrivateKeyDetector(), truncated + "\n后面断了") == [truncated]
    assert texts(PrivateKeyDetector(), "-----BEGIN PUBLIC KEY-----\nMIIB\n") == []


# --- passwords -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "password"),
    [
        ("wifi 密码是 abc12345", "abc12345"),
        ("密码：Qwe!2024", "Qwe!2024"),
        ("口令：tiger2024", "tiger2024"),
        ("wifi 密码 abc12345", "abc12345"),
        ("我家WiFi密码是88886666，记一下", "88886666"),
        ("银行卡密码是 135790", "135790"),
        ("密码改成了 Abc@2024 了", "Abc@2024"),
        ("邮箱密码为qwerty123。", "qwerty123"),
        ("password is hunter22", "hunter22"),
        ("pwd: s3cret!", "s3cret!"),
        ("my password for Netflix is hunter22.", "hunter22"),
        ('The wifi password is "sunshine"', "sunshine"),
        ("my password is sunshine.", "sunshine"),
        ("the password to the wifi is Blue-Sky-77", "Blue-Sky-77"),
        ("I changed my password to Tr0ub4dor&3", "Tr0ub4dor&3"),
        ("PIN: 4821", "4821"),
    ],
)
def test_passwords_in_natural_language_are_found(text: str, password: str) -> None:
    assert texts(PasswordDetector(), text) == [password]


@pytest.mark.parametrize(
    "text",
    [
        "I forgot my password",
        "reset your password via the link",
        "please reset your password to access the site",
        "密码强度要求至少8位",
        "我忘记密码了",
        "密码是什么？",
        "密码为 8 位以上",
        "设置密码为8-16位",
        "密码：请点击链接重置",
        "Your password is incorrect.",
        "password is required to log in",
        "The password is too short",
        "password is case sensitive",
        "the password is the same as before",
        "Password: ********",
        "Password reset link: https://example.com/reset",
        "the pin is 4 digits",
        "My password manager is great",
    ],
)
def test_sentences_that_only_mention_passwords_are_ignored(text: str) -> None:
    assert texts(PasswordDetector(), text) == []


# --- detect_all and redact -------------------------------------------------------------------


def test_redact_replaces_with_numbered_placeholders(rng: random.Random) -> None:
    card = make_card(rng, "6222", 19)
    first, second = make_mobile(rng), make_mobile(rng)
    text = f"手机{first}，备用{second}，再打{first}；卡号{card}；邮箱 li@example.com"
    result = redact(text)
    assert result.text == (
        "手机[phone#1]，备用[phone#2]，再打[phone#1]；卡号[bank_card#1]；邮箱 [email#1]"
    )
    assert result.originals == {
        "[phone#1]": first,
        "[phone#2]": second,
        "[bank_card#1]": card,
        "[email#1]": "li@example.com",
    }
    assert [f.kind for f in result.findings] == ["phone", "phone", "phone", "bank_card", "email"]
    assert result.sensitivity is Sensitivity.PROTECTED
    assert result.restore() == text


@pytest.mark.parametrize(
    ("text", "level"),
    [
        ("今天天气不错", Sensitivity.NORMAL),
        ("邮箱 li@example.com", Sensitivity.SENSITIVE),
        ("手机13812345678", Sensitivity.SENSITIVE),
        ("卡号4111111111111111", Sensitivity.PROTECTED),
        ("wifi 密码是 abc12345，邮箱 li@example.com", Sensitivity.SECRET),
    ],
)
def test_sensitivity_is_the_highest_level_found(text: str, level: Sensitivity) -> None:
    assert redact(text).sensitivity is level


def test_levels_are_configurable() -> None:
    result = redact("邮箱 li@example.com", levels={"email": Sensitivity.SECRET})
    assert result.sensitivity is Sensitivity.SECRET
    assert result.findings[0].sensitivity is Sensitivity.SECRET


def test_nothing_found_leaves_text_untouched() -> None:
    text = "明天下午三点在 3 号会议室开会，版本 v2.3.1，价格 ¥1,299.00"
    result = redact(text)
    assert (result.text, result.findings, result.originals) == (text, (), {})
    assert not result.changed


def test_redaction_is_idempotent(rng: random.Random) -> None:
    text = (
        f"身份证{make_cn_id(rng)}，卡{make_card(rng, '4', 16)}，手机{make_mobile(rng)}，"
        f"wifi 密码是 abc12345，token: {random_token(rng, 32)}，邮箱 a@b.com"
    )
    once = redact(text)
    assert len(once.findings) == 6
    twice = redact(once.text)
    assert twice.text == once.text
    assert twice.findings == ()
    assert twice.sensitivity is Sensitivity.NORMAL


def test_numbering_continues_after_existing_placeholders() -> None:
    result = redact("旧的 [email#1]，新的 li@example.com")
    assert result.text == "旧的 [email#1]，新的 [email#2]"
    assert result.originals == {"[email#2]": "li@example.com"}


def test_chinese_text_around_findings_is_kept_intact(rng: random.Random) -> None:
    number = make_cn_id(rng)
    text = f"张三的身份证号码是{number}，他住在北京市朝阳区。密码：Pa55word！好的"
    result = redact(text)
    assert (
        result.text == "张三的身份证号码是[cn_id#1]，他住在北京市朝阳区。密码：[password#1]！好的"
    )
    assert result.text.encode("utf-8").decode("utf-8") == result.text


def test_overlaps_prefer_the_more_sensitive_then_longer_finding(rng: random.Random) -> None:
    number = make_cn_id(rng)
    assert kinds(f"号码 {number}") == ["cn_id"]
    assert kinds("wifi 密码是 13812345678") == ["password"]
    assert kinds("13812345678@139.com") == ["email"]


class _EmployeeIdDetector:
    kind = "employee_id"

    def detect(self, text: str) -> list[Finding]:
        start = text.find("EMP-")
        if start < 0:
            return []
        return [
            Finding(self.kind, start, start + 10, text[start : start + 10], Sensitivity.SENSITIVE)
        ]


def test_custom_detectors_can_be_registered() -> None:
    detector = _EmployeeIdDetector()
    pii.register(detector)
    try:
        assert detector in pii.detectors()
        result = redact("工号 EMP-123456 已入职")
        assert result.text == "工号 [employee_id#1] 已入职"
        assert result.sensitivity is Sensitivity.SENSITIVE
    finally:
        assert pii.unregister(detector) == 1
    assert redact("工号 EMP-123456 已入职").findings == ()


def test_a_private_registry_runs_only_its_detectors() -> None:
    registry = Registry((EmailDetector(),))
    assert [f.kind for f in detect_all("li@example.com 13812345678", registry=registry)] == [
        "email"
    ]
    with pytest.raises(TypeError):
        registry.register(object())  # type: ignore[arg-type]


def test_finding_repr_hides_the_value() -> None:
    result = redact("wifi 密码是 abc12345")
    assert "abc12345" not in repr(result)


def test_public_surface() -> None:
    assert pii.__all__ == sorted(pii.__all__, key=lambda n: (n[0].islower(), n))
    assert all(hasattr(pii, name) for name in pii.__all__)
    failures, _ = doctest.testmod(pii)
    assert failures == 0


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.one_of(
            st.text(max_size=40),
            st.sampled_from(
                [
                    "4111111111111111",
                    "13812345678",
                    "+14155552671",
                    "li@example.com",
                    "密码是 abc12345",
                    "password: hunter22",
                    "token ",
                    "sk-abc123DEF456ghi789JKL",
                    "[phone#1]",
                    "11010119900307123X",
                    "，",
                    " ",
                    "-",
                    "中文",
                ]
            ),
        ),
        max_size=8,
    ).map("".join)
)
def test_redact_never_raises_and_removes_every_finding(text: str) -> None:
    findings = detect_all(text)
    result = redact(text)
    assert set(findings) <= set(result.findings)
    for found in result.findings:
        assert found.text not in result.text
    assert redact(result.text).findings == ()
    assert result.restore() == text


def test_values_revealed_by_redaction_are_redacted_too() -> None:
    # "+1..." is glued to a digit, so it is no phone until its neighbour is replaced.
    text = "13800000000+12012000000"
    result = redact(text)
    assert result.text == "[phone#1][phone#2]"
    assert redact(result.text).findings == ()


def test_every_copy_of_a_found_value_is_replaced() -> None:
    # The second copy follows an order-number cue, which alone would not be reported.
    result = redact("手机13812345678；订单号13812345678")
    assert result.text == "手机[phone#1]；订单号[phone#1]"


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        ("mot de passe: Soleil2024!", "mot de passe: [password#1]"),
        ("le mot de passe du wifi est chat1234", "le mot de passe du wifi est [password#1]"),
        ("das Passwort lautet Geheim123", "das Passwort lautet [password#1]"),
        ("パスワードはhimitsu123です", "パスワードは[password#1]です"),
        ("mi contraseña es Secreto2024", "mi contraseña es [password#1]"),
        ("비밀번호는 bimil2024", "비밀번호는 [password#1]"),
        ("mijn wachtwoord is Zon2024!", "mijn wachtwoord is [password#1]"),
        ("şifrem: Ay2024x", "şifrem: [password#1]"),
        ("moje hasło to Slonce2024!", "moje hasło to [password#1]"),
        ("kata sandi wifi saya: Bulan2024", "kata sandi wifi saya: [password#1]"),
        ("nenosiri ya wifi ni Jua2024x", "nenosiri ya wifi ni [password#1]"),
        ("mật khẩu là matkhau123", "mật khẩu là [password#1]"),
        ("lösenordet är Sol2024!", "lösenordet är [password#1]"),
        ("salasana on Aurinko2024", "salasana on [password#1]"),
        ("הסיסמה היא abc12345", "הסיסמה היא [password#1]"),
        ("รหัสผ่านคือ abc12345", "รหัสผ่านคือ [password#1]"),
        ("كلمة المرور: abc12345", "كلمة المرور: [password#1]"),
        ("card4111111111111111", "card[bank_card#1]"),
        ("tel13812345678", "tel[phone#1]"),
        # describing, not giving, a password; ids that are not cards
        ("Le mot de passe est requis", "Le mot de passe est requis"),
        ("Das Passwort ist falsch", "Das Passwort ist falsch"),
        ("パスワードを忘れました", "パスワードを忘れました"),
        ("het wachtwoord is vergeten", "het wachtwoord is vergeten"),
        ("hasło jest wymagane", "hasło jest wymagane"),
        ("nenosiri ni muhimu sana", "nenosiri ni muhimu sana"),
        ("la parola è bella", "la parola è bella"),
        ("abc_4111111111111111", "abc_4111111111111111"),
    ],
)
def test_passwords_in_the_scans_languages_and_glued_numbers(text: str, redacted: str) -> None:
    assert redact(text).text == redacted
