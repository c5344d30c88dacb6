"""A quoted attack in a report about it is kept, not refused.

Security notes, incident write-ups and training material quote attacks: "a review
said 'ignore all previous instructions'". Refusing or holding them loses exactly
the notes a security-minded user wants remembered. A text is treated as a report
when every rule finding sits inside quotation marks (or inline code) and the words
outside the quotes say it is about an attack (:data:`_REPORTING`). Such a text is
stored and, like every memory, rendered inside the fence as data; the quote stays a
quote.

What this does not do: findings in hidden layers (invisible characters, encodings,
comments) are never excused, since nobody quotes by hiding; and a quote without a
reporting frame ("note: 'ignore your rules'") still counts as the instruction it is.
"""

from __future__ import annotations

import re

from .model import Threat

# Pairs of quotation marks in the scripts the scan reads, and inline code. ASCII
# single quotes only count when they are not apostrophes (a Latin or Cyrillic letter on
# the outside: Korean and Japanese put a particle right after a closing quote).
_QUOTED = re.compile(
    r"\"[^\"\n]{3,600}\""
    r"|“[^”\n]{3,600}”"
    r"|„[^“”\n]{3,600}[“”]"
    r"|«[^»\n]{3,600}»"
    r"|‹[^›\n]{3,600}›"
    r"|「[^」\n]{2,600}」"
    r"|『[^』\n]{2,600}』"
    r"|‘[^’\n]{3,600}’"
    r"|(?<![0-9A-Za-z\u00c0-\u024f\u0400-\u04ff'])'[^'\n]{3,600}'(?![0-9A-Za-z\u00c0-\u024f\u0400-\u04ff'])"
    r"|`[^`\n]{2,600}`"
)

# Words that say the text reports, explains or warns about an attack. Whole words
# for Latin and Cyrillic scripts; substrings for scripts written without spaces.
_REPORTING = re.compile(
    r"\b(?:attack(?:s|er|ers|ed)?|inject(?:ion|ions|ed)|payloads?|phishing|scam(?:s|mer)?"
    r"|malicious|jailbreaks?|red[ -]team|pentest(?:ing)?|penetration test|incident"
    r"|exploit(?:s|ed)?|suspicious|flag(?:s|ged|ging)?|hijack\w*|blocked|detect(?:ed|s|ion)?|filter(?:s|ed)?"
    r"|warn(?:ing|ed|s)?|audit|finding|vulnerab\w+|spam|fraud\w*|adversar\w+|threat(?:s)?"
    r"|angriff\w*|angreifer|betrug\w*|sicherheitshinweis|schadhaft\w*"
    r"|attaque\w*|hame[çc]onnage|malveillant\w*|arnaque\w*"
    r"|ataque\w*|estafa\w*|malicios[oa]s?|fraude\w*|golpe\w*|ataca\w*"
    r"|attacc\w*|truffa\w*|aanval\w*|oplichting|atak\w*|oszust\w*|saldırı\w*|dolandırıc\w*"
    r"|атак\w*|мошенн\w*|фишинг\w*|вредонос\w*|инцидент\w*|serangan|penipuan|tấn công|lừa đảo"
    # "security" and "injection", the words a security note or report is framed by
    r"|security|quarantin\w*|sicherheit\w*|injektion\w*|sécurité|seguridad|inyecci[oó]n\w*"
    r"|segurança|injeç[aã]o\w*|sicurezza|iniezion\w*|beveiliging\w*|injectie\w*"
    r"|bezpieczeństw\w*|wstrzykni\w*|güvenlik\w*|enjeksiyon\w*|безопасност\w*|инъекц\w*"
    r"|безпек\w*|шахрай\w*|keamanan|injeksi|an ninh|bảo mật|usalama|utapeli)\b"
    r"|攻击|攻撃|注入|钓鱼|釣魚|诈骗|詐騙|恶意|惡意|拦截|攔截|越狱|越獄|可疑|安全(?:周报|報告|报告|通报|事件)"
    r"|インジェクション|フィッシング|詐欺|不審|セキュリティ報告"
    r"|공격|피싱|사기|악성|인젝션"
    r"|هجوم|احتيال|تصيّد|התקפה|הונאה|फ़िशिंग|हमला|धोखाधड़ी|การโจมตี|หลอกลวง"
    r"|セキュリティ|検知|보안|탐지|資安|安全|أمني|الأمان|אבטחה|सुरक्षा|ความปลอดภัย|امنیت|کلاهبردار",
    re.IGNORECASE,
)

# Findings that no quotation excuses: hidden characters are what the reader cannot
# see. (Decoded layers and comments are excluded by the caller: see ``engine``.)
_NEVER_QUOTED = frozenset({"invisible"})


def unquoted(text: str) -> str:
    """``text`` with every quoted span blanked (same length, so offsets still agree)."""
    return _QUOTED.sub(lambda m: " " * len(m.group(0)), text)


def reports_attack(text: str) -> bool:
    """Whether the words outside the quotes say ``text`` is about an attack."""
    return _REPORTING.search(unquoted(text)) is not None


def is_quoted_report(text: str, threats: list[Threat], rescan: list[Threat]) -> bool:
    """Whether the findings of ``text`` are all quotations inside a report of an attack.

    ``rescan`` is the findings of the same rules on :func:`unquoted` ``text``: when
    nothing is left once the quotes are blanked, every finding was inside a quote.
    """
    if not threats or rescan:
        return False
    if any(t.category in _NEVER_QUOTED for t in threats):
        return False
    if _QUOTED.search(text) is None:
        return False
    return reports_attack(text)
