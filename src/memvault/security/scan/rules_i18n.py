"""Rules for the other languages memvault's users write, generated from word lists.

Each language is one :class:`Lexicon`: plain words (never regex) for the parts
of the four attack shapes that travel across languages. The rules are built
from them the same way for every language:

``ignore_instructions_<lang>`` (block)
    an override verb, not negated, in the same clause as an instruction noun
    with a qualifier next to it ("all", "previous", "system", "your" ...).
``role_unrestricted_<lang>`` (block)
    a "you are now / act as" phrase in the same clause as an "unrestricted /
    without rules / jailbreak" phrase.
``hide_from_user_<lang>`` (quarantine)
    "do not tell / hide from the user", written per language as a small regex
    because the negation sits in different places.
``exfil_send_<lang>`` (block)
    a send verb, a secret noun and a destination (URL, e-mail address, paste or
    webhook service) in one clause.
``conditional_harvest_<lang>`` (quarantine, only where ``when_asks`` is given)
    "when the user asks ..." followed, in the same clause, by payment or login
    data (a card number, a PIN, a one-time code): a standing order to collect
    them. Held rather than refused: no action verb is required, and a support
    script may name the billing page in the same breath.

Words are passed through :func:`~.normalize.fold` when compiled, so they are
written in ordinary spelling (with Arabic diacritics or traditional Chinese if
that is how people type them). A clause ends at a sentence mark followed by a
space, a CJK full stop or a newline: an attack must hold together in one.
Simplified and traditional Chinese share the ``zh`` rules (the native view folds
traditional characters); the older hand-written Chinese rules live in
:mod:`.rules_en` with the English ones they mirror.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .model import Pattern, Verdict
from .normalize import fold

# One clause: anything but a sentence end (a "." inside a URL or file name is not one).
_CLAUSE = r"(?:[^.!?。！？؟।\n]|[.!?](?=\S))"
_CLAUSE_START = r"(?:^|(?<=[.!?؟।]\s)|(?<=[。！？\n]))"
# A destination: a URL, an e-mail address (found from its "@domain."), a paste or
# webhook service. Only its presence in the clause matters.
_TARGET = r"(?:://|@[\w-]+\.[\w.-]|webhook|pastebin|ngrok|requestbin)"
_AI_NOUNS = ("ai", "dan", "gpt", "bot", "llm", "jailbreak", "mode")
_TARGET_TRIGGERS = ("://", "@", "webhook", "pastebin", "ngrok", "requestbin")


@dataclass(frozen=True, slots=True)
class Lexicon:
    """The words of one language that the generated rules are made of."""

    lang: str
    name: str
    ignore_verbs: tuple[str, ...]
    qualifiers: tuple[str, ...]
    instructions: tuple[str, ...]
    you_are: tuple[str, ...]
    unrestricted: tuple[str, ...]
    hide: str  # a regex, folded like the words
    hide_triggers: tuple[str, ...]
    send_verbs: tuple[str, ...]
    secrets: tuple[str, ...]
    # Words that, just before an override verb, turn it into its opposite ("no olvides").
    negations_before: tuple[str, ...] = ()
    # Endings that, just after an override verb, negate it ("無視しないで", "무시하지 마").
    negations_after: tuple[str, ...] = ()
    # What the unrestricted thing is (an AI, a bot, a mode); "the metro without
    # restrictions" is not a role.
    ai_nouns: tuple[str, ...] = ()
    # How far a qualifier may sit from its noun, in characters.
    near: int = 20
    # "when / if the user asks (mentions, says) ...", a regex folded like ``hide``.
    when_asks: str = ""
    # Payment and login data an attacker has the user hand over.
    harvest: tuple[str, ...] = ()


def _alt(words: tuple[str, ...]) -> str:
    # Longest first; ties in a fixed order, so every process builds the same regex (the
    # shipped reading of the regexes, ``literals.json``, is keyed by their text).
    ordered = sorted(set(words), key=lambda w: (-len(w), w))
    return "(?:" + "|".join(re.escape(fold(w)) for w in ordered) + ")"


def _low(words: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(sorted({fold(w).lower() for w in words}))


def _all_in_clause(*parts: str) -> str:
    """A regex matching a whole clause that contains every one of ``parts`` (any order)."""
    ahead = "".join(rf"(?={_CLAUSE}*?{part})" for part in parts)
    return rf"{_CLAUSE_START}{ahead}{_CLAUSE}+"


def _verb(lex: Lexicon) -> str:
    before = "".join(f"(?<!{re.escape(fold(n))})" for n in lex.negations_before)
    after = "".join(f"(?!{re.escape(fold(n))})" for n in lex.negations_after)
    return f"{before}{_alt(lex.ignore_verbs)}{after}"


def _near(a: str, b: str, limit: int) -> str:
    gap = rf"{_CLAUSE}{{0,{limit}}}?"
    return f"(?:{a}{gap}{b}|{b}{gap}{a})"


def _conditional(lex: Lexicon) -> tuple[Pattern, ...]:
    if not lex.when_asks:
        return ()
    # The data must come after the comma that ends the condition: what the user
    # asks about ("when the user asks for their password, ...") is not what they are
    # told to hand over.
    regex = (
        rf"(?:{fold(lex.when_asks)})[^,;:.!?\n]{{0,80}}?[,;:]{_CLAUSE}{{0,160}}?{_alt(lex.harvest)}"
    )
    return (
        Pattern(
            id=f"conditional_harvest_{lex.lang}",
            category="exfiltration",
            description=(
                f"{lex.name} phrasing of 'when the user asks ..., have them give their card data'"
            ),
            regex=re.compile(regex, re.IGNORECASE),
            triggers=_low(lex.harvest),
            verdict=Verdict.QUARANTINE,
            lang=lex.lang,
        ),
    )


def rules_for(lex: Lexicon) -> tuple[Pattern, ...]:
    """The generated rules of one language (four, five with a conditional trigger)."""
    flags = re.IGNORECASE
    ignore = _all_in_clause(
        _verb(lex), _near(_alt(lex.qualifiers), _alt(lex.instructions), lex.near)
    )
    what = rf"(?:(?<![a-z]){_alt(_AI_NOUNS)}(?![a-z])|{_alt(lex.ai_nouns)})"
    role = _all_in_clause(_alt(lex.unrestricted), _alt(lex.you_are), what)
    # The rarest part first: a clause without it is rejected after one scan.
    exfil = _all_in_clause(_TARGET, _alt(lex.secrets), _alt(lex.send_verbs))
    return (
        Pattern(
            id=f"ignore_instructions_{lex.lang}",
            category="injection",
            description=f"{lex.name} phrasing of 'ignore the previous instructions'",
            regex=re.compile(ignore, flags),
            triggers=_low(lex.instructions),
            verdict=Verdict.BLOCK,
            lang=lex.lang,
        ),
        Pattern(
            id=f"role_unrestricted_{lex.lang}",
            category="role_hijack",
            description=f"{lex.name} phrasing of 'you are now an AI without restrictions'",
            regex=re.compile(role, flags),
            triggers=_low(lex.unrestricted),
            verdict=Verdict.BLOCK,
            lang=lex.lang,
        ),
        Pattern(
            id=f"hide_from_user_{lex.lang}",
            category="deception",
            description=f"{lex.name} phrasing of 'do not tell the user'",
            regex=re.compile(fold(lex.hide), flags),
            triggers=_low(lex.hide_triggers),
            verdict=Verdict.QUARANTINE,
            lang=lex.lang,
        ),
        Pattern(
            id=f"exfil_send_{lex.lang}",
            category="exfiltration",
            description=f"{lex.name} phrasing of 'send the secrets to this address'",
            regex=re.compile(exfil, flags),
            triggers=_TARGET_TRIGGERS,
            verdict=Verdict.BLOCK,
            lang=lex.lang,
        ),
        *_conditional(lex),
    )
