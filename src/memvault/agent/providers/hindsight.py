"""``HindsightProvider``: a Hindsight server as the agent's external memory (seed 000 §5.2,
§7, §8, Appendix B.3; the seed-003 provider contract).

Two banks per session: the user bank (``hindsight.bank_id_template``: who the user is,
shared by every agent) and the agent's work bank (``work_bank_id_template``; the global
agent's is that of agent ``default``). Before a model call both are recalled at once and
the hits merged by score into ``recall_max_tokens``, inside the ``context_tag`` block.
Finished turns are retained to the work bank every ``retain_every_n_turns`` turns, in the
background when ``retain_async``. Builtin writes are mirrored: USER.md entries to the user
bank, MEMORY.md entries to the work bank, each as a document whose id is a hash of its
text, so removing the entry deletes exactly that document.

The server being down never stops the agent: every call has a deadline, prefetch then
returns "", the retain queue keeps at most ``queue_size`` turns (dropping the oldest,
with a logged count) and tool calls answer with an error the model can read.

Why one file of about 720 lines: the provider class (about 420 lines) keeps its retain
queue beside it, and the bank helpers (hit parsing, merging, reflect over banks) live here
because ``external.hindsight`` shares them, so the two Hindsight doors answer alike; the
HTTP details are already apart in ``hindsight_conn``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import re
import threading
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ...errors import ConfigError, MemvaultError, SecurityError, UpstreamError
from ...fences import CONTEXT_NOTE, escape_data, strip_fences
from ...render import count_tokens
from ...results.external import ExternalHit
from ...retrieval.assembled import Shown, withheld_among
from ...security.screen import Door, TextScreen
from ...validation import check_optional_ident
from ..banks import Bank, BankNaming, Banks
from ..config.settings import HindsightSection, MemoryConfig
from ..provider import MemoryProvider, SessionContext
from .hindsight_conn import HindsightConnection, client_installed, describe

log = logging.getLogger(__name__)

DEFAULT_AGENT = "default"
_SCREEN = TextScreen()  # the one screen, for what goes to Hindsight and what comes back
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
RETAIN_TOOL = "hindsight_retain"
RECALL_TOOL = "hindsight_recall"
REFLECT_TOOL = "hindsight_reflect"

TOOL_SCHEMAS: tuple[dict[str, Any], ...] = (
    {
        "name": RETAIN_TOOL,
        "description": "Store something worth remembering in long-term memory. Use "
        "target 'user' for facts about the user, 'work' for notes about the current work.",
        "parameters": {
            "type": "object",
            "properties": {
                "content": {"type": "string", "description": "what to remember"},
                "target": {"type": "string", "enum": ["user", "work"], "default": "work"},
            },
            "required": ["content"],
        },
    },
    {
        "name": RECALL_TOOL,
        "description": "Search long-term memory (facts about the user and earlier work).",
        "parameters": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "what to look for"},
                "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10},
            },
            "required": ["query"],
        },
    },
    {
        "name": REFLECT_TOOL,
        "description": "Ask long-term memory a question and get an answer reasoned from "
        "everything remembered about the user and the work.",
        "parameters": {
            "type": "object",
            "properties": {"query": {"type": "string", "description": "the question"}},
            "required": ["query"],
        },
    },
)


def document_id(target: str, text: str) -> str:
    """The document a mirrored builtin entry lives in: stable for the same text."""
    digest = hashlib.sha256(f"{target}\n{text.strip()}".encode()).hexdigest()[:32]
    return f"builtin-{target}-{digest}"


def screened_text(text: str) -> str | None:
    """Text the Hindsight server gave back, as it may reach a model: ``None`` when the
    threat scan would not let it into the vault (refused or held), else redacted.

    The server rewrites what it was sent (it extracts facts with its own model) and
    other writers may share its banks, so what comes back is screened again, whatever
    was screened on the way in.
    """
    if not isinstance(text, str):
        return None
    try:
        return _SCREEN(text, Door.EXTERNAL)
    except SecurityError:
        return None


def hits_from(answer: Any, bank: str) -> list[ExternalHit]:
    """A client ``RecallResponse`` as ``ExternalHit``s of ``bank``, screened: a result the
    threat scan flags is left out (and counted in the log), the others are redacted."""
    hits = []
    dropped = 0
    for result in answer.results or []:
        text = screened_text(result.text)
        if text is None:
            dropped += 1
            continue
        scores = result.scores
        final = float(scores.final) if scores is not None else None
        sources = {}
        if scores is not None:
            sources = {
                name: float(value)
                for name in ("semantic", "keyword", "reranker")
                if (value := getattr(scores, name, None)) is not None
            }
        metadata: dict[str, Any] = {
            key: value
            for key, value in {
                "type": result.type,
                "context": result.context,
                "document_id": result.document_id,
                "mentioned_at": result.mentioned_at,
                "occurred_start": result.occurred_start,
                "occurred_end": result.occurred_end,
                "entities": result.entities,
                "tags": result.tags,
                "metadata": result.metadata,
            }.items()
            if value
        }
        hits.append(ExternalHit(result.id, text, final, bank, metadata, sources))
    if dropped:
        log.warning(
            "hindsight: %d recalled memories of bank %s left out by the scan", dropped, bank
        )
    return hits


def merge_hits(per_bank: list[list[ExternalHit]]) -> list[ExternalHit]:
    """Hits of several banks, best score first (unscored last), one per distinct text;
    among equal scores the earlier bank (the user bank) comes first."""
    ordered = sorted(
        (hit for hits in per_bank for hit in hits),
        key=lambda h: -h.score if h.score is not None else float("inf"),
    )
    seen: set[str] = set()
    merged = []
    for hit in ordered:
        key = " ".join(hit.text.split()).casefold()
        if key not in seen:
            seen.add(key)
            merged.append(hit)
    return merged


def readable(hits: list[ExternalHit]) -> list[ExternalHit]:
    """``hits`` as a model may be shown them together: each was screened alone
    (``hits_from``), and those that form an instruction with another of them are left
    out, as the vault's own prompt block leaves them out (``retrieval.assembled``)."""
    out = withheld_among([Shown(str(i), hit.text) for i, hit in enumerate(hits)])
    for left in out:
        log.info("hindsight: a recalled memory left out: %s", left.reason)
    gone = {int(left.entry_id) for left in out}
    return [hit for i, hit in enumerate(hits) if i not in gone]


def wrap(text: str, tag: str) -> str:
    """``text`` as recalled data inside ``<tag>`` with the system note; "" when blank."""
    body = escape_data(strip_fences(text)).strip()
    if not body:
        return ""
    return "\n".join([f"<{tag}>", CONTEXT_NOTE, "", body, f"</{tag}>"])


def recall_line(hit: ExternalHit) -> str:
    """One recalled memory as seed 000 §7 prints it: ``[Hindsight recall - 2026-03-15] …``,
    dated by when it was mentioned (or happened); ``[Hindsight recall] …`` with no date."""
    text = " ".join(hit.text.split())
    for key in ("mentioned_at", "occurred_start"):
        value = hit.metadata.get(key)
        if isinstance(value, datetime):
            return f"[Hindsight recall - {value.date().isoformat()}] {text}"
        if isinstance(value, str) and _ISO_DATE.match(value):
            return f"[Hindsight recall - {value[:10]}] {text}"
    return f"[Hindsight recall] {text}"


def pack_hits(hits: list[ExternalHit], max_tokens: int) -> list[ExternalHit]:
    """The leading hits that fit in ``max_tokens`` (skipping one that alone is too big)."""
    kept, used = [], 0
    for hit in hits:
        cost = count_tokens(hit.text) + 2
        if used + cost > max_tokens:
            continue
        kept.append(hit)
        used += cost
    return kept


@dataclass(frozen=True, slots=True)
class _Retain:
    bank: str
    text: str
    document_id: str | None
    context: str
    metadata: dict[str, str]


@dataclass(frozen=True, slots=True)
class _Forget:
    """A mirrored removal: it travels in the same queue as retains, so a replace's
    deletion of the old entry and retain of the new one reach the server in order."""

    bank: str
    document_id: str


_Job = _Retain | _Forget


class _RetainQueue:
    """Background retains: a bounded queue drained by one thread.

    A retain that fails (server down) goes back to the front and is retried after
    ``retry_interval``; when the queue is full the oldest item is dropped and the drops
    are counted and logged. ``close`` tries what is left once and logs what is lost.
    """

    def __init__(self, send: Any, *, size: int, retry_interval: float = 1.0) -> None:
        self._send = send
        self._items: deque[_Job] = deque()
        self._size = size
        self._retry = retry_interval
        self._cond = threading.Condition()
        self._closing = False
        self._busy = False
        self.dropped = 0
        self._thread = threading.Thread(target=self._run, name="hindsight-retain", daemon=True)
        self._thread.start()

    def put(self, item: _Job) -> None:
        with self._cond:
            if len(self._items) >= self._size:
                self._items.popleft()
                self.dropped += 1
                log.warning(
                    "hindsight: retain queue full (%d): dropped the oldest turn "
                    "(%d dropped so far)",
                    self._size,
                    self.dropped,
                )
            self._items.append(item)
            self._cond.notify_all()

    def __len__(self) -> int:
        with self._cond:
            return len(self._items)

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._items and not self._closing:
                    self._cond.wait()
                if self._closing:
                    return
                item = self._items.popleft()
                self._busy = True
            try:
                self._send(item)
                failed = False
            except MemvaultError as exc:
                log.warning("hindsight: retain failed, will retry: %s", exc)
                failed = True
            with self._cond:
                self._busy = False
                if failed and not self._closing:
                    self._items.appendleft(item)
                self._cond.notify_all()
                if failed and not self._closing:
                    self._cond.wait(self._retry)

    def close(self) -> None:
        """Stop the worker, then send what is still queued, once each."""
        with self._cond:
            self._closing = True
            self._cond.notify_all()
        self._thread.join()
        lost = 0
        while self._items:
            item = self._items.popleft()
            try:
                self._send(item)
            except MemvaultError as exc:
                lost += 1
                log.warning("hindsight: retain failed at shutdown: %s", exc)
        if lost:
            log.warning("hindsight: %d queued retain(s) lost at shutdown", lost)


class HindsightProvider(MemoryProvider):
    """The seed's Hindsight provider. ``config`` is the effective memory config (its
    ``hindsight`` section and ``injection.context_tag``). ``timeout``, ``queue_size``
    and ``env`` override ``hindsight.timeout_seconds``, ``hindsight.retain_queue_size``
    and ``hindsight.env`` (tests and embedders tune them without a config file)."""

    def __init__(
        self,
        config: MemoryConfig | None = None,
        *,
        timeout: float | None = None,
        queue_size: int | None = None,
        retry_interval: float = 1.0,
        env: str | None = None,
        connection: HindsightConnection | None = None,
    ) -> None:
        self.config = config or MemoryConfig()
        self.section: HindsightSection = self.config.hindsight
        queue_size = self.section.retain_queue_size if queue_size is None else queue_size
        timeout = self.section.timeout_seconds if timeout is None else timeout
        if queue_size < 1:
            raise ConfigError("queue_size must be at least 1", field="queue_size")
        if timeout <= 0:
            raise ConfigError("timeout must be a positive number of seconds", field="timeout")
        self.context_tag = self.config.injection.context_tag
        self.timeout = timeout
        self.queue_size = queue_size
        self.retry_interval = retry_interval
        self.naming = BankNaming(
            self.section.bank_id_template,
            self.section.work_bank_id_template,
            env=self.section.env if env is None else env,
        )
        self._conn = connection
        self._owns_conn = connection is None
        self.session: SessionContext | None = None
        self.thread_id = ""
        self.banks: Banks | None = None
        self._created: set[str] = set()
        self._cache: dict[str, str] = {}
        self._turns: list[tuple[str, str]] = []
        self._queue: _RetainQueue | None = None
        self._warmer: ThreadPoolExecutor | None = None
        self._warming: dict[str, Future[str]] = {}
        self._lock = threading.Lock()
        self.last_hits: int | None = None

    def use_settings(self, config: MemoryConfig) -> None:
        """Follow a user's current settings from the next call on: the per-user fields
        (``memory_mode``, ``recall_budget``, ``bank_mission``) and ``injection.context_tag``.
        The endpoint, key and banks stay those of ``initialize``. Recall cached under the
        old settings is dropped."""
        with self._lock:
            if config == self.config:
                return
            self.config = config
            self.section = config.hindsight
            self.context_tag = config.injection.context_tag
            self._cache.clear()

    @property
    def name(self) -> str:
        return "hindsight"

    def is_available(self) -> bool:
        """Configured (a valid ``api_url``, already checked by the config) and the client
        package importable; the server itself is not contacted."""
        return bool(self.section.api_url) and client_installed()

    # -- lifecycle --------------------------------------------------------------------

    def initialize(
        self,
        *,
        user_id: str,
        agent_id: str | None = None,
        thread_id: str | None = None,
        base_dir: str,
        **kwargs: Any,
    ) -> None:
        self.session = SessionContext.from_kwargs(
            user_id=user_id, agent_id=agent_id, thread_id=thread_id, base_dir=base_dir, **kwargs
        )
        if self._conn is None:
            key = self.section.api_key
            self._conn = HindsightConnection(
                self.section.api_url,
                api_key=key.get_secret_value() if key is not None else None,
                timeout=self.timeout,
            )
        self.thread_id = thread_id or ""
        self._resolve_banks()
        if self.section.retain_async and self._queue is None:
            self._queue = _RetainQueue(
                self._send, size=self.queue_size, retry_interval=self.retry_interval
            )

    def _resolve_banks(self) -> None:
        session = self._require()
        agent = session.agent_id or DEFAULT_AGENT
        self.banks = self.naming.banks(session.user_id, agent, thread_id=self.thread_id)
        for bank in self.banks.all:
            self._ensure(bank.id, quiet=True)

    def _ensure(self, bank_id: str, *, quiet: bool = False) -> bool:
        """Create ``bank_id`` with the missions once; False (logged) if the server is down."""
        if bank_id in self._created:
            return True
        try:
            self._connection().create_bank(
                bank_id,
                mission=self.section.bank_mission,
                retain_mission=self.section.bank_retain_mission,
            )
        except MemvaultError as exc:
            if not quiet:
                raise
            log.warning("hindsight: bank %s not created yet: %s", bank_id, exc)
            return False
        self._created.add(bank_id)
        return True

    def _require(self) -> SessionContext:
        if self.session is None:
            raise MemvaultError("HindsightProvider is not initialized: call initialize() first")
        return self.session

    def _connection(self) -> HindsightConnection:
        if self._conn is None:
            raise MemvaultError("HindsightProvider is not initialized: call initialize() first")
        return self._conn

    def _banks(self) -> Banks:
        self._require()
        assert self.banks is not None
        return self.banks

    @property
    def work_bank(self) -> Bank:
        work = self._banks().work
        assert work is not None
        return work

    def shutdown(self) -> None:
        """Drain the retain queue, drop background recalls, then close the HTTP session."""
        with self._lock:
            warmer, self._warmer = self._warmer, None
            self._warming.clear()
        if warmer is not None:
            warmer.shutdown(wait=True, cancel_futures=True)
        if self._queue is not None:
            self._queue.close()
            self._queue = None
        if self._conn is not None and self._owns_conn:
            self._conn.close()
            self._conn = None

    # -- recall ------------------------------------------------------------------------

    def recall_hits(self, query: str, *, limit: int | None = None) -> list[ExternalHit]:
        """Both banks recalled at once, merged by score; raises ``UpstreamError``."""
        banks = self._banks()
        conn = self._connection()
        text = query.strip()[: self.section.recall_max_input_chars]
        calls = [
            conn.recall_call(
                bank.id,
                text,
                budget=self.section.recall_budget,
                max_tokens=self.section.recall_max_tokens,
            )
            for bank in banks.all
        ]
        answers = conn.gather(calls, "recall")
        per_bank: list[list[ExternalHit]] = []
        failures = []
        for bank, answer in zip(banks.all, answers, strict=True):
            if isinstance(answer, BaseException):
                if getattr(answer, "status", None) == 404:  # a bank nobody wrote to yet
                    per_bank.append([])
                    continue
                failures.append(f"{bank.id}: {describe(answer)}")
                continue
            per_bank.append(hits_from(answer, bank.id))
        if failures and not per_bank:
            raise UpstreamError(
                f"Hindsight at {conn.api_url} failed the recall ({'; '.join(failures)})",
                provider="hindsight",
            )
        for failure in failures:
            log.warning("hindsight: recall failed for bank %s", failure)
        merged = merge_hits(per_bank)
        return readable(merged if limit is None else merged[:limit])

    def _recalls(self, query: object) -> bool:
        """Whether recall is injected at all, and ``query`` is worth a recall."""
        if self.section.memory_mode == "tools" or not self.section.auto_recall:
            return False
        return isinstance(query, str) and bool(query.strip())

    def _cache_key(self, query: str, thread_id: str) -> str:
        return f"{thread_id or self.thread_id}\x00{query.strip()}"

    def queue_prefetch(self, query: str, *, thread_id: str = "") -> None:
        """Recall ``query`` in the background, so the ``prefetch`` of the same query (the
        next turn's) answers from the cache, or waits for this recall instead of making
        a second one. One recall runs at a time; more queue behind it."""
        self._require()
        if not self._recalls(query):
            return
        key = self._cache_key(query, thread_id)
        with self._lock:
            if key in self._cache or key in self._warming:
                return
            if self._warmer is None:
                self._warmer = ThreadPoolExecutor(1, thread_name_prefix="hindsight-prefetch")
            self._warming[key] = self._warmer.submit(self._recall_block, key, query)

    def prefetch(self, query: str, *, thread_id: str = "") -> str:
        self._require()
        if not self._recalls(query):
            return ""
        key = self._cache_key(query, thread_id)
        with self._lock:
            cached = self._cache.get(key)
            warming = self._warming.pop(key, None)
        if cached is not None:
            return cached
        if warming is not None and not warming.cancel():  # running (or done): use it
            try:
                return warming.result(self.timeout + 1.0)
            except Exception:  # the recall below runs again and logs what is wrong
                pass
        return self._recall_block(key, query)

    def _recall_block(self, key: str, query: str) -> str:
        """Recall, pack into the token budget, wrap in the context tag, and cache."""
        try:
            hits = self.recall_hits(query)
        except MemvaultError as exc:
            log.warning("hindsight: recall skipped: %s", exc)
            return ""
        kept = pack_hits(hits, self.section.recall_max_tokens)
        self.last_hits = len(kept)
        block = wrap("\n".join(recall_line(hit) for hit in kept), self.context_tag)
        with self._lock:
            if len(self._cache) >= 64:
                self._cache.clear()
            self._cache[key] = block
        return block

    # -- retain ------------------------------------------------------------------------

    def _send(self, item: _Job) -> None:
        if isinstance(item, _Forget):
            self._connection().delete_document(item.bank, item.document_id)
            return
        self._ensure(item.bank)
        self._connection().retain(
            item.bank,
            item.text,
            document_id=item.document_id,
            context=item.context,
            metadata=item.metadata,
        )

    def _submit(self, item: _Job) -> None:
        if self._queue is not None:
            self._queue.put(item)
            return
        try:
            self._send(item)
        except MemvaultError as exc:
            log.warning("hindsight: %s dropped: %s", type(item).__name__.strip("_").lower(), exc)

    @property
    def dropped(self) -> int:
        """Turns the full retain queue has dropped so far."""
        return self._queue.dropped if self._queue is not None else 0

    def flush(self) -> None:
        """Block until the retain queue is empty or only failing (tests, shutdown)."""
        queue = self._queue
        if queue is None:
            return
        with queue._cond:
            while queue._items or queue._busy:
                if not queue._cond.wait(self.timeout + self.retry_interval):
                    return

    def sync_turn(
        self,
        user_content: str,
        assistant_content: str,
        *,
        thread_id: str = "",
        turn_index: int | None = None,
    ) -> None:
        self._require()
        if not self.section.auto_retain:
            return
        with self._lock:
            self._turns.append((user_content.strip(), assistant_content.strip()))
            every = self.section.retain_every_n_turns
            if turn_index is not None and turn_index % every != 0:
                return
            turns, self._turns = self._turns, []
        user, assistant = self.section.retain_user_prefix, self.section.retain_assistant_prefix
        text = "\n\n".join(
            "\n".join(
                line
                for line in (
                    f"{user}: {u}" if u else "",
                    f"{assistant}: {a}" if a else "",
                )
                if line
            )
            for u, a in turns
        )
        if not text.strip():
            return
        thread = thread_id or self.thread_id
        metadata = {"thread_id": thread, "source": "turn"}
        if turn_index is not None:
            metadata["turn_index"] = str(turn_index)
        self._submit(_Retain(self.work_bank.id, text, None, "conversation", metadata))

    def on_memory_write(
        self,
        action: str,
        target: str,
        content: str,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        """USER.md writes go to the user bank, MEMORY.md writes to the work bank; an entry
        is the document ``document_id(target, text)``, so a remove deletes it (and a
        replace adds the new text, dropping the old one when ``metadata['old_text']``
        says what it was)."""
        banks = self._banks()
        bank = banks.user.id if target == "user" else self.work_bank.id
        extra = {"source": "builtin", "target": target}
        if action in ("remove", "replace"):
            old = content if action == "remove" else str((metadata or {}).get("old_text", ""))
            if old.strip() and (action == "remove" or old != content):
                self._submit(_Forget(bank, document_id(target, old)))
        if action in ("add", "replace") and content.strip():
            self._submit(
                _Retain(bank, content, document_id(target, content), "builtin memory", extra)
            )
        with self._lock:
            self._cache.clear()

    def on_session_switch(
        self,
        new_thread_id: str,
        *,
        parent_thread_id: str = "",
        reset: bool = False,
        **kwargs: Any,
    ) -> None:
        """§8: follow the new thread (banks with ``{thread_id}`` change with it), forget
        the per-thread recall cache, and on ``reset`` the turns not yet retained. An
        ``agent_id`` keyword naming another agent moves the work bank to that agent's."""
        session = self._require()
        with self._lock:
            self._cache.clear()
            if reset:
                self._turns.clear()
        if "agent_id" in kwargs:
            agent_id = check_optional_ident(kwargs["agent_id"], "agent_id")
            if agent_id != session.agent_id:
                self.session = dataclasses.replace(session, agent_id=agent_id)
        self.thread_id = new_thread_id or ""
        self._resolve_banks()

    # -- tools ------------------------------------------------------------------------

    def get_tool_schemas(self) -> list[dict[str, Any]]:
        if self.section.memory_mode == "context":
            return []
        return [json.loads(json.dumps(schema)) for schema in TOOL_SCHEMAS]

    def handle_tool_call(self, tool_name: str, args: dict[str, Any], **kwargs: Any) -> str:
        self._require()
        try:
            if tool_name == RETAIN_TOOL:
                return self._tool_retain(args)
            if tool_name == RECALL_TOOL:
                return self._tool_recall(args)
            if tool_name == REFLECT_TOOL:
                return self._tool_reflect(args)
        except MemvaultError as exc:
            return json.dumps({"success": False, "error": exc.message})
        names = ", ".join(s["name"] for s in TOOL_SCHEMAS)
        return json.dumps({"success": False, "error": f"unknown tool {tool_name!r}: use {names}"})

    @staticmethod
    def _text(args: dict[str, Any], key: str) -> str:
        value = args.get(key)
        if not isinstance(value, str) or not value.strip():
            raise MemvaultError(f"{key!r} must be a non-empty string")
        return value.strip()

    def _tool_retain(self, args: dict[str, Any]) -> str:
        # The model's own write: screened like any door into memory (refused when the
        # scan flags it, personal data redacted), since it is recalled on later turns.
        content = _SCREEN(self._text(args, "content"), Door.EXTERNAL)
        target = args.get("target", "work")
        if target not in ("user", "work"):
            raise MemvaultError("'target' must be 'user' or 'work'")
        bank = self._banks().user.id if target == "user" else self.work_bank.id
        self._send(_Retain(bank, content, None, "agent tool", {"source": "tool"}))
        with self._lock:
            self._cache.clear()
        return json.dumps({"success": True, "bank": bank})

    def _tool_recall(self, args: dict[str, Any]) -> str:
        query = self._text(args, "query")
        limit = args.get("limit", 10)
        if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= 50:
            raise MemvaultError("'limit' must be an integer from 1 to 50")
        hits = self.recall_hits(query, limit=limit)
        self.last_hits = len(hits)
        return json.dumps(
            {
                "success": True,
                "results": [{"text": h.text, "score": h.score, "bank": h.bank} for h in hits],
            }
        )

    def _tool_reflect(self, args: dict[str, Any]) -> str:
        query = self._text(args, "query")
        answer, memories = reflect_banks(
            self._connection(),
            query[: self.section.recall_max_input_chars],
            self._banks(),
            budget=self.section.recall_budget,
            mission=self.section.bank_mission,
        )
        return json.dumps({"success": True, "answer": answer, "memories": len(memories)})


def reflect_banks(
    conn: HindsightConnection, query: str, banks: Banks, *, budget: str, mission: str = ""
) -> tuple[str, list[ExternalHit]]:
    """Reflect in every bank of ``banks`` at once (Hindsight reflects within one bank) and
    join the answers, user bank first; the memories are those both answers used."""
    calls = [
        conn.reflect_call(bank.id, query, budget=budget, context=mission or None)
        for bank in banks.all
    ]
    answers = conn.gather(calls, "reflect")
    texts: list[str] = []
    memories: list[ExternalHit] = []
    errors = []
    for bank, answer in zip(banks.all, answers, strict=True):
        if isinstance(answer, BaseException):
            if getattr(answer, "status", None) != 404:
                errors.append(f"{bank.id}: {describe(answer)}")
            continue
        text = screened_text((answer.text or "").strip()) or ""
        if text and text not in texts:
            texts.append(text)
        based = answer.based_on.memories if answer.based_on is not None else None
        for fact in based or []:
            if (fact_text := screened_text(fact.text)) is not None:
                memories.append(ExternalHit(fact.id or "", fact_text, None, bank.id))
    if errors and not texts:
        raise UpstreamError(
            f"Hindsight at {conn.api_url} failed the reflect ({'; '.join(errors)})",
            provider="hindsight",
        )
    return "\n\n".join(texts), memories


__all__ = [
    "RECALL_TOOL",
    "REFLECT_TOOL",
    "RETAIN_TOOL",
    "TOOL_SCHEMAS",
    "HindsightProvider",
    "document_id",
    "merge_hits",
    "readable",
    "reflect_banks",
]
