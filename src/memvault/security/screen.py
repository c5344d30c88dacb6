"""The one screen for text that a model reads later, at every door it can come in by.

Memory entries have the richest path (``engine.write``: redaction with the originals
sealed for a reveal, and a review queue for what the scan holds). The other doors
store text that is rendered to a model on later turns too: a state card sits on top of
every prompt block, a task title on the board. They call :class:`TextScreen` before they
store anything:

* the threat scan (the rules, and the semantic screen when the vault has one): a text
  the scan would refuse *or hold* is refused with ``SecurityError``, since these doors
  have no review queue and what they keep is shown on every turn;
* redaction of personal data and secrets: each is replaced by its typed placeholder
  (``[bank_card#1]``). These texts have no reveal path, so the original is not kept.

:data:`DOORS` lists the doors that call it (``memvault.engine.write`` for entries); a
test writes poison and a secret through each and fails for a door that lets either
through, so a new door is added here and to that test together.
"""

from __future__ import annotations

from enum import StrEnum

from ..errors import SecurityError
from .pii import redact
from .scan import Assessment, SemanticScreen, Verdict, assess


class Door(StrEnum):
    """A way text gets into the vault to be shown to a model later."""

    ENTRY = "memory"  # Vault.add / add_many / update / import lines (engine.write)
    CARD = "state card"  # vault.workspace.upsert_card, the state_card tool, card set, imports
    TASK = "task"  # vault.workspace.add_task / update_task, the task_board tool, imports
    PROFILE = "profile"  # summaries and facts: PUT /v1/profile, save_profile, extraction
    DECISION_REASON = "decision reason"  # a decision's move, kept in the audit log
    # USER.md / MEMORY.md: the memory tool and the builtin provider redact and scan each
    # edit themselves (agent.providers.builtin), with the same rules.
    BUILTIN_FILE = "memory file entry"
    # An alias given to an entity (vault.entities.add_alias, the HTTP and CLI calls over
    # it); the names extraction finds come from entries that passed the entry door.
    ENTITY_NAME = "entity name"
    # The hindsight_retain tool: the model's own write to the Hindsight banks. What the
    # server gives back is screened again on the way out (agent.providers.hindsight).
    EXTERNAL = "Hindsight memory"


#: Every door, in the order the doors test walks them.
DOORS: tuple[Door, ...] = tuple(Door)


class Reading(StrEnum):
    """A way recalled memories leave the vault as text a model reads.

    Each memory passed the screen alone when it was written; what a model is shown is
    read again as the prompt block reads it (``Recall.screened``: the model screen, then
    every pair of the memories shown, both orders, for an instruction split across
    them). ``Vault.context`` / ``context_hits`` do so themselves; a door that shows
    ``Vault.search`` hits passes ``for_model=True``. All end in the one function of the
    pair check (``retrieval.assembled.withheld_among``), which Hindsight's recall asks
    too (the model screen reads the vault's own vectors, so only the vault's hits). The
    doors that list memories without a query ask ``vault.model_view`` (its pair check,
    ``withheld_beside``, reads each memory shown against all the model can read).
    Not reading doors: the owner's own views (HTTP API, CLI, panel), which show what is
    stored as it is stored.
    """

    CONTEXT = "context block"  # Vault.context: the providers' prefetch, /v1/recall, MCP prompts
    SESSION_BLOCK = "session block"  # Vault.context_hits: the agent's session block
    RECALL_TOOL = "memory_recall tool"  # agent.tools.vault: providers, MCP, OpenAI tools
    EXTERNAL = "external recall"  # /api/memory/v2 search and reflect (agent.external.vault)
    GRAPH_SEARCH = "search_nodes"  # the MCP knowledge-graph search (mcp.graph)
    # Hindsight's recall: the provider's prefetch block and hindsight_recall tool, the
    # gateway's Hindsight search (agent.providers.hindsight.readable, the same check).
    HINDSIGHT = "Hindsight recall"
    # The doors that list stored memories rather than search them. Each shows what
    # ``vault.model_view`` lets through: a memory that forms an instruction with any
    # other the model can read (on this page or another) is withheld, and with the
    # vault's vectors, one the model screen flags.
    MEMORY_LIST = "memory_list"  # the MCP tool that pages through the memories
    RESOURCES = "MCP resources"  # resources/list titles, resources/read of a memory
    # read_graph, open_nodes, memvault://graph (mcp.graph); memvault://entities and
    # memvault://entities/{name}, whose names are read against the memories too.
    GRAPH_READ = "read_graph"
    MEMORY_TOOL_VIEW = "memory tool view"  # Claude's memory tool on the vault (view)
    SUMMARY_PROMPT = "summarize_me prompt"  # the MCP prompt that lists user memories
    DECISION_HISTORY = "memory_decision history"  # one decision by id (agent.tools.vault)
    # USER.md and MEMORY.md (agent.providers.builtin): the prompt snapshot, and the live
    # entries the memory tool, memvault://files, Claude's memory tool and the MCP prompts
    # show; an entry that forms an instruction with another of either file is withheld.
    BUILTIN_FILES = "USER.md / MEMORY.md"
    # Not a reading door: the LangGraph store (integrations.langgraph) is a store, whose
    # get, list and search return the same items to the application that owns it.


#: Every reading door, in the order the reading test walks them.
READINGS: tuple[Reading, ...] = tuple(Reading)


class TextScreen:
    """Screens one text for one door: ``SecurityError`` or the text, redacted."""

    def __init__(
        self, *, scan: bool = True, redact_pii: bool = True, semantic: SemanticScreen | None = None
    ) -> None:
        self.scan = scan
        self.redact_pii = redact_pii
        self.semantic = semantic

    def __call__(self, text: str, door: Door) -> str:
        """``text`` as it may be stored through ``door``; non-text values pass unchanged
        (the door's own validation answers them)."""
        if not isinstance(text, str) or not text:
            return text
        if self.scan:
            found = assess(text, semantic=self.semantic)
            if found.verdict is not Verdict.ALLOW:
                raise _refused(found, door)
        return redact(text).text if self.redact_pii else text


def _refused(found: Assessment, door: Door) -> SecurityError:
    threat = found.threat
    pattern = threat.pattern_id if threat else "unknown"
    what = threat.description if threat else "flagged"
    return SecurityError(
        f"{door} text refused by the security scan ({pattern}: {what}): a {door} is shown "
        "to the assistant on every later turn and has no review queue, so it may not carry "
        "instructions to the assistant, secrets to send out or hidden characters; write "
        "the fact plainly",
        pattern_id=pattern,
        category=threat.category if threat else "unknown",
        door=door.value,
    )


__all__ = ["DOORS", "READINGS", "Door", "Reading", "TextScreen"]
