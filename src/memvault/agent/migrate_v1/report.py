"""The report of ``memvault migrate-v1`` (``agent.migrate_v1``): what was done with each
value of each V1 file, as typed objects the CLI prints as text or JSON.

A module of its own so the migration reads as the procedure it is; these are only its
results.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

Target = Literal["USER.md", "MEMORY.md", "vault", "external", "profile"]
Outcome = Literal["planned", "written", "duplicate", "did_not_fit", "blocked"]


@dataclass(frozen=True, slots=True)
class Action:
    """One thing the migration does (or, in a dry run, would do) with one V1 value.

    ``source`` names the value (``user.workContext``, ``facts[f1]``); ``where`` the file
    path, the vault scope or the bank id; ``text`` is redacted (personal data and secrets
    as placeholders); ``outcome`` ``planned`` in a dry run, else
    ``written``, ``duplicate`` (already there: skipped), ``did_not_fit`` (over the file's
    character limit) or ``blocked`` (refused by the file's security scan).
    """

    source: str
    target: Target
    where: str
    text: str
    outcome: Outcome
    detail: str = ""

    def to_dict(self) -> dict[str, str]:
        return {
            "source": self.source,
            "target": self.target,
            "where": self.where,
            "text": self.text,
            "outcome": self.outcome,
            "detail": self.detail,
        }


@dataclass(frozen=True, slots=True)
class Overflow:
    """What did not go into one memory file: how many entries, how many characters."""

    file: str
    entries: int
    chars: int

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "entries": self.entries, "chars": self.chars}


@dataclass(slots=True)
class FileReport:
    """The migration of one V1 file: its actions, and the error that stopped it, if any."""

    path: Path
    user_id: str
    agent_id: str | None
    actions: list[Action] = field(default_factory=list)
    error: str | None = None
    backup: Path | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.error is None

    def count(self, outcome: Outcome) -> int:
        return sum(1 for a in self.actions if a.outcome == outcome)

    @property
    def overflow(self) -> list[Overflow]:
        """Per memory file, the entries (and their characters) that did not fit."""
        by_file: dict[str, list[Action]] = {}
        for action in self.actions:
            if action.outcome == "did_not_fit":
                by_file.setdefault(action.where, []).append(action)
        return [
            Overflow(name, len(items), sum(len(a.text) for a in items))
            for name, items in by_file.items()
        ]

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "user_id": self.user_id,
            "agent_id": self.agent_id,
            "ok": self.ok,
            "error": self.error,
            "written": self.count("written"),
            "planned": self.count("planned"),
            "duplicates": self.count("duplicate"),
            "blocked": self.count("blocked"),
            "did_not_fit": [o.to_dict() for o in self.overflow],
            "backup": None if self.backup is None else str(self.backup),
            "notes": list(self.notes),
            "actions": [a.to_dict() for a in self.actions],
        }


@dataclass(frozen=True, slots=True)
class MigrationReport:
    """Every file of one run; ``ok`` is False when any file failed."""

    files: tuple[FileReport, ...]
    dry_run: bool

    @property
    def ok(self) -> bool:
        return all(f.ok for f in self.files)

    @property
    def failed(self) -> list[FileReport]:
        return [f for f in self.files if not f.ok]

    def to_dict(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run,
            "ok": self.ok,
            "files": [f.to_dict() for f in self.files],
        }

    def lines(self) -> list[str]:
        """The report as text: each action, then a summary line per file."""
        out: list[str] = []
        verb = "would write" if self.dry_run else "wrote"
        for report in self.files:
            who = report.user_id + (f" (agent {report.agent_id})" if report.agent_id else "")
            out.append(f"{report.path}  user {who}")
            if report.error is not None:
                out.append(f"  error: {report.error}")
                continue
            for a in report.actions:
                detail = f" ({a.detail})" if a.detail else ""
                shown = " ".join(a.text.split())
                shown = shown if len(shown) <= 70 else shown[:69] + "…"
                out.append(f"  {a.outcome:<11} {a.source} -> {a.where}{detail}: {shown}")
            for o in report.overflow:
                out.append(
                    f"  did not fit {o.file}: {o.entries} entries, {o.chars} characters "
                    "(kept in the vault)"
                )
            out.extend(f"  note: {note}" for note in report.notes)
            count = report.count("planned" if self.dry_run else "written")
            out.append(
                f"  {verb} {count}, {report.count('duplicate')} already there, "
                f"{report.count('did_not_fit')} did not fit, {report.count('blocked')} blocked"
                + (f"; renamed to {report.backup.name}" if report.backup is not None else "")
            )
        if not self.files:
            out.append("no V1 memory files found")
        failed = len(self.failed)
        if failed:
            out.append(f"{failed} of {len(self.files)} files failed; nothing was written for them")
        return out


__all__ = ["Action", "FileReport", "MigrationReport", "Outcome", "Overflow", "Target"]
