"""The PII detectors' patterns find what they found before their first-character look
(issue 29 item 5).

Each pattern now opens with a look ahead at the characters a match can start with, so
its look-behinds and alternatives run only there; taking that look away must give the
same matches on any text, cased oddly (the Kelvin sign is a "k" to a case-blind regex,
the long s an "s") or not.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from memvault.security.pii import api_key, bank_card, cn_id, password, phone

_LOOKED = [
    (phone._CN_MOBILE, "(?=[+081])"),
    (phone._INTERNATIONAL, r"(?=\+)"),
    (password._ZH_CUE, "(?=[密口pP])"),
    (password._EN_CUE, "(?=p)"),
    (password._INTL_CUE, "(?=[mpkcsпパ暗비암whşnlajsكסהรपر])"),
    (password._EN_CHANGE, "(?=[csru])"),
    (bank_card._CANDIDATE, "(?=[0-9])"),
    (cn_id._CANDIDATE, "(?=[1-9])"),
    (api_key._PREFIXED, "(?=[srAgx])"),
    (api_key._JWT, "(?=e)"),
]

_PIECES = st.sampled_from(
    [
        *("password", "PASSWORD", "Pwd", "pin code", "PIN码", "密码", "口令", "密碼", " is ", ": "),
        *("Passwort", "MOT DE PASSE", "Kennwort", "ſenha", "Clave", "пароль", "ПАРОЛЬ"),
        *("パスワード", "暗証番号", "비밀번호", "암호", " ist ", "은 ", "是", "changed my "),
        *("Reset ", "\u212aennwort"),
        *("wachtwoord", "ŞİFRE", "şifrem", "hasło", "kata sandi", "nenosiri", "MẬT KHẨU"),
        *("LÖSENORD", "הסיסמה", "รหัสผ่าน", "คือ", "كلمة المرور", " adalah ", " ni ", " wifi"),
        *("UPDATE the ", "set ", " to ", "hunter22", "s3cret!", "4111 1111 1111 1111", "-"),
        *("4111111111111111", "+86 138 1234 5678", "8613812345678", "0086", "+1 415-555-2671"),
        *("11010519491231002X", "sk-proj-", "sk_live_", "AKIA", "ghp_", "xoxb-", "AIza", "eyJ"),
        *("abcdefghij0123456789ABCDEFGHIJ", "K", "k", "İ", " ", "\n", ".", "1", "x", "_"),
    ]
)


def _before(pattern: re.Pattern[str], look: str) -> re.Pattern[str]:
    assert pattern.pattern.startswith(look)
    return re.compile(pattern.pattern[len(look) :], pattern.flags)


def _matches(pattern: re.Pattern[str], text: str) -> list[tuple[int, int, str]]:
    return [(*m.span(), m.group()) for m in pattern.finditer(text)]


@pytest.mark.parametrize(("pattern", "look"), _LOOKED, ids=lambda v: getattr(v, "pattern", v)[:24])
@given(st.lists(_PIECES, max_size=12).map("".join))
@example("my password is hunter22 and the wifi 密码是 abc12345")
@example("\u212aennwort ist s3cret! ſenha: abcd1234 KENNWORT: x9x9x9x9")  # Kelvin sign, long s
@example("card 4111 1111 1111 1111, call +86 138 1234 5678 or 13812345678")
def test_a_pattern_finds_what_it_found_without_its_first_look(
    pattern: re.Pattern[str], look: str, text: str
) -> None:
    assert _matches(pattern, text) == _matches(_before(pattern, look), text)


@given(st.lists(_PIECES, max_size=12).map("".join))
@example("xoxb-0123456789")  # the shortest vendor key: 15 characters
@example("token " + "aB3_-+/" * 3)
@example("eyJhbGciOi.eyJzdWIi.sig")
def test_a_text_without_a_long_run_holds_no_key(text: str) -> None:
    # The API-key detector skips its key searches where no such run occurs.
    if api_key._LONG_RUN.search(text) is None:
        assert api_key._PREFIXED.search(text) is None
        assert api_key._HIGH_ENTROPY.search(text) is None
    if "eyJ" not in text:
        assert api_key._JWT.search(text) is None
    assert api_key._PREFIXED.search("xoxb-0123456789") is not None
