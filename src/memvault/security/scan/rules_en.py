"""The English rules, and the command- and file-name rules every language shares.

Each rule is data: an id, a category, a description, the trigger literals of
the substring pre-filter and a regex. Most imply ``block``; the ids in
:data:`QUARANTINE_IDS` are borderline shapes that also occur in real notes
(``cat ~/.aws/credentials`` in a runbook, "do not tell the user the ticket id"),
so they hold the text for review instead of refusing it.

The rules run over ordinary chat, so each one is anchored on a shape that is
rare in benign text (an imperative plus a qualifier, a command plus a secret
path, a key prefix plus enough random characters).

The module is long because it is a table: one entry per rule and nothing else, so
a rule is added or reviewed in one place (the other languages have their own files).
"""

from __future__ import annotations

import re

from .model import Pattern, Verdict


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
_SECRET_PATH_CMD = rf"(?:{_SECRET_PATH}|[/\\]credentials(?![\w-]|\.\w))"
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
# Where stolen data goes: a URL, an e-mail address, or a paste/webhook service.
_TARGET = (
    r"(?:(?:https?|ftp)://|\b[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}\b"
    r"|\b(?:webhook|pastebin|ngrok|requestbin|discord\.com/api/webhooks)\b)"
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
        + rf"|(?:all|any|every)\s+(?:of\s+)?(?:the\s+)?(?:{_STRONG_NOUN}|rules?\b)"
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
        r"(?<![我他她们不别没勿])(?<!不要)(?<!不能)(?<!不会)(?<!没有)(?<!不用)(?<!千万)"
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
        "ignore_instructions_paraphrase",
        "injection",
        "declares the earlier instructions void or tells the model to stop following them",
        ("previous", "prior", "earlier", "above", "original", "initial", "system", "existing"),
        r"\b(?:pay\s+no\s+(?:attention|heed)\s+to|(?:do\s+not|don'?t|stop|no\s+longer)\s+"
        r"(?:follow(?:ing)?|obey(?:ing)?|listen(?:ing)?\s+to|comply(?:ing)?\s+with|honou?r(?:ing)?)"
        r"|set\s+aside|throw\s+(?:out|away)|scrap|cancel|void|nullify|supersede|erase|wipe|drop"
        r"|clear|delete|discard|neglect|skip|abandon|leave\s+behind|put\s+aside)\s+"
        + _QUANT
        + r"(?:(?:the|your|my|any|these|those)\s+)?(?:\w+\s+)?"
        + _WHEN
        + r"(?:\w+\s+)?(?:instructions?|guidance|directions|directives|rules|prompts?|programming"
        r"|orders|commands|context|guidelines|constraints|system\s+prompt)\b"
        r"|\b(?:previous|prior|earlier|above|original|initial|system|existing|old)\s+"
        r"(?:instructions|guidance|directives|rules|prompts?|orders|guidelines)\s+"
        r"(?:are|is)\s+(?:now\s+)?(?:void|cancell?ed|null|obsolete|revoked|invalid|superseded"
        r"|overridden|no\s+longer\s+(?:valid|in\s+effect|applicable|apply|relevant|binding))"
        r"|\b(?:these|the\s+following|my|new)\s+(?:instructions|rules|orders)\s+"
        r"(?:supersede|override|replace|take\s+precedence\s+over|trump)\s+"
        r"(?:all\s+|any\s+)?(?:previous|prior|earlier|other|your|the\s+(?:system|original))",
    ),
    (
        "role_from_now_on",
        "role_hijack",
        "gives the model a standing new identity or mode ('from now on you are ...')",
        ("now on", "henceforth", "now,", "现在开始", "现在起", "今后"),
        r"\b(?:from\s+now\s+on|henceforth|starting\s+now)\s*,?\s+you\s+(?:are|will\s+(?:be|act"
        r"|respond|answer|reply|only|always|never|obey)|must|shall|act|respond|answer|reply"
        r"|only|always|never|obey)\b"
        r"|(?:从现在开始|从现在起|从今以后|从今天起|今后)\s*[，,]?\s*你(?:就|将|要|只|必须)?(?:是|扮演|作为|成为"
        r"|只能|必须|要|将|不再)",
    ),
    (
        "fake_role_delimiter",
        "injection",
        "chat-template delimiters or role tags (<system>, <assistant>) that could fake a turn",
        ("<", "inst]"),
        r"<\|(?:im_start|im_end|system|endoftext|eot_id|start_header_id|end_header_id)\|>"
        r"|\[/?INST\]|<</?SYS>>"
        r"|<\s*/?\s*(?:system(?:[\s_-]*(?:prompt|message))?|user[\s_-]*memory|assistant|developer"
        r"|tool[\s_-]*result)\s*>",
    ),
    (
        "fake_fence_tag",
        "injection",
        "a memory-context or system-reminder fence tag, or a look-alike of one",
        ("<",),
        r"<\s*/?\s*(?:system[\s_-]*reminder|memory[\s_-]*context)"
        r"(?:\s+[\w-]+\s*=\s*[\"'][^\"'<>\n]{0,40}[\"'])*\s*/?\s*>",
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
        # Seed 000 §12.1 blocks every "you are now ": that also refuses "you are now able
        # to log in", so only a sentence that opens with it and gives the model a short
        # new persona or mode counts (held for review, which the builtin files refuse).
        "role_you_are_now",
        "role_hijack",
        "opens a sentence by giving the model a new persona or mode ('You are now a pirate.')",
        ("you are now",),
        r"(?:^|(?<=[.!?:;\n\"'“(]))\s*you\s+are\s+now\s+"
        r"(?:in\s+(?:developer|dev|god|admin|administrator|root|sudo|debug|maintenance"
        r"|unrestricted|unfiltered|uncensored|evil|jailbreak)\s+mode\b"
        r"|(?!(?:able|free|officially|also|allowed|ready|done|set|all|part|logged|signed"
        r"|registered|connected|eligible|enrolled|subscribed|responsible|going|being|in|on"
        r"|at|my|our|his|her|their|your|more|less|older|back|home|here|there|an?\s+(?:member"
        r"|part|owner|proud|happy|official|registered|certified)|the\s+(?:proud|owner"
        r"|new\s+owner|happy))\b)(?:(?:a|an|the)\s+)?[\w-]+(?:\s+[\w-]+){0,3}"
        r"\s*(?:[.!,]|$|\s+(?:and|who|that|with|named|called)\b))",
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
        "network command sending a secret environment variable somewhere other than an auth header",
        ("$",),
        r"\b(?:curl|wget|httpie|nc|ncat|netcat|invoke-webrequest|invoke-restmethod"
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
        ("://", "@", "webhook", "pastebin", "ngrok", "requestbin"),
        _SEND_EN
        + _gap(80)
        + r"\b"
        + _SECRET_WORDS_EN
        + _gap(60)
        + r"\b(?:to|into|at|via|on)\s+(?:the\s+)?"
        + _TARGET
        + r"|"
        + _SEND_ZH
        + _gap_zh(30)
        + _SECRET_WORDS_ZH
        + _gap_zh(20)
        + _TARGET
        + r"|"
        + _SECRET_WORDS_ZH
        + _gap_zh(20)
        + _SEND_ZH
        + _gap_zh(10)
        + _TARGET,
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
        "shell command printing a credential file (.netrc, ssh keys, cloud credentials, ...)",
        _SECRET_FILE_TRIGGERS,
        # ``cat .env`` is an everyday runbook step, so a bare .env does not count here.
        _READ_CMD
        + rf"\s+(?:{_ARG}\s+){{0,4}}?[\"']?[\w~$%{{}}:./\\-]*?(?!\.env\b)"
        + _SECRET_PATH_CMD,
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
        # "add the deploy key to authorized_keys" is a chore; "add this key", "my key",
        # "the key below" or root's file is someone planting their own key.
        r"|\b(?:add|append|write|insert|put|copy|install|plant|drop|paste|echo|slip)\b"
        r"(?=(?:[^.!?\n]|[.!?](?=\S)){0,60}?(?:\b(?:this|my|our|the\s+following|attacker['’]?s?"
        r"|the\s+key\s+below|following)\b|/root/))"
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
        "ssh_key_injection",
        "ssh_backdoor",
        "a literal public key written into authorized_keys",
        ("authorized_keys",),
        r"\b(?:ssh-(?:rsa|ed25519|dss)|ecdsa-sha2-[\w-]+|sk-ssh-ed25519@openssh\.com)\s+AAAA"
        r"[^\n]{0,400}?(?:>>?|\btee\b|\bto\b|\binto\b)[^\n]{0,80}?\bauthorized_keys2?\b",
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
        "changes an agent instruction file (AGENTS.md, CLAUDE.md, ...) to carry a payload",
        (
            ".md",
            "cursor",
            "windsurfrules",
            "clinerules",
            ".claude",
            ".mcp.json",
            "aider.conf",
            "system",
        ),
        # "update AGENTS.md" alone is a chore; an edit that carries a payload (a quoted
        # line, "so it skips ...", "to always ...") is someone steering the next agent.
        r"\b(?:edit|modify|change|update|overwrite|rewrite|append|write|add|insert|inject|replace"
        r"|patch|alter|tamper\s+with|put)\b"
        + _gap(60)
        + _AGENT_CONFIG_FILE
        + r"(?=[^.!?\n]{0,80}?(?:\b(?:so\s+(?:that\s+)?(?:it|you|the\s+agent|agents|claude)"
        r"|with\s+(?:this|the\s+following|these)|saying|telling|to\s+(?:always|never|skip"
        r"|ignore|disable|trust|allow|run|auto)|always|never|skip|ignore|disable|bypass|trust"
        r"|curl|wget)\b|[:\"'`]))"
        + r"|\b(?:add|append|insert|inject|write|put)\s+[\"'`][^\"'`\n]{3,200}[\"'`]"
        + _gap(30)
        + r"\b(?:to|into|in)\s+[\w~./\\-]*?"
        + _AGENT_CONFIG_FILE
        + r"|(?:>>?|\btee\b(?:\s+-a)?|\bsed\s+-i\b[^\n]{0,80}?)\s*[\"']?[\w~./\\-]*?"
        + _AGENT_CONFIG_FILE
        + r"|\b(?:overwrite|rewrite|replace)\s+[\w~./\\-]*?"
        + _AGENT_CONFIG_FILE
        + r"|(?:修改|编辑|更改|改写|改动|覆盖|覆写|写入|追加|添加|加入|删除|替换|篡改)"
        + _gap_zh(20)
        + rf"(?:{_AGENT_CONFIG_FILE})"
        + _gap_zh(20)
        + r"(?:让|使|令|以便|忽略|跳过|禁用|总是|永远|不要|别|一条|规则|指令|[：:“\"'])"
        + rf"|(?:在|往|向)\s*{_AGENT_CONFIG_FILE}"
        + _gap_zh(10)
        + r"(?:添加|写入|追加|加入|插入)",
    ),
    (
        "edit_system_prompt",
        "agent_config",
        "tells the agent to change its own system prompt",
        ("system", "系统提示"),
        r"\b(?:edit|modify|change|update|overwrite|rewrite|append\s+to|replace|alter)\s+"
        r"(?:your|the\s+(?:agent|assistant)['’]?s?)\s+(?:own\s+)?system\s+prompt\b"
        r"|\b(?:edit|modify|change|update|overwrite|rewrite|replace)\s+(?:the\s+)?"
        r"system[_-]?prompt\.(?:md|txt|ya?ml|json)\b"
        r"|(?:修改|编辑|更改|改写|覆盖|覆写|替换|篡改)(?:你的|你自己的)?系统提示词?",
    ),
    # -- paraphrases of the shapes above -------------------------------------
    (
        "instructions_void",
        "injection",
        "declares what the model was told before cancelled, fake or no longer counting",
        ("told", "guidance", "instructions", "rules", "directions", "orders", "prompt"),
        r"\b(?:whatever|everything|anything|all)\s+(?:that\s+)?(?:you\s+(?:were|have\s+been|'ve\s+been)"
        r"|i)\s+told\s+(?:you\s+)?(?:before|earlier|previously|above)"
        + _gap(30)
        + r"\b(?:doesn'?t|does\s+not|no\s+longer|don'?t|do\s+not)\s+(?:count|matter|apply|stand)"
        r"|\b(?:consider|treat|regard|mark)\s+(?:all\s+)?(?:of\s+)?(?:your|the|what\s+you\s+were\s+told"
        r"|everything\s+you\s+were\s+told)\s*(?:earlier|before|previously)?\s*"
        r"(?:(?:earlier|previous|prior|original|initial|old)\s+)?"
        r"(?:guidance|instructions|rules|directions|orders|directives|prompt)?\s*(?:as\s+)?"
        r"(?:obsolete|cancell?ed|void|invalid|null|revoked|superseded)\b"
        r"|\b(?:developer|system|operator)['’]?s?\s+(?:rules|instructions|prompt)\s+(?:were|was|are|is)"
        r"\s+(?:just\s+|only\s+)?(?:a\s+test|fake|a\s+decoy|not\s+real)",
    ),
    (
        "safety_disabled",
        "role_hijack",
        "tells the model its safety rules are off, or to act as a model that has none",
        ("guardrail", "safety", "polic", "filter", "restriction", "content", "training"),
        r"\b(?:your\s+)?(?:guardrails|safety\s+(?:checks|filters|rules|training|features|settings)"
        r"|content\s+(?:policy|policies|filters?)|restrictions|filters)\s+(?:have\s+been|has\s+been"
        r"|are|were|is)\s+(?:now\s+|temporarily\s+)?(?:lifted|removed|disabled|switched\s+off"
        r"|turned\s+off|suspended|deactivated|waived)"
        r"|\b(?:act|behave|respond|answer)\s+(?:like|as\s+though|as\s+if)\s+(?:you\s+(?:are|were)\s+)?"
        r"(?:an?\s+)?(?:model|ai|assistant|chatbot|bot)?\s*(?:that\s+|who\s+)?"
        r"(?:(?:has|had|have)\s+no|(?:was|were)\s+never\s+(?:given|trained)|no)\s+(?:any\s+)?"
        r"(?:content\s+polic|safety|guardrails|filters|restrictions|rules|guidelines)",
    ),
    (
        "trust_only_me",
        "injection",
        "tells the model to obey only the writer, or to disobey its operator",
        ("only", "disobey", "defy"),
        r"\b(?:trust|obey|follow|listen\s+to)\s+only\s+(?:me|my\s+(?:instructions|orders|messages))"
        r"|\bonly\s+(?:trust|obey|follow|listen\s+to)\s+(?:me|my\s+(?:instructions|orders))\b"
        r"|\b(?:disobey|defy)\s+(?:the\s+|your\s+)?(?:operator|developer|system|instructions|rules"
        r"|guidelines|user)\b",
    ),
    (
        "keep_user_unaware",
        "deception",
        "tells the model to keep the user unaware of what it does",
        ("user", "person", "nobody", "no one", "anyone"),
        r"\bkeep\s+the\s+(?:user|human|person)\s+in\s+the\s+dark"
        r"|\b(?:the\s+(?:user|human)|the\s+person\s+you['’]?re\s+(?:talking|chatting)\s+(?:to|with))"
        r"\s+(?:never|doesn['’]?t|does\s+not|won['’]?t)\s+(?:finds?\s+out|learns?|notices?|realis|realiz)"
        r"|\b(?:silently|quietly|secretly)\b"
        + _gap(80)
        + r"\b(?:tell|inform)\s+(?:nobody|no\s+one|no-one|noone)\b"
        r"|\b(?:and|but)\s+(?:don'?t|do\s+not|never)\s+tell\s+(?:anyone|anybody)\b",
    ),
    (
        "exfil_embed_secret",
        "exfiltration",
        "puts a password, token or key into a URL, link or web request",
        ("://", "url", "link", "request", "image", "query"),
        r"\b(?:copy|put|append|include|embed|add|insert|attach|paste|encode)\b"
        + _gap(50)
        + r"\b(?:(?:the\s+)?user['’]?s\s+)?(?:access\s+tokens?|api\s+keys?|passwords?|secrets?"
        r"|session\s+tokens?|credentials|cookies|[\w~./-]*\.aws/credentials|[\w~./-]*\.env\b"
        r"|private\s+keys?)"
        + _gap(40)
        + r"\b(?:into|in|to|onto|inside)\s+(?:(?:the|your|a|an|its|every|each)\s+)?"
        r"(?:[\w-]+\s+){0,3}?(?:urls?|links?|web\s+requests?|requests?"
        r"|image\s+(?:urls?|links?|addresses)|query\s+strings?|https?://)",
    ),
    (
        "planted_command",
        "agent_config",
        "asks for a remote script to be run every time the agent acts",
        ("curl", "wget"),
        r"\b(?:whenever|before\s+(?:every|each|any)|always|each\s+time|every\s+time|first)\b"
        + _gap(60)
        + r"\b(?:curl|wget)\b[^\n|]{0,200}\|\s*(?:sudo\s+)?(?:ba|z|k)?sh\b",
    ),
    (
        "root_access_backdoor",
        "ssh_backdoor",
        "asks to let the writer's key log in as root",
        ("root",),
        r"\b(?:my|this|our|the\s+following)\s+(?:public\s+|ssh\s+)?key\b"
        + _gap(60)
        + r"\b(?:log\s*in|sign\s+in|ssh\s+in|access)\s+(?:as\s+)?root\b",
    ),
    # -- obfuscation ----------------------------------------------------------
    (
        "squashed_injection",
        "obfuscation",
        "an instruction-override phrase written with its spaces removed ('i g n o r e ...')",
        (
            "ignor",
            "disregard",
            "forget",
            "override",
            "are now",
            "arenow",
            "donottell",
            "dontell",
            "dont tell",
            "systemprompt",
            "jailbreak",
            "sendthe",
            "exfiltrat",
        ),
        r"(?:ignore|disregard|forget|override|bypass)(?:(?:all|any|every)(?:of)?(?:the|your|my)?"
        r"(?:previous|prior|above|earlier|preceding|original|initial|system|safety)*|(?:the|your|my)?"
        r"(?:previous|prior|above|earlier|preceding|original|initial|system|safety)+)"
        r"(?:instructions?|prompts?|rules|directives|guidelines|programming)"
        r"|you\s?are\s?now\s?(?:an?\s?)?(?:unrestricted|uncensored|unfiltered|jailbroken|evil"
        r"|dan\b(?!['’]))"
        r"|do(?:not|nt)tell(?:the)?(?:user|human)"
        r"|(?:reveal|print|leak|dump|show)(?:me)?(?:your|the)systemprompt"
        r"|(?:send|post|upload|exfiltrate|leak)(?:all|the|your|my)*"
        r"(?:apikeys?|secrets?|passwords?|tokens?|credentials|privatekeys?|sshkeys?)",
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

# Borderline shapes: held for review rather than refused.
QUARANTINE_IDS = frozenset(
    {
        "role_from_now_on",
        "role_new_identity",
        "fake_role_delimiter",
        "hide_from_user",
        "hide_from_user_zh",
        "exfil_secret_variable",
        "read_secret_file",
        "role_you_are_now",
        "ssh_authorized_keys",
        "ssh_config_tamper",
        "edit_agent_config",
        "squashed_injection",
        "trust_only_me",
        "keep_user_unaware",
        "exfil_embed_secret",
        "planted_command",
        "root_access_backdoor",
    }
)

# What ``exfil_secret_variable`` ignores: a secret sent as the credential of the
# request itself (an auth header, ``-u user:$TOKEN``, an ``api_key=`` query
# parameter) is how every API is called, not a leak.
_AUTH_USE = re.compile(
    r"(?:-H|--header)\s*[\"']?(?:authorization|proxy-authorization|[\w-]*api[_-]?key|x-[\w-]*token"
    r"|private-token|[\w-]*auth[\w-]*)\s*:\s*(?:bearer\s+|token\s+|basic\s+)?[\"']?\$\{?\w+\}?"
    r"|(?:-u|--user)\s*[\"']?[\w.@${}-]*:?\$\{?\w+\}?|--oauth2-bearer\s+[\"']?\$\{?\w+\}?"
    r"|[?&][\w-]*(?:key|token|secret|auth)[\w-]*=\$\{?\w+\}?",
    re.IGNORECASE,
)
_MASKS = {"exfil_secret_variable": _AUTH_USE}

PATTERNS_EN: tuple[Pattern, ...] = tuple(
    Pattern(
        id=pid,
        category=category,
        description=description,
        regex=re.compile(regex, re.IGNORECASE),
        triggers=triggers,
        verdict=Verdict.QUARANTINE if pid in QUARANTINE_IDS else Verdict.BLOCK,
        lang="zh" if pid.endswith("_zh") else "en",
        mask=_MASKS.get(pid),
    )
    for pid, category, description, triggers, regex in _RULES
)
"""The English rules (and the older Chinese ones), in the order they are tried."""
