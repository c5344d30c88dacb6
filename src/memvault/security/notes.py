"""What the write path did to a memory it was given, in sentences a surface prints beside
its answer: held for review (and which rules matched), redacted (and which kinds of data).

Every write surface (CLI, HTTP, MCP tools) shows the same notes, so a person never learns
only from a later search that their memory was held or rewritten. The entry itself is
the record: ``quarantine`` holds the matched rule ids, ``sensitivity`` the highest level
the detectors found, and the stored text carries the placeholders (``[phone#1]``).
"""

from __future__ import annotations

import re

from ..model import MemoryEntry, Sensitivity

# A placeholder the redaction wrote (``pii.redact``): ``[<kind>#<n>]``.
_PLACEHOLDER = re.compile(r"\[([a-z_]+)#\d+\]")


def redacted_kinds(entry: MemoryEntry) -> list[str]:
    """The kinds of personal data replaced in ``entry``'s text, in order of first use;
    none unless the detectors raised its sensitivity (text that merely looks like a
    placeholder is no redaction)."""
    if entry.sensitivity is Sensitivity.NORMAL:
        return []
    text = "\n".join((entry.name, entry.description, entry.content))
    return list(dict.fromkeys(_PLACEHOLDER.findall(text)))


def write_notes(entry: MemoryEntry) -> list[str]:
    """One sentence per thing the write did beyond storing the text as given."""
    notes = []
    if entry.quarantine is not None:
        notes.append(
            f"held for review (matched: {entry.quarantine.replace(',', ', ')}): it is stored, "
            "but no model sees it until a person approves it"
        )
    kinds = redacted_kinds(entry)
    if kinds:
        notes.append(
            f"redacted ({', '.join(kinds)}): stored with placeholders, the original sealed "
            f"apart (sensitivity {entry.sensitivity.value})"
        )
    elif entry.sensitivity is not Sensitivity.NORMAL:
        notes.append(f"marked {entry.sensitivity.value}: its original is sealed apart")
    return notes


__all__ = ["redacted_kinds", "write_notes"]
