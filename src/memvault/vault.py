"""``Vault``: the engine facade every surface (CLI, HTTP, MCP, agents) calls.

It holds the public calls and delegates each to the engine's parts, which
``engine.build`` wires: the write path (``engine.write``), recall and its inspectable
twin (``retrieval.recall``, ``retrieval.explain``), listing, transfer and history;
storage is a ``Store``. The reads take the filter words of ``results.filters``. What
is not about one memory lives in a namespace (``engine.namespaces``):
``vault.workspace``, ``vault.entities``, ``vault.reveal``, ``vault.review``,
``vault.decisions``, ``vault.learning`` and ``vault.admin``; a new capability gets a
namespace, not methods here. Every part reads time from the one clock passed in. Every
call names a ``user_id`` and nothing crosses to another user; which of the user's
entries a call sees is written down in ``views`` (management calls: the owner's view;
recall: the agent's).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, Literal, Unpack

from .config import VaultConfig
from .embed.base import Embedder
from .engine.build import UNSET, build
from .engine.namespaces.deprecated import Space
from .engine.namespaces.entities import Entities
from .engine.namespaces.flat import FlatNames
from .engine.namespaces.reveal import Reveal
from .engine.transfer import ImportReport
from .engine.views import owner_view, read_entry
from .engine.words import NEW_DEFAULTS, Changes, NewMemory
from .engine.write import KEEP, Draft, Patch
from .lifecycle import MaintenanceReport
from .llm import MeteredCall
from .model import EntryOrder, Hit, MemoryEntry
from .results.filters import Browsed, Hinted, Scoped, Searched, Sought, takes
from .results.history import Version
from .results.profile import Profile, Remembered
from .results.recall import Explanation
from .results.stats import Stats
from .retrieval.explain import explain
from .stores.protocols import Store
from .validation import check_entry_id, check_short_text, make_scope


class Vault(FlatNames):
    """Long-term memory for agents, on one store (a SQLite file by default).

    ``Vault(path_or_url)`` opens (and creates or upgrades) a SQLite file, or the store a
    URL names (``sqlite:///abs/path.db``, ``memory://``; see ``stores.open_store``);
    ``Vault()`` uses ``config.store`` (``MEMVAULT_DB``, default
    ``<MEMVAULT_HOME>/memvault.db``); ``Vault(store=...)`` runs on any ``Store``.
    The embedder comes from ``config.embedding`` unless one is passed
    (``embedder=None`` means keyword search only). ``clock`` is the time every part
    of the engine reads (creation and update times, recency, expiry, reveal, review).
    """

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        store: Store | None = None,
        config: VaultConfig | None = None,
        embedder: Embedder | None = UNSET,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        e = build(path, store=store, config=config, embedder=embedder, clock=clock, vault=self)
        self._e = e
        self.config, self.store, self.embedder = e.config, e.store, e.embedder
        # The namespaces (``engine.namespaces``): what is not about one memory.
        self.workspace, self.review, self.admin = e.workspace, e.review, e.admin
        self.decisions, self.learning, self.model_view = e.decision_space, e.learning, e.model_view
        self._entities, self._reveal = e.entities, e.reveal
        # The parts a test or a tool reaches for by these names.
        self._writer, self._derived, self._profiles = e.writer, e.derived, e.profiles
        self._learner, self._extraction_llm = e.learner, e.extraction_llm

    def close(self) -> None:
        """Learn from the queued conversations, finish queued embeddings, record pending
        recalls, then close the store."""
        self._e.close()

    def llm_call(
        self, operation: str, *, user_id: str, agent_id: str | None = None, model: str | None = None
    ) -> MeteredCall | None:
        """The configured LLM (``config.llm``; ``model`` overrides its model) for one
        operation of one user: every call budgeted and recorded on the token ledger
        (``llm.metered``). None when no LLM is configured: the engine's LLM features then
        use their rules."""
        return self._e.llm.call(operation, user_id=user_id, agent_id=agent_id, model=model)

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every stored entry has its vector; False if ``timeout`` ran out.

        For bulk loads and benchmarks: searches never need it, as each one waits
        (bounded by ``embedding.search_wait``) for its user's entries added before it."""
        return self._derived.flush(timeout)

    def reindex(
        self, *, user_id: str | None = None, progress: Callable[[int, int], None] | None = None
    ) -> int:
        """Embed now every entry (of ``user_id``, or of every user) that has no vector
        of the current embedder; returns how many were embedded (0 without an embedder).

        The back-fill does the same lazily after a model switch; this does it at once,
        on the caller's thread, calling ``progress(done, total)`` after each batch.
        """
        if user_id is not None:
            user_id = make_scope(user_id).user_id
        return self._derived.reindex(user_id, progress)

    def __enter__(self) -> Vault:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def embed_text(self, entry: MemoryEntry) -> str:
        """What the embedder sees: 'speaker: title. description. content'."""
        return self._writer.embed_text(entry)

    # -- writes ---------------------------------------------------------------------

    @takes(NewMemory, NEW_DEFAULTS)
    def add(
        self,
        content: str,
        *,
        user_id: str,
        agent_id: str | None = None,
        **fields: Unpack[NewMemory],
    ) -> MemoryEntry:
        """Store one memory and return it as stored. Findable by keyword on return.

        ``supersedes``: the id of the memory this one replaces; in the same transaction
        that one stops being current (kept, with ``valid_to`` and ``superseded_by``, in
        ``history``), so recall returns the new fact only."""
        scope = make_scope(user_id, agent_id)
        draft = Draft(content=content, agent_id=scope.agent_id, **fields)
        return self._e.decisions.admit(draft, user_id=scope.user_id, agent_id=scope.agent_id)

    def add_many(self, records: Iterable[Mapping[str, Any]], *, user_id: str) -> list[MemoryEntry]:
        """Store many memories in one transaction: all of them, or none if any is invalid.

        Each record takes the keyword arguments of ``add`` (``content`` required).
        """
        return self._writer.add_many(records, user_id=make_scope(user_id).user_id)

    @takes(Changes, {"expires_at": KEEP})
    def update(
        self,
        entry_id: str,
        *,
        user_id: str,
        agent_id: str | None = None,
        **changes: Unpack[Changes],
    ) -> MemoryEntry:
        """Change the given fields of one entry (None = keep) and return the new entry."""
        view = owner_view(user_id, agent_id)
        # A decision's move (if any) is audited with it.
        patch = Patch(**changes)
        return self._e.decisions.move(view, entry_id, patch, by_user=True, actor="owner", reason="")

    def history(self, entry_id: str, *, user_id: str, agent_id: str | None = None) -> list[Version]:
        """Every period in which the fact was current, oldest first: the entry as it was,
        from and to when, who made the change that began it and what it changed;
        following supersession both ways (the entries that replaced it and that it
        replaced) as well as its own updates. ``NotFoundError`` if it is not the caller's."""
        return self._e.history.history(owner_view(user_id, agent_id), check_entry_id(entry_id))

    def undo(
        self, entry_id: str, *, user_id: str, agent_id: str | None = None, actor: str = "owner"
    ) -> MemoryEntry:
        """Put the previous state of the fact back and return the entry current after it:
        an update's earlier text and fields, or, for an entry that replaced another, the
        replaced one current again (the replacement withdrawn). The undo is itself
        recorded, so ``history`` grows and undoing an undo re-applies the change.
        ``ValidationError`` when there is nothing to undo; ``NotFoundError``."""
        view = owner_view(user_id, agent_id)
        who = check_short_text(actor, "actor", 200)
        return self._e.history.undo(view, check_entry_id(entry_id), actor=who)

    def delete(self, entry_id: str, *, user_id: str, agent_id: str | None = None) -> None:
        """Delete one entry; ``NotFoundError`` if it is not the caller's."""
        self._writer.delete(owner_view(user_id, agent_id), entry_id)

    def delete_many(
        self, entry_ids: Iterable[str], *, user_id: str, agent_id: str | None = None
    ) -> list[str]:
        """Delete the given entries that are the caller's; returns the ids deleted."""
        return self._writer.delete_many(owner_view(user_id, agent_id), entry_ids)

    # -- reads (the filter words: ``results.filters``) -------------------------------

    def get(self, entry_id: str, *, user_id: str, agent_id: str | None = None) -> MemoryEntry:
        return read_entry(self.store, owner_view(user_id, agent_id), entry_id)

    @takes(Browsed)
    def count(
        self, *, user_id: str, agent_id: str | None = None, **filters: Unpack[Browsed]
    ) -> int:
        """How many entries ``list`` would give without a limit (current ones unless
        ``include_superseded``; with ``as_of``, those current then), so a pager can say
        how many pages the same filters and date range make."""
        return self._e.listing.count(owner_view(user_id, agent_id), filters)

    def stats(self, *, user_id: str, agent_id: str | None = None, days: int = 30) -> Stats:
        """The caller's entries at a glance, for an overview: current ones counted by
        kind, class, tier and domain (every value, zeros too), how many are held for
        review, how many still wait for a vector of this vault's embedder, and what was
        written or changed on each of the last ``days`` UTC days (today included).

        Every number is one aggregate query in the store; the view is the owner's, as
        for ``count``."""
        return self._e.listing.stats(owner_view(user_id, agent_id), days)

    @takes(Sought)
    def search(
        self,
        query: str,
        *,
        user_id: str,
        agent_id: str | None = None,
        limit: int = 5,
        **filters: Unpack[Sought],
    ) -> list[Hit]:
        """Entries relevant to ``query`` in the caller's recall scope, best first.

        Hybrid: BM25 over tokens and cosine over vectors (when an embedder is
        configured), merged by reciprocal rank fusion, then gently weighed by
        importance, recency and tier. It sees by meaning every entry this process
        added before it (read-your-writes: it waits up to ``embedding.search_wait``
        seconds for their vectors). Expired entries are left out. Entries held
        for review are included (marked by ``quarantine``) unless ``quarantined=False``;
        anything that shows hits to a model passes ``False``. ``explain`` shows why.

        Superseded entries (replaced by a newer one, see ``add(supersedes=)``) are left
        out inside each channel's query unless ``include_superseded``. ``as_of``: recall
        as it was then: entries current at that moment, each in the version it had
        (ranked by their text of today; recency counts from ``as_of``).

        ``scope`` (seed 004): ``"global"`` (default), ``"session"`` or ``"workspace"``
        (its id must be given). ``for_model=True``: hits a model reads are screened as
        ``context``'s block is (``security.screen.READINGS``).
        """
        return self._e.recall.hits(self._e.ask(query, user_id, agent_id, limit, filters))

    @takes(Searched)
    def explain(
        self,
        query: str,
        *,
        user_id: str,
        agent_id: str | None = None,
        limit: int = 5,
        **filters: Unpack[Searched],
    ) -> Explanation:
        """``search``'s own computation as data: for every candidate its rank and raw
        score in each channel, the fused score, each boost, the final score and order,
        and what ``context`` would do with it. Its ``hits`` are what ``search`` returns."""
        asked = self._e.ask(query, user_id, agent_id, limit, filters)
        return explain(self._e.recall, asked, self._e.relevance)

    @takes(Scoped)
    def context(
        self,
        query: str,
        *,
        user_id: str,
        agent_id: str | None = None,
        max_tokens: int | None = None,
        limit: int | None = None,
        **filters: Unpack[Scoped],
    ) -> str:
        """The recalled-memory block for a system prompt, or "" when nothing is relevant.

        The best ``limit`` hits (``search`` with ``quarantined=False``) pass a relevance
        gate (``retrieval.relevance``): a hit goes in when the keyword channel found it
        through a word of its own text, or by meaning when the query is nearer to this
        vault than to everyday requests (``context.margin``, ``band``,
        ``min_similarity``); ``explain`` shows the gate's reading. The relevant ones are
        packed into ``max_tokens`` inside ``<memory-context>``; entries held for review
        are never part of it, and the text of every memory is escaped as data. The
        filters are ``search``'s, ``scope`` included (a work-scoped recall,
        ``domain="work"``, never brings back life memories).
        """
        words = {**filters, "quarantined": False}
        asked = self._e.ask(query, user_id, agent_id, limit or self.config.context.limit, words)
        return self._e.recall.context(asked, max_tokens, self._e.relevance.select)

    @takes(Hinted)
    def context_hits(
        self,
        query: str,
        *,
        user_id: str,
        agent_id: str | None = None,
        limit: int | None = None,
        **place: Unpack[Hinted],
    ) -> list[Hit]:
        """The hits ``context`` would pack, best first, for a caller that packs them into
        a budget of its own (``render.pack``; the workspace's budget allocator does)."""
        words = {**place, "quarantined": False}
        asked = self._e.ask(query, user_id, agent_id, limit or self.config.context.limit, words)
        return self._e.recall.relevant(asked, self._e.relevance.select)

    # -- transfer ---------------------------------------------------------------------

    def export(
        self, *, user_id: str, agent_id: str | None = None, workspace: bool = False
    ) -> Iterator[dict[str, Any]]:
        """Every entry of the caller's as a JSON-ready dict, oldest first (JSONL lines).

        ``workspace=True`` (a whole backup; what ``memvault export`` and the HTTP export
        write) adds the user's state cards, each with all its revisions, then tasks, one
        line each (``transfer`` documents the format). Off by default so a caller that
        reads every line as a memory keeps working. The workspace is the user's, not an
        agent's: it needs ``agent_id`` left out."""
        return self._e.backup.export(user_id, agent_id, workspace=workspace)

    def import_(
        self,
        records: Iterable[Mapping[str, Any] | str],
        *,
        user_id: str,
        on_conflict: Literal["error", "skip"] = "error",
    ) -> list[MemoryEntry]:
        """Import exported records (dicts, or JSONL lines) into ``user_id``'s memory, all
        or nothing, keeping ids and times; see ``Transfer.import_``. Card and task lines
        are imported too; ``import_report`` also says how many."""
        return self.import_report(records, user_id=user_id, on_conflict=on_conflict).memories

    def import_report(
        self,
        records: Iterable[Mapping[str, Any] | str],
        *,
        user_id: str,
        on_conflict: Literal["error", "skip"] = "error",
        workspace: bool = True,
    ) -> ImportReport:
        """``import_`` that says what it wrote: the memories, and how many state cards
        (and their revisions) and tasks, so a surface can report all three. Memories,
        cards and tasks land in one store transaction, or none do. ``on_conflict``
        applies to cards (by session) and tasks (by id) too. ``workspace=False`` refuses
        card and task lines (an import into one agent's own store)."""
        return self._e.backup.import_report(
            records, user_id=user_id, on_conflict=on_conflict, workspace=workspace
        )

    def erase_user(self, *, user_id: str, actor: str = "owner") -> int:
        """Erase every trace of a user (one audit record of it stays); returns the entry count.
        Conversations of the user still waiting to be learnt from are dropped first."""
        return self._e.backup.erase_user(make_scope(user_id).user_id, actor=actor)

    # -- conversations and the structured profile (seed 001) -------------------------

    def remember(
        self,
        messages: Sequence[Any],
        *,
        user_id: str,
        agent_id: str | None = None,
        session_id: str | None = None,
        thread_id: str | None = None,
        wait: bool = False,
    ) -> Remembered:
        """Hand over a conversation's messages and let the engine work out what to keep.

        The messages (OpenAI or LangChain dicts, or LangChain message objects) are
        filtered (``profile.messages``: the person's words and the assistant's answers;
        tool traffic and uploads left out), each kept message is archived once as a turn
        of ``session_id`` (recallable at once), and — when an LLM is configured — the
        conversation is queued for extraction after ``extraction.debounce_seconds`` of
        quiet (``wait=True``: extracted now, the result in ``learned``). Pass the whole
        conversation so far on every call: messages archived before are recognised.
        ``thread_id`` (default: the session id) groups the calls of one conversation.
        """
        return self._e.rememberer.remember(
            messages,
            user_id=user_id,
            agent_id=agent_id,
            session_id=session_id,
            thread_id=thread_id,
            wait=wait,
        )

    def profile(self, *, user_id: str, agent_id: str | None = None) -> Profile:
        """The user's profile document (``agent_id``: their profile with that agent); an
        empty one when nothing was learnt yet."""
        return self._profiles.read(user_id, agent_id)[0]

    def save_profile(
        self, profile: Profile, *, user_id: str, agent_id: str | None = None
    ) -> Profile:
        """Replace the user's profile document with ``profile`` (saved atomically)."""
        self._profiles.replace(user_id, agent_id, profile)
        return self.profile(user_id=user_id, agent_id=agent_id)

    def maintain(
        self,
        *,
        now: datetime | str | None = None,
        dry_run: bool = False,
        user_id: str | None = None,
    ) -> MaintenanceReport:
        """Move entries down the tiers their class windows give them at ``now`` (the
        clock's time by default): active to cold, cold to archive; never deleting, never
        promoting. Then compress each session's old raw turns into one summary
        (``lifecycle.compress``; the report's ``compressions``). Idempotent; ``dry_run``
        reports without writing. Of ``user_id`` only, or of every user."""
        return self._e.upkeep.run(now=now, dry_run=dry_run, user_id=user_id)

    def health(self) -> dict[str, Any]:
        return self.store.health()

    # -- namespaces whose names were methods (the flat aliases: ``FlatNames``) ------

    entities: Space[Entities] = Space(Entities.list)
    reveal: Space[Reveal] = Space(Reveal.entry)

    # Last in the class: below this method the name ``list`` means it, not the builtin.

    @takes(Browsed)
    def list(
        self,
        *,
        user_id: str,
        agent_id: str | None = None,
        limit: int = 100,
        offset: int = 0,
        sort: EntryOrder | str = EntryOrder.NEWEST,
        **filters: Unpack[Browsed],
    ) -> list[MemoryEntry]:
        """The caller's entries, filtered and paged, newest first unless ``sort`` says
        ``"oldest"`` or ``"updated"`` (last changed first): what a person browsing asks.
        ``created_after`` / ``created_before`` (datetimes or ISO 8601; a bare date is
        midnight UTC) keep entries created at or after / strictly before that moment.
        ``session_id`` / ``workspace_id`` keep one conversation's or one workspace's.
        ``quarantined=True`` lists only entries held for review, ``False`` only clear ones.
        Superseded entries are left out unless ``include_superseded``; ``as_of`` lists
        the entries current at that moment, each in the version it had then (a page may
        then hold fewer than ``limit``: an entry reinstated by ``undo`` was not current
        in between).
        """
        view = owner_view(user_id, agent_id)
        return self._e.listing.entries(view, filters, limit=limit, offset=offset, sort=sort)


__all__ = ["Vault"]
