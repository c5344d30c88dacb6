"""Passwords written out in conversation, in Chinese, English and the other languages
of the scan (French, German, Spanish, Portuguese, Italian, Russian, Japanese, Korean,
Dutch, Turkish, Polish, Czech, Indonesian, Swahili, Vietnamese, the Nordic languages,
Finnish, Hungarian, Romanian, Arabic, Hebrew, Thai, Hindi, Persian).

People tell an assistant things like "wifi 密码是 abc12345", "密码：Qwe!2024",
"my password for Netflix is hunter22" or "pwd: s3cret!". The finding is the
password itself, not the sentence around it, so redaction keeps the sentence
readable ("wifi 密码是 [password#1]").

A password is reported only when three things line up:

1. a cue word: 密码/密碼/口令/PIN码, or password/passwd/passcode/passphrase/pwd/pw/pin;
   an English cue may be followed by a short "for <account>" / "to the wifi" phrase;
   or mot de passe/mdp, Passwort/Kennwort, contraseña/clave, senha, parola d'ordine,
   пароль, パスワード/暗証番号, 비밀번호/암호, wachtwoord, şifre, hasło, heslo,
   kata sandi, nenosiri, mật khẩu, lösenord, adgangskode, passord, salasana, jelszó,
   parolă, كلمة المرور, סיסמה, รหัสผ่าน, पासवर्ड, رمز عبور, with their languages' links
   (est, ist, lautet, es, é, è, это, は, 는, is, jest, adalah, ni, là, är, คือ ...); in
   these languages an unquoted value needs a digit or a symbol;
2. a link that introduces a value: 是/为/改成/设为/：/=, or is/was/: /=, or
   "set to"/"changed to" (a bare space, or "change my password to", also counts,
   but only before a value with a digit or symbol in it: "wifi 密码 abc12345");
3. a value that looks like one: a run of 4-64 printable ASCII characters, or
   anything in quotes. Plain words that describe rather than reveal
   ("password is required", "password is too short") are rejected by a stop
   list and by their endings (-ing, -ed, -ly); so are URLs, masks such as
   ``****`` and numbers that are a count ("密码为 8 位").

Sentences that only talk about a password have no link and value, so they do
not match: "I forgot my password", "reset your password via the link",
"密码强度要求至少8位", "我忘记密码了".
"""

from __future__ import annotations

import re

from .base import Finding, finding

KIND = "password"

# Each pattern opens with a look at the character a match can start with: the
# look-behinds and alternatives then run only there (the same matches, faster).
_ZH_CUE = re.compile(
    r"(?=[密口pP])(?:密码|密碼|口令|(?<![A-Za-z])(?:pin|PIN)码)"
    r"(?P<link>\s*(?:都|也|还|就|一直|仍然|依然)?"
    r"(?:\s*(?:是|为|為|:|：|=|改成了?|改为了?|换成了?|设为|设置为|设置成|设成了?|就是)\s*){1,2}"
    r"|[ \t]+)"
)
_EN_CUE = re.compile(
    r"(?=p)(?<![A-Za-z])"
    r"(?:password|passwd|passcode|passphrase|pwd|pw|pin(?:[ -]?code)?)(?![A-Za-z])"
    r"(?:\s+(?:for|to|of|on)\s+(?:(?:the|my|our|your|his|her|their)\s+)?"
    r"[^\s,.;:!?\"']{1,40}(?:\s+(?!is\b|was\b)[^\s,.;:!?\"']{1,20})?)?"
    r"(?P<link>\s*[:=]\s*|\s+(?:is|was)\s+(?:now\s+|still\s+|just\s+|actually\s+)?"
    r"(?:set\s+to\s+)?|\s+(?:(?:is|was|got|has\s+been)\s+)?(?:set|changed|updated)\s+to\s+)",
    re.IGNORECASE,
)
_INTL_CUE = re.compile(
    r"(?=[mpkcsпパ暗비암whşnlajsكסהรपر])(?<![^\W\d_])"
    r"(?:mot\s+de\s+passe|mdp|passwort|kennwort|contraseña|contrasena|clave|"
    r"senha|parola\s+d['’]ordine|пароль|パスワード|暗証番号|비밀번호|암호|"
    # nl, tr, pl, cs/sk, id/ms, sw, vi, sv, da, no, fi, hu, ro, ar, he, th, hi, fa
    r"wachtwoord|şifre(?:m|si|niz)?|sifre(?:m|si)?|hasło|haslo|heslo|kata\s+sandi|"
    r"nenosiri|mật\s+khẩu|mat\s+khau|lösenord(?:et)?|losenord|adgangskode(?:n)?|"
    r"passord(?:et)?|salasana|jelszó|jelszo|jelszavam|parolă|parola\s+mea|"
    r"كلمة\s+(?:المرور|السر)|ה?סיסמה|ה?סיסמא|รหัสผ่าน|पासवर्ड|رمز\s+عبور)"
    # "my" and a few accounts, in either order ("kata sandi wifi saya: ...")
    r"(?:\s+(?:saya|aku|yangu|wangu|mijn|moje|mój|benim|của\s+tôi|min|mitt|minun|"
    r"wifi|wi-fi|wlan|email|e-mail|gmail|router|bank|laptop|pc)){0,2}"
    r"(?:\s+(?:du|de|des|de\s+la|für|für\s+das|für\s+den|de\s+mi|do|da|di|от|для|"
    r"voor|van|untuk|ya|wa|cho|của|för|till|til|for|pro|k|na)"
    r"\s+[^\s,.;:!?\"']{1,30})?"
    r"(?P<link>\s*[:：=]\s*|\s+(?:est|était|ist|war|lautet|es|era|é|è|это|—|-|"
    r"is|was|to|jest|je|adalah|ialah|ni|là|är|var|er|on|este|היא|הוא)\s+"
    r"|\s*(?:は|が|：)\s*|\s*(?:은|는|이|가)\s*|\s*คือ\s*)",
    re.IGNORECASE,
)
_EN_CHANGE = re.compile(
    r"(?=[csru])(?<![A-Za-z])(?:chang|set|reset|updat)(?:e|ed|es|ing|ting)?\s+"
    r"(?:(?:my|the|your|our|his|her|their)\s+)?(?:[A-Za-z-]{1,20}\s+)?"
    r"(?:password|passwd|passcode|passphrase|pin)(?P<link>\s+to\s+)",
    re.IGNORECASE,
)
_OPEN_QUOTES = {'"': '"', "'": "'", "`": "`", "“": "”", "‘": "’", "「": "」", "『": "』"}
_BARE_TOKEN = re.compile(r"[!-~]{1,64}")
# Sentence punctuation after a bare value is not part of it; "!" is kept, since
# passwords end with it far more often than sentences that give one do.
_TRAILING_PUNCT = ".,;:?)]}>'\"`"
_COUNT_UNIT = re.compile(r"\s?[位个個字次天号號年月日分秒元块]")
_PLACEHOLDER = re.compile(r"\[[a-z][a-z0-9_]*#[0-9]+\]")
_MIN_LENGTH = 4

# Words that follow "password is/:" when a password is described, not given.
_DESCRIPTIVE = frozenset(
    """
    a an the my your his her our their its this that these those it one two some any
    not no none never also just still now very really too so quite more less only
    and or but if then because for with from by about like as at in on of to into here
    there below above attached included written printed saved stored hashed encrypted
    required needed mandatory optional incorrect wrong invalid correct right same different
    changed reset set missing empty expired weak strong secure insecure safe unsafe easy
    hard simple complex long short good bad fine ok okay great terrible secret private
    protected hidden visible unknown forgotten lost compromised leaked known sent shown
    something anything nothing everything what which whatever who where when how why
    please case sensitive characters character letters digits numbers number chars
    same changed temporary random default blank null none unset new old current previous
    needed necessary complicated obvious stupid dumb silly long enough
    """.split()
)
_DESCRIPTIVE_ENDINGS = ("ing", "ed", "ly")
_MASK_CHARS = frozenset("*xX#.-_•")


def _take_value(text: str, start: int) -> tuple[int, int] | None:
    """The span of the value starting at ``start`` (quotes excluded), if there is one."""
    if start >= len(text):
        return None
    close = _OPEN_QUOTES.get(text[start])
    if close is not None:
        end = text.find(close, start + 1, start + 66)
        if end == -1:
            return None
        return (start + 1, end) if "\n" not in text[start + 1 : end] else None
    match = _BARE_TOKEN.match(text, start)
    if match is None:
        return None
    end = match.end()
    while end > start and text[end - 1] in _TRAILING_PUNCT:
        end -= 1
    return (start, end)


def plausible_password(value: str, *, quoted: bool, bare_link: bool, after: str) -> bool:
    """Whether ``value`` reads as a password given how it was introduced."""
    if len(value) < _MIN_LENGTH or len(value) > 64 or value.strip() != value:
        return False
    if _PLACEHOLDER.fullmatch(value) or set(value) <= _MASK_CHARS:
        return False
    lowered = value.lower()
    if "://" in lowered or lowered.startswith("www."):
        return False
    if _COUNT_UNIT.match(after) and value.replace("-", "").replace("~", "").isdigit():
        return False
    if quoted:
        return lowered not in _DESCRIPTIVE
    has_digit_or_symbol = not value.isalpha()
    if bare_link and not has_digit_or_symbol:
        return False
    if value.isalpha():
        if lowered in _DESCRIPTIVE or lowered.endswith(_DESCRIPTIVE_ENDINGS):
            return False
        # A capitalised word after "is" is far more often a name than a password.
        return not value[0].isupper() or not value[1:].islower()
    return True


class PasswordDetector:
    """Passwords introduced by a cue word and a link, in the scan's languages."""

    kind = KIND

    def detect(self, text: str) -> list[Finding]:
        found: list[Finding] = []
        seen: set[int] = set()
        for pattern in (_ZH_CUE, _EN_CUE, _INTL_CUE, _EN_CHANGE):
            for match in pattern.finditer(text):
                span = _take_value(text, match.end())
                if span is None or span[0] in seen:
                    continue
                start, end = span
                quoted = start != match.end()
                # "to" after "change ... password" also starts "to access the site".
                # The other languages' describing words ("est requis", "ist falsch")
                # are not listed: there, an unquoted value needs a digit or a symbol.
                bare_link = (
                    pattern is _EN_CHANGE or pattern is _INTL_CUE or not match.group("link").strip()
                )
                after = text[end + 1 : end + 3] if quoted else text[end : end + 2]
                if not plausible_password(
                    text[start:end], quoted=quoted, bare_link=bare_link, after=after
                ):
                    continue
                seen.add(start)
                found.append(finding(KIND, text, start, end))
        return found
