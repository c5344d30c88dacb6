"""Threat scan of text that may end up inside a system prompt.

Memory entries are replayed to the model on every turn, so a stored sentence
such as "ignore all previous instructions" or ``curl -d $API_KEY ...`` acts as
a standing prompt injection. Every add/replace (and every load) runs the text
through :func:`scan`; a hit is turned into a ``SecurityError`` by the caller,
which names ``Threat.pattern_id``.

How a text is checked:

1. The **raw** text is searched for invisible and bidirectional control
   characters (zero-width space/joiners, word joiner, BOM, bidi embeddings,
   overrides and isolates, Unicode tag characters). This runs before
   normalisation, which strips them.
2. The text is then normalised for matching (:func:`normalize`): ignorable
   characters are dropped, NFKC folds fullwidth and styled letters (``ｉｇｎｏｒｅ``,
   ``𝐢𝐠𝐧𝐨𝐫𝐞``) to ASCII, and a few Cyrillic/Greek look-alikes are mapped to Latin.
3. Every :class:`Pattern` in :data:`PATTERNS` is searched, case-insensitively.

The rules run over ordinary chat, so each one is anchored on a shape that is
rare in benign text (an imperative plus a qualifier, a command plus a secret
path, a key prefix plus enough random characters). ``tests/test_security_scan.py``
pairs every rule with benign look-alikes that must pass, and
``bench/scan_fp.py`` measures the false-positive rate on real dialogue.

Interface (stable): ``scan(text) -> Threat | None`` returns the first threat,
``scan_all(text) -> list[Threat]`` all of them (one per pattern id).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum

CATEGORIES = (
    "invisible",
    "injection",
    "role_hijack",
    "deception",
    "exfiltration",
    "secret_file",
    "ssh_backdoor",
    "agent_config",
    "hardcoded_secret",
)

# Zero-width characters, word joiner, invisible operators, BOM, bidi controls.
INVISIBLE = frozenset(
    "\u200b\u200c\u200d\u2060\u2062\u2063\u2064\ufeff"
    "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)

_ZWJ = "\u200d"
_ZWNJ = "\u200c"
# Scripts whose spelling uses the zero-width (non-)joiner between letters: Persian
# "می‌خواهم" needs a ZWNJ, Hindi half-forms and Malayalam chillus a ZWJ after a virama.
_JOINING_SCRIPTS = frozenset(
    "ARABIC SYRIAC NKO MONGOLIAN DEVANAGARI BENGALI GURMUKHI GUJARATI ORIYA TAMIL "
    "TELUGU KANNADA MALAYALAM SINHALA TIBETAN MYANMAR KHMER".split()
)
# A flag such as England's is U+1F3F4 followed by tag letters and a cancel tag:
# the only legitimate use of tag characters, so it is removed before the check.
_EMOJI_TAG_SEQUENCE = re.compile(
    "\U0001f3f4[\U000e0030-\U000e0039\U000e0061-\U000e007a]{1,7}\U000e007f"
)
_TAG_CHARACTER = re.compile("[\U000e0000-\U000e007f]")

# Characters that render as nothing; dropped before matching so that they
# cannot split a keyword (``ig\u00adnore``). Those in INVISIBLE are reported
# separately on the raw text.
_IGNORABLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f"
    "\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0"
    "\U0001d173-\U0001d17a\U000e0000-\U000e0fff]"
)

# Cyrillic and Greek letters that look like Latin ones and survive NFKC.
_CONFUSABLES = str.maketrans(
    "аеорсухіјѕԁһԛԝАВЕКМНОРСТХІЈЅ" + "αοιικνρτυχΑΒΕΗΙΚΜΝΟΡΤΥΧΖ" + "ıİ",
    "aeopcyxijsdhqwABEKMHOPCTXIJS" + "aoiikvptuxABEHIKMNOPTYXZ" + "iI",
)


@dataclass(frozen=True, slots=True)
class Threat:
    """One rule that matched: its stable id, its category and what it means."""

    pattern_id: str
    category: str
    description: str


@dataclass(frozen=True, slots=True)
class Pattern:
    """A named rule: a case-insensitive regex searched in the normalised text."""

    id: str
    category: str
    description: str
    regex: re.Pattern[str]
    # Lower-case literals of which every match contains at least one: a cheap
    # substring test that skips the regex on most chat (about 5x faster).
    triggers: tuple[str, ...]

    def matches(self, normalized: str, lowered: str) -> bool:
        """Whether the rule fires; ``lowered`` is ``normalized.lower()``."""
        if not any(trigger in lowered for trigger in self.triggers):
            return False
        return self.regex.search(normalized) is not None

    def threat(self) -> Threat:
        return Threat(self.id, self.category, self.description)


def _gap(limit: int) -> str:
    """Up to ``limit`` characters within one English sentence, shortest first.

    A full stop only ends the sentence when followed by a space or the end, so
    ``.env`` and ``config.yaml`` do not break a match.
    """
    return rf"(?:[^.!?\n]|[.!?](?=\S)){{0,{limit}}}?"


def _gap_zh(limit: int) -> str:
    """Up to ``limit`` characters within one Chinese (or mixed) clause."""
    return rf"[^。！？!?\n]{{0,{limit}}}?"


# ---------------------------------------------------------------------------
# Shared vocabulary
# ---------------------------------------------------------------------------

_SEP = r"[/\\]"
# Files whose only purpose is to hold credentials. ``.env.example`` and public
# keys (``id_rsa.pub``) are deliberately not included.
_SECRET_PATH = (
    r"(?:"
    r"(?<![\w-])\.env(?:\.(?:local|prod|production|dev|development|staging|test))?(?![\w-]|\.\w)"
    r"|(?<![\w-])[._]netrc\b|(?<![\w-])\.pgpass\b|(?<![\w-])\.npmrc\b|(?<![\w-])\.pypirc\b"
    r"|(?<![\w-])\.git-credentials\b"
    rf"|\.aws{_SEP}(?:credentials|config)\b"
    rf"|\.docker{_SEP}config\.json\b|\.kube{_SEP}config\b"
    rf"|\.ssh{_SEP}(?:id_[a-z0-9]++|identity)(?!\.pub)"
    r"|\bid_(?:rsa|dsa|ecdsa|ed25519)(?![\w-]|\.\w)"
    r"|/etc/(?:shadow|gshadow|sudoers)\b|\.gnupg\b|\.password-store\b"
    r"|\bcredentials\.(?:json|csv|txt|ya?ml)\b|\bsecrets\.(?:json|ya?ml|toml)\b"
    r"|\bwallet\.dat\b|\.(?:bash|zsh)_history\b"
    r")"
)
# Literals found in every _SECRET_PATH match (see Pattern.triggers).
_SECRET_FILE_TRIGGERS = (
    ".env",
    "netrc",
    "pgpass",
    "npmrc",
    "pypirc",
    "git-credentials",
    ".aws",
    "config",
    "id_",
    "identity",
    "/etc/",
    ".gnupg",
    "password-store",
    "credentials",
    "secrets.",
    "wallet.dat",
    "_history",
)
# In a shell command any path ending in ``/credentials`` also counts (a bare
# word would not: "I need more credentials" is chat).
_SECRET_PATH_CMD = rf"(?:{_SECRET_PATH}|[/\\]credentials\b)"
# Natural-language names of the same files.
_SECRET_FILE_WORDS = (
    rf"(?:{_SECRET_PATH}|\bcredentials?\s+files?\b|\bprivate\s+(?:ssh\s+)?key(?:\s+files?)?\b"
    r"|\bssh\s+private\s+keys?\b)"
)
_READ_CMD = r"\b(?:cat|tac|less|more|head|tail|bat|nl|strings|xxd|od|base64|type|get-content)"
# A path-like shell argument (flags, or something with a slash or a dot in it).
_ARG = r"(?:-[\w-]+|\d+|[\w~$%{}:\\/-]*[./\\][\w~$%{}:./\\-]*)"

_SECRET_WORDS_EN = (
    r"(?:api[\s_-]?keys?|access[\s_-]?keys?|secret[\s_-]?keys?|secrets|auth[\s_-]?tokens?"
    r"|access[\s_-]?tokens?|bearer\s+tokens?|credentials|passwords?|passwd"
    r"|private[\s_-]?keys?|ssh[\s_-]?keys?|env(?:ironment)?\s+var(?:iable)?s|\.env\b"
    r"|session\s+(?:cookies?|tokens?)|cookies"
    r"|(?:conversation|chat)\s+(?:history|logs?|transcripts?)"
    r"|(?:entire|whole|full|this)\s+(?:conversation|chat)|system\s+prompt"
    r"|(?:your|all|stored|saved|the\s+user['’]?s)\s+memor(?:y|ies)|user\s+data)"
)
_SECRET_WORDS_ZH = (
    r"(?:密钥|秘钥|私钥|令牌|token|密码|口令|凭证|凭据|api\s*key|环境变量|\.env"
    r"|聊天记录|对话记录|系统提示词|记忆)"
)
_SEND_EN = r"\b(?:send|post|upload|forward|transmit|exfiltrate|leak|submit|e-?mail|beam|ship)\b"
_SEND_ZH = r"(?:发送|发给|发到|传到|上传|提交|转发|外传|泄露|泄漏|回传)"

_AGENT_CONFIG_FILE = (
    r"(?:(?<![\w-])(?:AGENTS|CLAUDE|GEMINI|SOUL|HERMES)\.md\b"
    r"|\.cursorrules\b|\.cursor[/\\]rules\b|\.windsurfrules\b|\.clinerules\b"
    r"|\bcopilot-instructions\.md\b|\.claude[/\\]settings(?:\.local)?\.json\b"
    r"|(?<![\w-])\.mcp\.json\b|\.aider\.conf\.ya?ml\b"
    r"|\bsystem[_-]?prompt\.(?:md|txt|ya?ml|json)\b|\bsystem\s+prompt\s+files?\b)"
)

_LIMITS = (
    r"(?:restrictions|limitations|limits|filters|rules|guidelines|censorship|ethics|morals"
    r"|safeguards|programming|guardrails)"
)
# What an unrestricted persona is called. An adjective is enough; "without
# rules" needs an AI noun first, since "a guide with no limits on budget" is chat.
_NO_LIMITS = (
    r"(?:unrestricted|uncensored|unfiltered|jailbroken|unchained|amoral"
    r"|(?:ai|assistant|chatbot|bot|model|llm|version|persona|entity)\b"
    + _gap(20)
    + r"\b(?:without|with\s+no|free\s+(?:from|of))\s+(?:any\s+|all\s+)?(?:\w+\s+)?"
    + _LIMITS
    + r"\b"
    + r"|(?:free|freed|liberated|released)\s+(?:from|of)\s+(?:all\s+|any\s+|your\s+)?"
    + r"(?:\w+\s+)?"
    + _LIMITS
    + r"(?=\s*(?:[.,;:!]|$|and\b|now\b)))"
)

# Imperative only ("ignored" and "don't forget the ..." do not match).
_IGNORE_VERB = (
    r"(?<!n't )(?<!not )(?<!never )"
    r"\b(?:ignore|disregard|forget|override|bypass|discard|abandon)\s+"
)
_QUANT = r"(?:(?:all|any|every|each)\s+(?:of\s+)?)?"
_WHEN = (
    r"(?:(?:previous|prior|above|earlier|preceding|foregoing|former|original|initial"
    r"|existing|current)\s+)"
)
# Nouns that in chat almost only mean a model's instructions ...
_STRONG_NOUN = (
    r"(?:instructions?|prompts?|directives|directions|guidelines|guardrails|programming"
    r"|system\s+prompt)\b"
)
# ... and ones that also mean game rules or old messages ("forget the previous rules").
_WEAK_NOUN = r"(?:rules|commands|context|messages|constraints|restrictions)\b"

# ---------------------------------------------------------------------------
# The rules
# ---------------------------------------------------------------------------

_RULES: list[tuple[str, str, str, tuple[str, ...], str]] = [
    # -- injection ---------------------------------------------------------
    (
        "ignore_instructions",
        "injection",
        "tells the model to ignore, forget or override its earlier instructions",
        ("ignor", "disregard", "forget", "overrid", "bypass", "discard", "abandon"),
        _IGNORE_VERB
        + r"(?:"
        # "ignore (all) (the) previous instructions"
        + rf"{_QUANT}(?:(?:the|these|those|my)\s+)?{_WHEN}{{1,2}}{_STRONG_NOUN}"
        # "ignore (all) your (previous) rules": addressed to the model, any noun will do
        + rf"|{_QUANT}your\s+{_WHEN}{{0,2}}(?:{_STRONG_NOUN}|{_WEAK_NOUN})"
        # "ignore the system rules", "bypass safety guidelines"
        + rf"|{_QUANT}(?:(?:the|your)\s+)?(?:system|safety|developer)\s+"
        + rf"(?:{_STRONG_NOUN}|{_WEAK_NOUN})"
        # "ignore all instructions", "ignore the instructions above"
        + rf"|(?:all|any|every)\s+(?:of\s+)?(?:the\s+)?(?:{_STRONG_NOUN}|rules\b)"
        + rf"|(?:all\s+)?(?:of\s+)?(?:the|your)\s+(?:{_STRONG_NOUN}|rules\b)\s+"
        + r"(?:above|before\s+this|(?:given|provided)\s+(?:above|earlier|before)"
        + r"|you\s+(?:were\s+)?given)"
        # "ignore everything above"
        + r"|everything\s+(?:above|before|(?:you\s+were|i)\s+(?:told|said)"
        + r"|said\s+(?:above|before)))",
    ),
    (
        "ignore_instructions_zh",
        "injection",
        "Chinese phrasing of 'ignore/forget the previous instructions'",
        ("忽略", "忽视", "无视", "忘记", "忘掉", "抛", "丢弃", "理会", "遵守", "绕过", "跳过"),
        r"(?<![我他她们])"
        r"(?:忽略|忽视|无视|忘记|忘掉|抛开|抛弃|丢弃|不要理会|别理会|不要遵守|不再遵守|不用遵守"
        r"|不必遵守|绕过|跳过)(?!了)掉?"
        + _gap_zh(8)
        + r"(?:之前|以前|此前|先前|上面|上述|以上|前面|原来|原有|原先|原始"
        r"|系统|你的|所有|全部|一切|任何)"
        + _gap_zh(6)
        + r"(?:指令|指示|提示词|系统提示|规则|设定|约束|限制|命令|准则)",
    ),
    (
        "prompt_leak_request",
        "injection",
        "asks the model to reveal its own system prompt",
        ("your", "你的"),
        r"\b(?:reveal|print|output|repeat|dump|leak|disclose|show\s+me)\s+(?:me\s+)?your\s+"
        r"(?:(?:full|entire|original|hidden|initial|exact|secret)\s+)*"
        r"(?:system\s+(?:prompt|instructions|message)|hidden\s+instructions"
        r"|initial\s+instructions|instructions\s+verbatim)"
        r"|(?:输出|打印|显示|泄露|透露|重复|告诉我)"
        + _gap_zh(4)
        + r"你的(?:系统提示词?|初始指令|隐藏指令)",
    ),
    (
        "fake_role_delimiter",
        "injection",
        "chat-template or context delimiters that could fake a system turn",
        ("<", "inst]"),
        r"<\|(?:im_start|im_end|system|endoftext|eot_id|start_header_id|end_header_id)\|>"
        r"|\[/?INST\]|<</?SYS>>|<\s*/?\s*(?:system|system-reminder|memory-context)\s*>",
    ),
    # -- role hijack ---------------------------------------------------------
    (
        "role_unrestricted",
        "role_hijack",
        "recasts the model as an unrestricted or jailbroken persona",
        (
            "unrestricted",
            "uncensored",
            "unfiltered",
            "jailbr",
            "unchained",
            "amoral",
            "without",
            "no",
            "free",
            "liberated",
            "released",
            "dan",
        ),
        r"\b(?:you\s+are\s+now|you\s+will\s+now\s+be|from\s+now\s+on,?\s+you\s+(?:are|will\s+be)"
        r"|act\s+as|behave\s+as|pretend\s+(?:to\s+be|you\s+are|that\s+you\s+are)"
        r"|role-?play\s+as|you\s+are\s+going\s+to\s+(?:act|pretend|be))\b"
        + _gap(40)
        + r"\b"
        + _NO_LIMITS
        + r"|\b(?:you\s+are\s+now|act\s+as|pretend\s+to\s+be)\s+(?-i:DAN)\b"
        r"|\b(?:enter|enable|activate|switch\s+to|you\s+are\s+(?:now\s+)?in)\s+"
        r"(?:(?-i:DAN)|jailbreak)\s+mode\b",
    ),
    (
        "role_no_longer_ai",
        "role_hijack",
        "tells the model it is no longer an AI or no longer bound by its rules",
        ("longer",),
        r"\byou\s+are\s+no\s+longer\s+(?:an?\s+)?(?:ai\b|ai\s+assistant|language\s+model|llm"
        r"|chatbot|chatgpt|claude|gpt\b|bound\s+by\s+(?:any\s+|your\s+|the\s+)?"
        r"(?:rules|guidelines|restrictions|policies|instructions|openai|anthropic))",
    ),
    (
        "role_new_identity",
        "role_hijack",
        "assigns the model a new persona, identity or system prompt",
        ("new",),
        r"\byour\s+new\s+(?:persona|identity|system\s+prompt|instructions|directives)"
        r"\s+(?:is|are)\b",
    ),
    (
        "role_unrestricted_zh",
        "role_hijack",
        "Chinese phrasing of 'you are now an AI without restrictions'",
        ("你", "模式"),
        r"你"
        + _gap_zh(6)
        + r"(?:是|扮演|作为|成为|变成|化身为?)"
        + _gap_zh(8)
        + r"(?:没有|不受|无|摆脱了?|解除了?|不再受)(?:任何|一切|所有)?的?"
        r"(?:限制|约束|审查|过滤|道德|规则|伦理|底线)"
        + _gap_zh(6)
        + r"(?:ai|人工智能|助手|模型|机器人|角色|版本|人格)"
        r"|你(?:现在)?不再是(?:一个)?(?:ai|人工智能|助手|语言模型|聊天机器人)"
        r"|你(?:现在|从现在起|从现在开始)?(?:是|就是|扮演)\s*(?-i:DAN)\b"
        r"|(?:进入|开启|启用|切换到|激活)\s*(?:(?-i:DAN)|越狱)\s*模式",
    ),
    # -- deception -----------------------------------------------------------
    (
        "hide_from_user",
        "deception",
        "instructs the model to keep something from the user",
        ("user", "human", "operator"),
        r"\b(?:do\s+not|don'?t|never|must\s+not|mustn'?t|should\s+not|shouldn'?t)\s+"
        r"(?:tell|inform|notify|alert|warn|reveal\s+(?:this|it|that)?\s*to|mention\s+"
        r"(?:this|it|that)?\s*to)\s+the\s+(?:user|human|operator)\b(?!['’]s)"
        r"(?!\s+(?:a\s+)?lies?\b)"
        r"|\b(?:do\s+not|don'?t|never)\s+let\s+the\s+(?:user|human)\s+(?:know|see|find\s+out|notice)"
        r"|\b(?:hide|conceal|keep)\s+(?:this|it|that|these|them)\s+(?:secret\s+)?from\s+the\s+"
        r"(?:user|human)\b"
        r"|\bwithout\s+(?:telling|informing|notifying|alerting)\s+the\s+(?:user|human)\b",
    ),
    (
        "hide_from_user_zh",
        "deception",
        "Chinese phrasing of 'do not tell the user'",
        ("用户", "使用者"),
        r"(?:不要|别|不许|不能|不准|切勿|千万别|千万不要|禁止)(?:告诉|告知|通知|提醒)"
        r"(?:用户|使用者)(?!名)"
        r"|(?:不要|别|不许|不能|不准|切勿|千万别|千万不要|禁止)让(?:用户|使用者)"
        r"(?:知道|发现|看到|察觉|注意到)"
        r"|(?:不要|别|不许|切勿)(?:向|对|跟)(?:用户|使用者)(?:透露|提及|提起|说|说明|披露)"
        r"|瞒着(?:用户|使用者)|(?:向|对)(?:用户|使用者)(?:隐瞒|保密)",
    ),
    # -- exfiltration --------------------------------------------------------
    (
        "exfil_secret_variable",
        "exfiltration",
        "network command carrying a secret environment variable",
        ("$",),
        r"\b(?:curl|wget|http|https|httpie|nc|ncat|netcat|invoke-webrequest|invoke-restmethod"
        r"|iwr|irm)\b[^\n]{0,200}?\$\{?[a-z_]*"
        r"(?:key|token|secret|passw(?:or)?d|pwd|credential|auth)\w*\}?",
    ),
    (
        "exfil_secret_file_upload",
        "exfiltration",
        "network command reading or uploading a credential file",
        ("curl", "wget", "scp", "rsync", "nc", "netcat", "ftp"),
        r"\b(?:curl|wget|scp|rsync|nc|ncat|netcat|sftp|ftp)\b[^\n]{0,200}?" + _SECRET_PATH_CMD,
    ),
    (
        "exfil_pipe_to_network",
        "exfiltration",
        "environment or file contents piped into a network command",
        ("|",),
        r"\b(?:env|printenv|set|history)\b\s*(?:\|\s*[\w-]+[^\n|]*)?\|\s*"
        r"(?:curl|wget|nc|ncat|netcat)\b",
    ),
    (
        "exfil_send_to_url",
        "exfiltration",
        "sends secrets, memory or conversation data to a URL",
        ("://",),
        _SEND_EN
        + _gap(80)
        + r"\b"
        + _SECRET_WORDS_EN
        + _gap(60)
        + r"\b(?:to|into|at|via)\s+(?:https?|ftp)://"
        + r"|"
        + _SEND_ZH
        + _gap_zh(30)
        + _SECRET_WORDS_ZH
        + _gap_zh(20)
        + r"(?:https?|ftp)://"
        + r"|"
        + _SECRET_WORDS_ZH
        + _gap_zh(20)
        + _SEND_ZH
        + _gap_zh(10)
        + r"(?:https?|ftp)://",
    ),
    (
        "exfil_markdown_image",
        "exfiltration",
        "markdown image whose URL query is filled from a template variable",
        ("![",),
        r"!\[[^\]\n]{0,200}\]\(\s*https?://[^)\s]*[?&][\w-]+=(?:\{\{?|\$\{?|%7B)",
    ),
    # -- secret files ----------------------------------------------------------
    (
        "read_secret_file",
        "secret_file",
        "shell command printing a credential file (.env, .netrc, ssh keys, ...)",
        _SECRET_FILE_TRIGGERS,
        _READ_CMD + rf"\s+(?:{_ARG}\s+){{0,4}}?[\"']?[\w~$%{{}}:./\\-]*?" + _SECRET_PATH_CMD,
    ),
    (
        "leak_secret_file",
        "secret_file",
        "asks to read a credential file and pass its contents on",
        (*_SECRET_FILE_TRIGGERS, "credential", "private"),
        r"\b(?:read|print|dump|show|display|output|open|get|grab|collect|extract|load|cat)\b"
        + _gap(40)
        + _SECRET_FILE_WORDS
        + _gap(60)
        + r"\b(?:send|post|upload|e-?mail|forward|share|paste|transmit|exfiltrate|leak|include"
        r"|put|append|report|return)\b"
        r"|\b(?:send|post|upload|e-?mail|forward|paste|transmit|exfiltrate|leak|reveal|share)\b"
        + _gap(40)
        + _SECRET_FILE_WORDS,
    ),
    (
        "leak_secret_file_zh",
        "secret_file",
        "Chinese phrasing of reading a credential file and sending it on",
        (*_SECRET_FILE_TRIGGERS, "私钥"),
        r"(?:读取|读出|打开|查看|打印|输出|获取|拿到|复制)"
        + _gap_zh(30)
        + rf"(?:{_SECRET_PATH}|私钥)"
        + _gap_zh(30)
        + r"(?:发送|发给|发到|传到|上传|提交|转发|贴出|泄露|告诉我|给我)"
        + r"|(?:把|将)"
        + _gap_zh(20)
        + rf"(?:{_SECRET_PATH}|私钥)"
        + _gap_zh(20)
        + _SEND_ZH
        + r"|"
        + _SEND_ZH
        + _gap_zh(20)
        + rf"(?:{_SECRET_PATH}|私钥)",
    ),
    # -- ssh backdoor ----------------------------------------------------------
    (
        "ssh_authorized_keys",
        "ssh_backdoor",
        "writes a key into authorized_keys (persistent remote access)",
        ("authorized_keys",),
        r"(?:>>?|\btee\b|\bcp\b|\bmv\b|\bscp\b|\bdd\b)[^\n]{0,80}?\bauthorized_keys2?\b"
        r"|\b(?:add|append|write|insert|put|copy|install|plant|drop|paste|echo)\b"
        + _gap(60)
        + r"\bauthorized_keys2?\b"
        + r"|(?:添加|加入|写入|追加|放入|放到|复制|拷贝|粘贴)"
        + _gap_zh(30)
        + r"authorized_keys"
        + r"|authorized_keys2?"
        + _gap_zh(10)
        + r"(?:添加|加入|写入|追加|插入)",
    ),
    (
        "ssh_config_tamper",
        "ssh_backdoor",
        "rewrites sshd_config (root login, password auth)",
        ("sshd_config", "permitrootlogin"),
        r"(?:>>?|\btee\b|\bsed\s+-i\b)[^\n]{0,80}?\bsshd_config\b"
        r"|\bPermitRootLogin\s+yes\b",
    ),
    # -- agent configuration -------------------------------------------------
    (
        "edit_agent_config",
        "agent_config",
        "edits an agent instruction file (AGENTS.md, CLAUDE.md, .cursorrules, ...)",
        (
            ".md",
            "cursor",
            "windsurfrules",
            "clinerules",
            ".claude",
            ".mcp.json",
            "aider.conf",
            "system",
            "系统提示",
        ),
        r"\b(?:edit|modify|change|update|overwrite|rewrite|append|write|add|insert|inject|replace"
        r"|delete|remove|patch|alter|tamper\s+with)\b"
        + _gap(60)
        + _AGENT_CONFIG_FILE
        + r"|(?:>>?|\btee\b(?:\s+-a)?|\bsed\s+-i\b[^\n]{0,80}?)\s*[\"']?[\w~./\\-]*?"
        + _AGENT_CONFIG_FILE
        + r"|\b(?:edit|modify|change|update|overwrite|rewrite|append\s+to|replace)\s+"
        r"(?:your|the\s+(?:agent|assistant)['’]?s?)\s+(?:own\s+)?system\s+prompt\b"
        r"|(?:修改|编辑|更改|改写|改动|覆盖|覆写|写入|追加|添加|加入|删除|替换|篡改)"
        + _gap_zh(20)
        + rf"(?:{_AGENT_CONFIG_FILE}|系统提示词|系统提示)"
        + rf"|(?:在|往|向)\s*{_AGENT_CONFIG_FILE}"
        + _gap_zh(10)
        + r"(?:添加|写入|追加|加入|插入)",
    ),
    # -- hard-coded secrets --------------------------------------------------
    (
        "openai_style_key",
        "hardcoded_secret",
        "secret API key with an sk- prefix (OpenAI, Anthropic, ...)",
        ("sk-",),
        r"(?<![\w-])sk-(?:proj-|svcacct-|admin-|ant-(?:api|admin)\d\d-)?"
        r"(?=[\w-]{0,200}\d)(?-i:[A-Za-z0-9_-]{20,})",
    ),
    (
        "aws_access_key_id",
        "hardcoded_secret",
        "AWS access key id (AKIA/ASIA...)",
        ("akia", "asia", "abia", "acca"),
        r"(?-i:\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b)",
    ),
    (
        "github_token",
        "hardcoded_secret",
        "GitHub token (ghp_, gho_, ghs_, github_pat_ ...)",
        ("gh", "github_pat_"),
        r"(?-i:\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{40,255})\b)",
    ),
    (
        "slack_token",
        "hardcoded_secret",
        "Slack token (xoxb-, xoxp-, ...)",
        ("xox",),
        r"(?-i:\bxox[abposr]-\d{6,}-[A-Za-z0-9-]{8,})",
    ),
    (
        "stripe_secret_key",
        "hardcoded_secret",
        "Stripe live secret or restricted key",
        ("_live_",),
        r"(?-i:\b[sr]k_live_[0-9A-Za-z]{20,}\b)",
    ),
    (
        "google_api_key",
        "hardcoded_secret",
        "Google API key (AIza...)",
        ("aiza",),
        r"(?-i:\bAIza[0-9A-Za-z_-]{35}(?![\w-]))",
    ),
    (
        "private_key_block",
        "hardcoded_secret",
        "PEM private key block",
        ("private key",),
        r"-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----",
    ),
]

PATTERNS: tuple[Pattern, ...] = tuple(
    Pattern(pid, category, description, re.compile(regex, re.IGNORECASE), triggers)
    for pid, category, description, triggers, regex in _RULES
)
"""Every text rule, in the order :func:`scan` tries them."""

INVISIBLE_PATTERN_ID = "invisible_unicode"
TAG_PATTERN_ID = "invisible_tag_characters"


def normalize(text: str) -> str:
    """Return the form of ``text`` the patterns are matched against."""
    stripped = _IGNORABLE.sub("", text)
    return unicodedata.normalize("NFKC", stripped).translate(_CONFUSABLES)


def _is_pictographic(ch: str) -> bool:
    """Rough test for an emoji code point (or a modifier that belongs to one)."""
    cp = ord(ch)
    return (
        0x1F000 <= cp <= 0x1FAFF
        or 0x2600 <= cp <= 0x27BF
        or 0x2B00 <= cp <= 0x2BFF
        or cp in (0xFE0F, 0x20E3)
    )


def _joining_letter(ch: str) -> bool:
    """A letter or combining mark of a script that spells words with (non-)joiners."""
    if not unicodedata.category(ch).startswith(("L", "M")):
        return False
    return unicodedata.name(ch, "").split(" ", 1)[0] in _JOINING_SCRIPTS


def _invisible_threat(text: str) -> Threat | None:
    """Find a hidden control character in the raw text.

    Two uses are ordinary writing and allowed: a zero-width joiner between two
    emoji (how family, profession and flag emoji are spelled), and a zero-width
    joiner or non-joiner between two letters of a script whose orthography needs
    them (Persian, Urdu, the Indic scripts). Elsewhere they hide text.
    """
    for i, ch in enumerate(text):
        if ch not in INVISIBLE:
            continue
        inside = 0 < i < len(text) - 1
        if (
            ch == _ZWJ
            and inside
            and _is_pictographic(text[i - 1])
            and _is_pictographic(text[i + 1])
        ):
            continue
        if ch in (_ZWJ, _ZWNJ) and i > 0 and _joining_letter(text[i - 1]):
            after = text[i + 1] if i + 1 < len(text) else " "
            if _joining_letter(after):
                continue
            # Older Malayalam spells a word-final chillu as consonant, virama, ZWJ.
            if (
                ch == _ZWJ
                and "VIRAMA" in unicodedata.name(text[i - 1], "")
                and (after.isspace() or unicodedata.category(after).startswith("P"))
            ):
                continue
        name = unicodedata.name(ch, "control character")
        return Threat(
            INVISIBLE_PATTERN_ID,
            "invisible",
            f"invisible or bidirectional control character U+{ord(ch):04X} {name} at offset {i}",
        )
    if _TAG_CHARACTER.search(_EMOJI_TAG_SEQUENCE.sub("", text)):
        return Threat(
            TAG_PATTERN_ID,
            "invisible",
            "Unicode tag characters, which can smuggle invisible ASCII text",
        )
    return None


def _threats(text: str) -> Iterator[Threat]:
    invisible = _invisible_threat(text)
    if invisible is not None:
        yield invisible
    normalized = normalize(text)
    lowered = normalized.lower()
    for pattern in PATTERNS:
        if pattern.matches(normalized, lowered):
            yield pattern.threat()


def scan_all(text: str) -> list[Threat]:
    """Every threat in ``text``, at most one per pattern id, invisible characters first."""
    if not text:
        return []
    return list(_threats(text))


def scan(text: str) -> Threat | None:
    """The first threat in ``text``, or ``None`` if it is safe to store."""
    if not text:
        return None
    return next(_threats(text), None)


class Verdict(StrEnum):
    """What the write path does with a text: refuse it, hold it for review, or keep it."""

    BLOCK = "block"
    QUARANTINE = "quarantine"
    ALLOW = "allow"


@dataclass(frozen=True, slots=True)
class Assessment:
    """The scan's decision on one text and the findings behind it (strongest first)."""

    verdict: Verdict
    threats: tuple[Threat, ...] = ()

    @property
    def threat(self) -> Threat | None:
        return self.threats[0] if self.threats else None


def assess(text: str) -> Assessment:
    """The verdict on ``text``: ``block``, ``quarantine`` or ``allow``, with the findings."""
    threats = tuple(scan_all(text)) if text else ()
    return Assessment(Verdict.BLOCK if threats else Verdict.ALLOW, threats)


__all__ = [
    "CATEGORIES",
    "INVISIBLE",
    "PATTERNS",
    "Assessment",
    "Pattern",
    "Threat",
    "Verdict",
    "assess",
    "normalize",
    "scan",
    "scan_all",
]
