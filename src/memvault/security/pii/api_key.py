"""Credentials: API keys and tokens (kind ``api_key``) and PEM private keys (``private_key``).

Three ways a credential is recognised, from most to least certain:

1. A vendor prefix with enough random characters after it: OpenAI/Anthropic style
   ``sk-`` / ``sk-proj-`` / ``sk-ant-``, Stripe ``sk_live_``/``rk_live_``, AWS access key
   ids (``AKIA``/``ASIA`` + 16 upper-case letters or digits), GitHub ``ghp_`` (and its
   ``gho_``/``ghu_``/``ghs_``/``ghr_`` siblings) and ``github_pat_``, Slack
   ``xoxb-``/``xoxp-``/``xoxa-``/``xoxr-``/``xoxs-``, Google ``AIza``.
2. A JSON Web Token: three base64url parts joined by dots whose first part
   decodes to a JSON object with an ``"alg"`` member.
3. A high-entropy string of 20 or more characters (letters and digits mixed,
   Shannon entropy at least :data:`ENTROPY_THRESHOLD` bits per character) that
   follows a word such as key, token, secret, 密钥 or 令牌 within
   :data:`KEYWORD_WINDOW` characters. Without such a word, random-looking ids
   (commit hashes, UUIDs in links) are too common to report.

A PEM block from ``-----BEGIN ... PRIVATE KEY-----`` through its ``END`` line is
one ``private_key`` finding; a block cut off before its ``END`` line runs to the
end of its base64 body.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from collections import Counter

from .base import Finding, context_before, finding

KIND = "api_key"
PRIVATE_KEY_KIND = "private_key"

#: Minimum Shannon entropy, in bits per character, of a keyword-adjacent secret.
#: Random base62 strings of 20+ characters score about 4; English words about 3.
ENTROPY_THRESHOLD = 3.5
#: Minimum length of a keyword-adjacent secret.
MIN_SECRET_LENGTH = 20
#: How many characters before a candidate are searched for a keyword.
KEYWORD_WINDOW = 32

_START = r"(?<![A-Za-z0-9_-])"
_END = r"(?![A-Za-z0-9_-])"
# Each pattern opens with a look at the character a match can start with: the
# look-behinds and alternatives then run only there (the same matches, faster).
_PREFIXED = re.compile(
    r"(?=[srAgx])"
    + _START
    + r"(?:"
    + r"sk-(?:proj-|ant-(?:api[0-9]{2}-)?|svcacct-)?[A-Za-z0-9_-]{20,}"
    + r"|(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"
    + r"|(?:AKIA|ASIA)[0-9A-Z]{16}"
    + r"|gh[pousr]_[A-Za-z0-9]{30,255}"
    + r"|github_pat_[A-Za-z0-9_]{22,255}"
    + r"|xox[bpars]-[A-Za-z0-9-]{10,}"
    + r"|AIza[0-9A-Za-z_-]{35}"
    + r")"
    + _END
)
_JWT = re.compile(
    r"(?=e)(?<![A-Za-z0-9_.-])"
    r"eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*(?![A-Za-z0-9_.-])"
)
_PEM = re.compile(
    r"-----BEGIN (?P<label>(?:[A-Z0-9]+ )*)PRIVATE KEY(?P<block>(?: BLOCK)?)-----"
    r"(?:[\s\S]*?-----END (?P=label)PRIVATE KEY(?P=block)-----"
    r"|[A-Za-z0-9+/=:,\s-]*[A-Za-z0-9+/=])"
)
# "=" only as base64 padding, so that ``API_KEY=<value>`` splits at the "=".
_HIGH_ENTROPY = re.compile(r"(?<![A-Za-z0-9_+/-])[A-Za-z0-9_+/-]{20,512}={0,2}(?![A-Za-z0-9_+/=-])")
# Every vendor key above is a run of 15 or more of these characters (``xoxb-`` and ten
# more the shortest), a keyword-adjacent secret one of 20 or more.
_LONG_RUN = re.compile(r"[A-Za-z0-9_+/-]{15}")
_KEYWORD = re.compile(
    r"(?:key|token|secret|bearer|credential|apikey|access|auth|密钥|秘钥|令牌|凭证|凭据)"
)


def shannon_entropy(value: str) -> float:
    """Bits of information per character of ``value`` (0 for an empty string)."""
    if not value:
        return 0.0
    counts = Counter(value)
    size = len(value)
    return -sum(n / size * math.log2(n / size) for n in counts.values())


def looks_random(value: str) -> bool:
    """Mixed letters and digits with at least :data:`ENTROPY_THRESHOLD` bits per character."""
    return (
        len(value) >= MIN_SECRET_LENGTH
        and any(c.isdigit() for c in value)
        and any(c.isalpha() for c in value)
        and shannon_entropy(value) >= ENTROPY_THRESHOLD
    )


def is_jwt(value: str) -> bool:
    """Whether the first dot-separated part of ``value`` is a JSON header with ``alg``."""
    header = value.split(".", 1)[0]
    try:
        decoded = base64.urlsafe_b64decode(header + "=" * (-len(header) % 4))
        parsed = json.loads(decoded)
    except (binascii.Error, ValueError, RecursionError):  # JSONDecodeError, UnicodeDecodeError
        return False
    return isinstance(parsed, dict) and "alg" in parsed


class PrivateKeyDetector:
    """PEM-armoured private keys (RSA, EC, OpenSSH, PKCS#8, encrypted, PGP)."""

    kind = PRIVATE_KEY_KIND

    def detect(self, text: str) -> list[Finding]:
        if "PRIVATE KEY" not in text:
            return []
        return [
            finding(PRIVATE_KEY_KIND, text, match.start(), match.end())
            for match in _PEM.finditer(text)
        ]


class ApiKeyDetector:
    """Vendor-prefixed keys, JWTs and keyword-adjacent high-entropy strings."""

    kind = KIND

    def detect(self, text: str) -> list[Finding]:
        found: list[Finding] = []
        # Most chat holds no run long enough for a key, nor a JWT's opening: its
        # searches are skipped (they could find nothing).
        long = _LONG_RUN.search(text) is not None
        for match in _PREFIXED.finditer(text) if long else ():
            value = match.group()
            # ``sk-`` also starts hyphenated words ("sk-learn-..."): demand digits too.
            if value.startswith("sk-") and not any(c.isdigit() for c in value):
                continue
            found.append(finding(KIND, text, match.start(), match.end()))
        if "eyJ" in text:
            found.extend(
                finding(KIND, text, match.start(), match.end())
                for match in _JWT.finditer(text)
                if is_jwt(match.group())
            )
        taken = [(f.start, f.end) for f in found]
        for match in _HIGH_ENTROPY.finditer(text) if long else ():
            start, end = match.span()
            if any(start < t_end and t_start < end for t_start, t_end in taken):
                continue
            if not looks_random(match.group()):
                continue
            if not _KEYWORD.search(context_before(text, start, KEYWORD_WINDOW)):
                continue
            found.append(finding(KIND, text, start, end))
        return found
