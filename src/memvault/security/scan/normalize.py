"""The views of a text that the rules read.

A rule written for ``ignore previous instructions`` must also fire on
``ｉｇｎｏｒｅ``, ``іgnоrе`` (Cyrillic), ``ign0re``, ``i g n o r e`` and
``ig-nore``; a rule written in Russian must still see Cyrillic. So a text is
read through a few views, each undoing one family of disguise:

``normalize`` (the *skeleton*)
    ignorable characters dropped (soft hyphen, zero-width, bidi controls,
    variation selectors, tag characters), NFKC (fullwidth and mathematical
    letters), then each TR39 confusable mapped to the ASCII letter it imitates,
    plus odd brackets and dashes folded to ``<``, ``>`` and ``-``. Latin-script
    rules read this view.
``deobfuscate``
    the skeleton with letter-spaced runs joined (``i g n o r e`` -> ``ignore``),
    separators inside words removed (``ig-nore``, ``in.struc.tions``),
    underscores read as spaces and leetspeak digits read as letters inside
    words (``1gn0r3``). Read by the same rules when it differs.
``native``
    NFKC without the confusable mapping, with Arabic-script spelling variants
    folded (diacritics, alef and yeh forms), traditional Chinese characters of
    the rule vocabulary folded to simplified ones, and spaces between CJK
    characters removed (``忽 略 之 前``). Rules of non-Latin languages read this
    view; their vocabulary is passed through :func:`fold` when compiled, so both
    sides agree.
"""

from __future__ import annotations

import re
import unicodedata

from ._confusables import table as _confusable_table

# Characters that render as nothing; dropped before matching so that they
# cannot split a keyword (``ig\u00adnore``). The invisible-character check
# reports the suspicious ones separately on the raw text.
_IGNORABLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f"
    "\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0"
    "\U0001d173-\U0001d17a\U000e0000-\U000e0fff]"
)

# Brackets and dashes that imitate the ones of a fence tag but that TR39 does
# not list as confusable with ASCII.
_EXTRA: dict[int, str | int | None] = {
    **dict.fromkeys(map(ord, "‹〈⟨《«❮❬⦑⧼〈＜﹤"), "<"),
    **dict.fromkeys(map(ord, "›〉⟩》»❯❭⦒⧽〉＞﹥"), ">"),
    **dict.fromkeys(map(ord, "‐‑‒–—―⁃﹣－−⸺⸻"), "-"),
    **dict.fromkeys(map(ord, "＿‗"), "_"),
    # Letters TR39 leaves alone or maps to "l", read the way a reader reads them.
    **str.maketrans(
        "аеорсухіјѕԁһԛԝАВЕКМНОРСТХІЈЅαοικνρτυχΑΒΕΗΙΚΜΝΟΡΤΥΧΖıİ",
        "aeopcyxijsdhqwABEKMHOPCTXIJSaoikvptuxABEHIKMNOPTYXZiI",
    ),
}
_SKELETON: dict[int, str | int | None] = {**_confusable_table(), **_EXTRA}


def strip_ignorable(text: str) -> str:
    """``text`` without characters that render as nothing."""
    return _IGNORABLE.sub("", text)


def normalize(text: str) -> str:
    """The confusable skeleton of ``text``: the view Latin-script rules are matched against."""
    return unicodedata.normalize("NFKC", strip_ignorable(text)).translate(_SKELETON)


# -- deobfuscation -------------------------------------------------------------

# Three or more single letters, each followed by one separator: "i g n o r e".
_SPACED = re.compile(r"(?<![^\W\d_])(?:[^\W\d_][ .\-*·|/+~]){2,}[^\W\d_](?![^\W\d_])")
_SPACED_SEP = re.compile(r"[ .\-*·|/+~]")
# Several letter-spaced words in a row, words apart by two or more spaces: "d o  n o t".
_L = r"[^\W\d_]"
_SPACED_PHRASE = re.compile(
    rf"(?<!\S){_L}(?:[ .\-*·]{_L})*(?:[ \t]{{2,}}{_L}(?:[ .\-*·]{_L})*)+(?!\S)"
)
_WORD_GAP = re.compile(r"[ \t]{2,}")
# A word broken across lines with a hyphen: "in-\nstructions".
# (Patterns open with a look ahead at what a match starts with where that is rarer
# than what the look-behind after it accepts: the same matches, found faster.)
_LINE_BREAK = re.compile(r"(?=-)(?<=[^\W\d_])-[ \t]*\n[ \t]*(?=[^\W\d_])")
# A separator between two letters inside a word: "ig-nore", "in.struc.tions".
_INNER_SEP = re.compile(r"(?=[-.·*])(?<=[^\W\d_])[-.·*](?=[^\W\d_])")
_LEET = str.maketrans("013457@$!|", "oieastasil")
# A word of letters alone is left as it is (``_unleet``), so it is not matched at all
# (``(?=[a-z]*[0-9@$!|])``): a word with a digit or symbol is matched whole, as before.
_LEET_WORD = re.compile(
    r"(?<![\w$@])(?=[a-z0-9])(?=[a-z]*[0-9@$!|])(?=[a-z0-9@$!|]*[a-z])[a-z0-9@$!|]{2,}", re.I
)


# Cheap tests for whether a step can change anything.
_MAYBE_SPACED = re.compile(
    r"(?<![^\W\d_])[^\W\d_][ .\-*·|/+~][^\W\d_][ .\-*·|/+~][^\W\d_](?![^\W\d_])"
)
_MAYBE_LEET = re.compile(r"[a-z][0-9@$!|]|[0-9@$!|][a-z]", re.I)


def _unleet(match: re.Match[str]) -> str:
    word = match.group(0)
    if word.isalpha() or not re.search(r"[a-z][0-9@$!|]|[0-9@$!|][a-z]", word, re.I):
        return word
    return word.translate(_LEET)


def deobfuscate(skeleton: str) -> str:
    """``skeleton`` with spacing, separators, underscores and leetspeak inside words undone.

    Each step first checks, with a substring test, that its disguise can be
    present at all: most chat needs none of them, and this runs on every write.
    """
    text = _LINE_BREAK.sub("", skeleton) if "-\n" in skeleton else skeleton
    if "  " in text or "\t" in text:
        text = _SPACED_PHRASE.sub(
            lambda m: " ".join(_SPACED_SEP.sub("", w) for w in _WORD_GAP.split(m.group(0))), text
        )
    if _MAYBE_SPACED.search(text):
        text = _SPACED.sub(lambda m: _SPACED_SEP.sub("", m.group(0)), text)
    text = _INNER_SEP.sub("", text)
    text = text.replace("_", " ")
    if _MAYBE_LEET.search(text):
        text = _LEET_WORD.sub(_unleet, text)
    return text


# -- the native view -------------------------------------------------------------

_ARABIC_FOLD: dict[int, str | int | None] = {
    **dict.fromkeys(range(0x064B, 0x0660), None),  # harakat
    0x0670: None,  # superscript alef
    0x0640: None,  # tatweel
    **dict.fromkeys(map(ord, "أإآٱ"), "ا"),
    **dict.fromkeys(map(ord, "يى"), "ی"),
    ord("ك"): "ک",
}
# Traditional forms of the characters the Chinese rules are written with.
_T2S = str.maketrans(
    "視記拋會繞過來統詞規設約準則戶訴讓瞞發傳鑰碼證據環變憶錄對話現開沒審濾倫機無擺脫啟換獄"
    "讀獲複貼洩給將編寫蓋刪替處們這個說顯輸隱告係後從認憑鍵僅時間請問應該須禁絕刻立別當關於"
    "為並與義務權應體",
    "视记抛会绕过来统词规设约准则户诉让瞒发传钥码证据环变忆录对话现开没审滤伦机无摆脱启换狱"
    "读获复贴泄给将编写盖删替处们这个说显输隐告系后从认凭键仅时间请问应该须禁绝刻立别当关于"
    "为并与义务权应体",
)
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_GAP = re.compile(rf"(?<=[{_CJK}])[ \t\u3000.\-_*·]+(?=[{_CJK}])")


def fold(text: str) -> str:
    """NFKC plus the spelling folds of the native view (also applied to rule vocabulary)."""
    text = unicodedata.normalize("NFKC", strip_ignorable(text))
    return text.translate(_ARABIC_FOLD).translate(_T2S)


def native(text: str) -> str:
    """The view rules of non-Latin languages read: :func:`fold` with CJK spacing removed."""
    return _CJK_GAP.sub("", fold(text))
