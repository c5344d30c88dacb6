"""The injected block of a session: its preset's components, fitted to the model's window.

:func:`build_block` is the assembly: every component says how large it would be at full
size, :func:`memvault.workspace.allocator.allocate` shares the preset's budget out, and
each component renders itself within its grant. The block lists the parts in a fixed
order (``LAYOUT``: the state card at the top, the recalled memories last, since they
change with every request), a blank line apart, and is never larger than the budget.

Components are pluggable (:class:`Part`): a plain text (cut by whole lines to its grant),
or any object with ``wanted()`` and ``render(tokens)``, such as the state card and the
task board, which are built elsewhere. :func:`session_block` builds the two parts this
package owns — the top-K memories recalled for the request (``Vault.context_hits``,
scoped) and the USER/MEMORY snapshot text — and takes the preset, the scope and the
switches from the session's settings (:class:`memvault.agent.config.MemoryConfigStore`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ..engine.views import RecallScope
from ..errors import ValidationError
from ..model import Hit
from ..render import count_tokens, pack, packed_size
from ..vault import Vault
from ..workspace.allocator import Allocation, allocate, check_window, fit_text
from ..workspace.board import Task
from ..workspace.cards import Card
from ..workspace.presets import COMPONENTS, Preset, get_preset
from ..workspace.render import render_board, render_card
from .config.layers import MemoryConfigStore

LAYOUT: tuple[str, ...] = ("state_card", "task_board", "snapshot", "memories")
"""The order of the parts in the block (the allocator's order is the preset's priority)."""


@runtime_checkable
class Part(Protocol):
    """One component of the block: how many tokens it would take whole, and its text
    within a grant (it may return less; a part that returns more is left out)."""

    def wanted(self) -> int: ...

    def render(self, tokens: int) -> str: ...


@dataclass(frozen=True, slots=True)
class TextPart:
    """A component given as text: the whole of it when it fits, else its first lines."""

    text: str

    def wanted(self) -> int:
        return count_tokens(self.text.strip())

    def render(self, tokens: int) -> str:
        return fit_text(self.text.strip(), tokens)


@dataclass(frozen=True, slots=True)
class MemoriesPart:
    """Recalled memories, packed (``render.pack``) into as many tokens as they get."""

    hits: Sequence[Hit]

    def wanted(self) -> int:
        return packed_size(self.hits)

    def render(self, tokens: int) -> str:
        return pack(self.hits, tokens) if tokens > 0 else ""


@dataclass(frozen=True, slots=True)
class CardPart:
    """The session's state card (``workspace.render.render_card``), goal and next step
    first when the grant is short."""

    card: Card

    def wanted(self) -> int:
        return count_tokens(render_card(self.card, _WHOLE))

    def render(self, tokens: int) -> str:
        return render_card(self.card, tokens) if tokens > 0 else ""


@dataclass(frozen=True, slots=True)
class BoardPart:
    """The workspace's task board, tasks in progress first, this session's marked."""

    tasks: Sequence[Task]
    session_id: str | None = None

    def wanted(self) -> int:
        return count_tokens(render_board(self.tasks, _WHOLE, session_id=self.session_id))

    def render(self, tokens: int) -> str:
        if tokens <= 0:
            return ""
        return render_board(self.tasks, tokens, session_id=self.session_id)


_WHOLE = 1_000_000  # a budget no card or board reaches: "render all of it"


@dataclass(frozen=True, slots=True)
class SessionBlock:
    """The block to inject (``text``, "" for none), what each component put in it, and
    the allocator's report of what each got and what was cut."""

    text: str
    allocation: Allocation
    parts: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "parts": dict(self.parts), **self.allocation.to_dict()}


def _as_part(name: str, given: object) -> Part:
    if isinstance(given, str):
        return TextPart(given)
    if isinstance(given, Part):
        return given
    raise ValidationError(
        f"component {name!r} must be a text or an object with wanted() and render(tokens)",
        field="components",
    )


def _size(name: str, part: Part) -> int:
    size = part.wanted()
    if isinstance(size, bool) or not isinstance(size, int) or size < 0:
        raise ValidationError(
            f"component {name!r} reported a size of {size!r}: wanted() must return an integer >= 0",
            field="components",
        )
    return size


def build_block(preset: Preset, *, window: int, components: Mapping[str, object]) -> SessionBlock:
    """The block of ``components`` (name -> text or ``Part``) under ``preset``'s contract in
    a model with ``window`` tokens of context. Components the preset leaves out are not
    asked to render (the report shows them cut)."""
    unknown = [name for name in components if name not in COMPONENTS]
    if unknown:
        raise ValidationError(
            f"unknown components {unknown}: the components are {', '.join(COMPONENTS)}",
            field="components",
        )
    parts = {name: _as_part(name, given) for name, given in components.items()}
    allocation = allocate(
        preset, window=window, wanted={name: _size(name, p) for name, p in parts.items()}
    )
    rendered: dict[str, str] = {}
    for name in LAYOUT:
        grant = allocation.granted(name)
        if name not in parts or grant <= 0:
            continue
        text = parts[name].render(grant).strip()
        # A part that overruns its grant is left out whole: cutting it could leave a
        # block it fenced open.
        if text and count_tokens(text) <= grant:
            rendered[name] = text
    return SessionBlock("\n\n".join(rendered.values()), allocation, rendered)


def session_block(
    vault: Vault,
    settings: MemoryConfigStore,
    query: str,
    *,
    user_id: str,
    session_id: str,
    window: int,
    workspace_id: str | None = None,
    agent_id: str | None = None,
    snapshot: str | None = None,
    components: Mapping[str, object] | None = None,
) -> SessionBlock:
    """The block for one model call of a session, as the session's settings say.

    The preset (``injection.preset``) and the recall scope (``injection.scope``) come from
    the session's effective settings (the session's own, else the user's, else the
    defaults); ``injection.enabled = false`` (or ``enabled = false``) injects nothing,
    ``injection.include_builtin = false`` leaves the snapshot out and
    ``injection.include_hindsight = false`` the recalled memories (seed 000 §9.2).
    ``snapshot`` is the USER/MEMORY text frozen at session start
    (``BuiltinFileProvider.system_prompt_block``). The session's state card and its
    workspace's task board (``workspace_id``, else the workspace the session is tied to)
    come from the vault unless ``components`` gives them (or other parts built elsewhere).
    Memories are recalled only when the preset gives them room.
    """
    check_window(window)
    config = settings.get_effective_memory_config(user_id, session_id).config
    injection = config.injection
    preset = get_preset(injection.preset)
    if not (config.enabled and injection.enabled):
        preset = get_preset("blank")
    parts: dict[str, object] = dict(components or {})
    if snapshot is not None and injection.include_builtin:
        parts["snapshot"] = snapshot
    if "state_card" not in parts and preset.includes("state_card"):
        card = vault.workspace.card(user_id=user_id, session_id=session_id)
        if card.revision > 0:
            parts["state_card"] = CardPart(card)
    if "task_board" not in parts and preset.includes("task_board"):
        workspace = workspace_id or vault.workspace.session_workspace(
            user_id=user_id, session_id=session_id
        )
        if workspace is not None:
            tasks = vault.workspace.tasks(user_id=user_id, workspace_id=workspace)
            if tasks:
                parts["task_board"] = BoardPart(tasks, session_id)
    if (
        "memories" not in parts
        and injection.include_hindsight
        and preset.includes("memories")
        and preset.budget_profile.budget(window) > 0
    ):
        scope: RecallScope = injection.scope
        hits = vault.context_hits(
            query,
            user_id=user_id,
            agent_id=agent_id,
            limit=preset.top_k,
            scope=scope,
            session_id=session_id,
            workspace_id=workspace_id,
        )
        parts["memories"] = MemoriesPart(hits)
    return build_block(preset, window=window, components=parts)


__all__ = [
    "LAYOUT",
    "BoardPart",
    "CardPart",
    "MemoriesPart",
    "Part",
    "SessionBlock",
    "TextPart",
    "build_block",
    "session_block",
]
