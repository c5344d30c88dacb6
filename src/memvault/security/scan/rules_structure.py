"""Rules for the shape of an attack rather than its words (issue 31, item 2).

A memory is data about a person or a project. Some shapes have no business in
one whatever language it is written in, because they only mean something to the
model that will read it: a chat turn or tool call in the wire format of an LLM
API, a ReAct ``Action:`` block, an image whose address is filled in from the
conversation, a standing order to the assistant to act when the user says
something. These rules look for those shapes.

Most of them only quarantine: each shape also occurs in notes people keep on
purpose (an API example with ``"role": "system"``, a support script that says
what to tell a customer, a template with ``{name}`` in a link), and a held entry
is never injected but can still be approved. A rule blocks only when the shape
and the harm are both there (an image that sends the conversation out, a trigger
that collects card numbers for an outside address).

The rules read the confusable skeleton (like the English ones), so look-alike
letters in a key name do not hide it; the conditional triggers are English.
"""

from __future__ import annotations

import re

from .model import Pattern, Verdict


def _gap(limit: int) -> str:
    """Up to ``limit`` characters within one sentence ("." inside a URL does not end it)."""
    return rf"(?:[^.!?\n]|[.!?](?=\S)){{0,{limit}}}?"


# -- tool-call and role syntax ------------------------------------------------------

# A JSON or Python-dict key, quoted either way.
_Q = r"[\"']"
_ROLE_OBJECT = (
    rf"{_Q}role{_Q}\s*:\s*{_Q}(?:system|developer|tool|function){_Q}"
    rf"|{_Q}(?:tool_calls|function_call|tool_use|tool_result|tool_call_id){_Q}\s*:"
    rf"|{_Q}type{_Q}\s*:\s*{_Q}(?:tool_use|tool_result|function_call){_Q}"
)
# Tags and special tokens of chat templates and tool-calling formats that the
# older ``fake_role_delimiter`` rule does not list.
_TEMPLATE_TAG = (
    r"<\|(?:tool_call|tool_calls|tool_response|python_tag|begin_of_text|start|end|message"
    r"|channel|call|return|assistant|user|eom_id)\|>"
    r"|<\s*/?\s*(?:tool_call|tool_calls|tool_use|tool_response|function_call|function_calls"
    r"|functioncall|invoke\s+name\s*=)"
    r"|<\s*/?\s*(?:start_of_turn|end_of_turn)\s*>"
    r"|^[ \t]*tool_(?:use|call)\s*:\s*\S"
    r"|^[ \t]*(?:#{1,3}[ \t]*)?(?:system|developer)(?:[ \t]+(?:message|prompt))?[ \t]*:[ \t]*"
    r"(?:you\b|from\s+now|ignore|always|never|the\s+assistant)"
)
# ReAct: an ``Action:`` line followed by its ``Action Input:`` line, or a ``Thought:``
# line followed by an ``Action:`` line.
_REACT = (
    r"^[ \t]*action[ \t]*:[ \t]*\S[^\n]{0,80}\n(?:[^\n]*\n){0,2}?[ \t]*action[ \t]+input[ \t]*:"
    r"|^[ \t]*thought[ \t]*:[^\n]{1,200}\n(?:[^\n]*\n){0,2}?[ \t]*action[ \t]*:[ \t]*\w"
)
# A tool call as a JSON object: a tool's name and the arguments it is called with, in
# one object. A tool's definition names its ``parameters``, not arguments: that is how
# a dev note writes one, and it does not count.
_NAMED = rf"{_Q}(?:name|tool|tool_name|function|action){_Q}\s*:\s*{_Q}[\w.-]{{1,60}}{_Q}"
_ARGS = rf"{_Q}(?:arguments|args|action_input|tool_input){_Q}\s*:\s*[\[{{\"']"
_TOOL_CALL_JSON = rf"{_NAMED}[^{{}}]{{0,160}}?{_ARGS}|{_ARGS}[^\n]{{0,400}}?{_NAMED}\s*[,}}]"

# -- links and images whose address is filled from the conversation ---------------

# A template slot: {x}, {{x}}, ${X}, $VAR, %7B (an encoded brace), <x>, [x].
_SLOT = (
    r"(?:\{\{?[^{}\s)]{1,60}\}\}?|\$\{?[A-Za-z_][\w]{1,40}\}?|%7B|<[^<>\s)]{1,40}>"
    r"|\[[A-Za-z_][\w\s-]{0,40}\])"
)
# What an exfiltrating address carries. "token" is left out: a badge image has a
# literal ``?token=`` of its own.
_LOOT = (
    r"(?:conversation|history|chat[\w-]{0,8}|transcript|secrets?|passw(?:or)?ds?|memor(?:y|ies)"
    r"|system[_-]?prompt|credentials?|api[_-]?keys?|messages|context|summary)"
)
_URL_CHARS = r"[^\s)\"'>]"
_IMAGE_START = (
    r"(?:!\[[^\]\n]{0,200}\]\(\s*<?|<\s*img\b[^>]{0,200}?\bsrc\s*=\s*[\"']?)"
    r"(?:https?:)?//"
)
# Slot or loot word in the query string (after "?"): the image sends it out.
_IMAGE_QUERY = rf"{_IMAGE_START}{_URL_CHARS}*?\?{_URL_CHARS}*?(?:{_SLOT}|\b{_LOOT}\b)"
# A slot in the path only: still unusual in a stored image, but less certain.
_IMAGE_PATH = rf"{_IMAGE_START}{_URL_CHARS}*?/{_URL_CHARS}*?{_SLOT}"
# A link (or a bare address) whose slot is named after the conversation or a secret.
# In a link, only the conversation's own words count: an API key or a password slot
# in a URL is how a dev note writes its requests.
_LINK_LOOT = (
    r"(?:conversation|history|chat[\w-]{0,8}|transcript|memor(?:y|ies)|system[_-]?prompt"
    r"|messages|secrets)"
)
_LOOT_SLOT = (
    rf"(?:\{{\{{?\s*{_LINK_LOOT}\w*\s*\}}\}}?|\$\{{?{_LINK_LOOT}\w*\}}?|<\s*{_LINK_LOOT}\w*\s*>"
    rf"|\[\s*{_LINK_LOOT}\w*\s*\])"
)
_LINK_SLOT = rf"(?:https?:)?//{_URL_CHARS}*?{_LOOT_SLOT}"
# A rendered link (markdown or HTML) whose query string is filled in from the person:
# ``[verify](https://…?e={user_email})``. Code builds URLs the same way, but not as a
# markdown or HTML link; e-mail templates do, so a match is held, not refused.
_PERSON_SLOT = (
    r"(?:\{\{?\s*|\$\{?)(?:user|customer|client|visitor|recipient|subscriber|contact|my|your"
    r"|account)?[_.\s-]?(?:e-?mail|name|full_?name|phone|address|id|ssn|dob|birthday|card"
    r"|password|token|session|cookie|location|ip)\w*\s*\}?\}?"
)
_LINK_START = r"(?:\]\(\s*<?|<\s*a\b[^>]{0,200}?\bhref\s*=\s*[\"']?)(?:https?:)?//"
_LINK_PERSON = rf"{_LINK_START}{_URL_CHARS}*?\?{_URL_CHARS}*?{_PERSON_SLOT}"

# -- conditional triggers addressed to the assistant --------------------------------
# The harm is looked for after the action verb, so that what the user asks about
# ("if a client wants to change their password, send them the reset link") does
# not count as what the assistant is told to collect.

_WHEN = r"\b(?:when(?:ever)?|if|once|next\s+time|any\s*time|each\s+time|every\s+time)\s+"
_WHO = (
    r"(?:(?:the|a|any|an)\s+)?(?:users?|customers?|clients?|humans?|persons?|callers?|visitors?"
    r"|someone|anyone|somebody|anybody|people|they|he|she)\s+"
)
_ASKS = (
    r"(?:\w+\s+){0,2}?(?:asks?|mentions?|says?|types?|writes?|requests?|brings?\s+up|inquires?"
    r"|enquires?|wants?|needs?|talks?\s+about|raises?|quer(?:y|ies)|searches?|is\s+asking)\b"
)
_TRIGGER = _WHEN + _WHO + _ASKS
_SENSITIVE = (
    r"(?:card\s+(?:numbers?|details|info|data)|credit\s+cards?|debit\s+cards?|cvv|cvc"
    r"|security\s+codes?|\bpin\b|pin\s+(?:codes?|numbers?)|passcodes?"
    r"|passwords?(?!\s+(?:reset|manager|policy|change|rules|requirements|strength|field|page|link"
    r"|hint))"
    r"|one[-\s]time\s+(?:codes?|passwords?|pins?)|\botp\b|2fa\s+codes?|verification\s+codes?"
    r"|seed\s+phrases?|recovery\s+phrases?|private\s+keys?|ssn|social\s+security"
    r"|bank\s+(?:details|accounts?|logins?)|login\s+(?:details|credentials)|credentials|iban"
    r"|routing\s+numbers?|account\s+numbers?)"
)
_DESTINATION = (
    r"(?:(?:https?|ftp)://|\b[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}\b|\bwebhook\b"
    r"|\+?\d[\d\s().-]{7,}\d|\bwallet\s+address\b|\b(?:bitcoin|btc|eth|crypto)\b"
    r"|\bwhats\s*app\b|\btelegram\b)"
)
_ACT = (
    r"\b(?:tell|reply|respond|answer|send|say|recommend|direct|redirect|point|ask|instruct"
    r"|insist|suggest|give|share|forward|email|collect|request|have\s+them|pretend|claim|lie"
    r"|deny)\b"
)
_DECEIVE = (
    r"\b(?:lie|pretend|falsely|make\s+up|deny|(?:do\s+not|don'?t|never)\s+(?:mention|reveal"
    r"|disclose|say)|without\s+(?:mentioning|telling|disclosing)|secretly|quietly|instead\s+of"
    r"|(?:is|are)\s+(?:discontinued|unsafe|a\s+scam|no\s+longer\s+available))\b"
)
_MONEY = r"\b(?:pay|wire|transfer|deposit|gift\s+cards?|send\s+(?:money|funds|payment))\b"

# -- soft paraphrases of "ignore your instructions" ------------------------------------

_RETIRED = (
    r"(?:retired|rescinded|withdrawn|withdrew|revoked|lifted|scrapped|dropped|removed|replaced"
    r"|superseded|deprecated|suspended|disabled|cancell?ed|voided|relaxed|waived|sunset(?:ted)?"
    r"|overridden|overrode|retracted|repealed|annulled)"
)
_GUIDANCE = (
    r"(?:guidelines|instructions|guidance|rules|policies|restrictions|directives|guardrails"
    r"|system\s+prompt|safety\s+(?:rules|policies|guidelines|settings|filters)"
    r"|content\s+polic(?:y|ies)|programming|constraints)\b"
)
_OLD = (
    r"(?:old|previous|earlier|prior|original|existing|former|initial|your|its"
    r"|the\s+(?:assistant|ai|model|bot)['’]s)\s+(?:\w+\s+)?"
)
_AUTHORITY = (
    r"\b(?:operators?|developers?|admins?|administrators?|openai|anthropic|(?:your\s+)?creators?"
    r"|(?:your\s+)?owners?|(?:the\s+)?provider|(?:the\s+)?(?:ai|safety|trust)\s+team)\b"
)

_RULES: tuple[tuple[str, str, str, tuple[str, ...], str, Verdict], ...] = (
    (
        "tool_call_syntax",
        "injection",
        "an LLM API message or tool call (a system role, tool_calls, tool_use) stored as a memory",
        ("role", "tool_", "function_call"),
        _ROLE_OBJECT,
        # API examples in dev notes carry the same objects: held, not refused.
        Verdict.QUARANTINE,
    ),
    (
        "chat_template_tag",
        "injection",
        "a chat-template token, tool-call tag or 'SYSTEM:' header that could fake a turn",
        ("<", "tool_", "system", "developer"),
        _TEMPLATE_TAG,
        # Notes about prompt formats quote these tokens: held, not refused.
        Verdict.QUARANTINE,
    ),
    (
        "react_action_block",
        "injection",
        "a ReAct 'Action:' / 'Action Input:' block, a tool call in the agent's own format",
        ("action input", "thought"),
        _REACT,
        # An agent's own trace pasted into a note looks the same: held, not refused.
        Verdict.QUARANTINE,
    ),
    (
        "tool_call_json",
        "injection",
        "a tool call as a JSON object (a tool's name and its arguments) stored as a memory",
        ("arg", "input"),
        _TOOL_CALL_JSON,
        # An agent's own trace pasted into a note looks the same: held, not refused.
        Verdict.QUARANTINE,
    ),
    (
        "exfil_link_person_slot",
        "exfiltration",
        "a markdown or HTML link whose query string is filled in with the person's data",
        ("](", "href"),
        _LINK_PERSON,
        # Mail templates write such links on purpose: held, not refused.
        Verdict.QUARANTINE,
    ),
    (
        "exfil_image_query",
        "exfiltration",
        "an image whose address sends a template slot or the conversation out in its query",
        ("![", "img"),
        _IMAGE_QUERY,
        # Rendering the image is the leak, with no click: nothing benign needs a slot
        # or the word "conversation" in an image's query string.
        Verdict.BLOCK,
    ),
    (
        "exfil_image_path",
        "exfiltration",
        "an image whose address has a template slot in its path",
        ("![", "img"),
        _IMAGE_PATH,
        # Badge and chart templates put a {label} in the path too: held.
        Verdict.QUARANTINE,
    ),
    (
        "exfil_link_slot",
        "exfiltration",
        "a link whose address has a slot named after the conversation, memory or a secret",
        ("//",),
        _LINK_SLOT,
        # A link needs a click (or a fetch tool) to leak; templates exist: held.
        Verdict.QUARANTINE,
    ),
    (
        "conditional_harvest",
        "exfiltration",
        "a standing order: when the user asks something, have them send card data or "
        "passwords to an outside address",
        ("when", "if", "once", "next time", "any time", "anytime", "each time", "every time"),
        _TRIGGER + rf"{_gap(120)}{_ACT}(?={_gap(120)}{_SENSITIVE})(?={_gap(160)}{_DESTINATION})",
        # Trigger, payment or login data and a destination together: a phishing
        # script, never a support note (those send people to a page, not to an address
        # with their card number).
        Verdict.BLOCK,
    ),
    (
        "conditional_trigger",
        "deception",
        "a standing order: when the user asks something, ask for secrets, money, or deceive",
        ("when", "if", "once", "next time", "any time", "anytime", "each time", "every time"),
        _TRIGGER
        + rf"(?={_gap(120)}{_ACT})(?={_gap(160)}{_DECEIVE})"
        + rf"|{_TRIGGER}{_gap(120)}{_ACT}(?={_gap(120)}(?:{_SENSITIVE}|{_MONEY}))",
        # A support script may ask for a card on the billing page: held, not refused.
        Verdict.QUARANTINE,
    ),
    (
        "instructions_retired",
        "injection",
        "says the assistant's earlier rules were retired, replaced or no longer apply",
        (
            "guid",
            "instruction",
            "rules",
            "polic",
            "restriction",
            "directive",
            "guardrail",
            "prompt",
            "programming",
            "constraint",
            "safety",
        ),
        # "the operator retired the old guidelines"
        rf"{_AUTHORITY}{_gap(40)}\b{_RETIRED}\s+(?:all\s+)?(?:of\s+)?(?:the\s+)?{_OLD}{_GUIDANCE}"
        # "your earlier rules were superseded"
        rf"|\b(?:your|the\s+(?:assistant|ai|model|bot)['’]s)\s+(?:\w+\s+)?{_GUIDANCE}\s+"
        rf"(?:were|was|have\s+been|has\s+been|are|is|got)\s+(?:now\s+|quietly\s+|officially\s+)?"
        rf"(?:{_RETIRED}|outdated|obsolete|void)\b"
        # "previous guidance no longer applies"
        r"|\b(?:previous|prior|earlier|old|original|former|initial)\s+(?:\w+\s+)?"
        rf"{_GUIDANCE}\s+(?:no\s+longer\s+(?:applies|apply|holds?|stands?|matters?|counts?"
        r"|binds?|bind)"
        rf"|(?:has|have)\s+been\s+(?:quietly\s+|officially\s+)?{_RETIRED})",
        # Real policies are retired too ("the CDC's previous guidance no longer
        # applies"): held, not refused.
        Verdict.QUARANTINE,
    ),
)

PATTERNS_STRUCTURE: tuple[Pattern, ...] = tuple(
    Pattern(
        id=pid,
        category=category,
        description=description,
        regex=re.compile(regex, re.IGNORECASE | re.MULTILINE),
        triggers=triggers,
        verdict=verdict,
        lang="en",
    )
    for pid, category, description, triggers, regex, verdict in _RULES
)
"""The structural rules, read on the skeleton like the English ones."""
