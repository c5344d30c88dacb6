"""``VaultStore``: LangGraph's ``BaseStore`` interface over a memvault ``Vault``.

A LangGraph graph (or LangMem's memory tools) that is given a ``VaultStore`` keeps
its long-term items as ordinary memvault entries: they live in the vault's SQLite
file, are found by its hybrid (keyword + meaning) search and obey its scope rules.

How LangGraph addresses map to memvault entries:

* **user** — one label of the namespace is the memvault ``user_id``:
  ``namespace[user_label]``, position 0 by default (LangGraph's own examples use
  ``(user_id, "memories")``). Pass ``user_label=1`` for LangMem's
  ``("memories", "{langgraph_user_id}")``. A namespace without that label, or whose
  label is not a valid memvault id, raises ``ValidationError`` (a ``ValueError``).
* **entry** — each ``(namespace, key)`` is one entry of that user with no agent
  (a shared entry, so every agent of the user recalls it). Its id is derived from
  the namespace and key (``lg-`` + SHA-256), so reads and writes of one item never
  scan. Its ``metadata["langgraph"]`` holds the namespace, the key, the value as
  JSON and whether the item is indexed; its ``name`` is the key.
* **searchable text** — the entry's ``content``: the value's ``content`` field
  when it is a string (what LangMem writes), that field as JSON when it is
  something else, otherwise the value's string leaves; with ``index=[paths]`` the
  text found at those paths. ``index=False`` items are stored (their content is the
  value as JSON) and left out of query searches through this store; memvault's own
  recall (``Vault.search``) still sees them.
* **personal data** — as in every memvault entry, personal data and secrets in
  the value are replaced by placeholders before it is stored (the original is
  sealed; ``Vault.reveal`` shows it to the owner). The namespace and key are
  addresses and kept as written (``sensitive.plain_metadata``).
* **TTL** — supported: ``ttl`` minutes set the entry's ``expires_at`` from the time
  of the put, and expired items are left out of every read (get, search, listings),
  as memvault's search already does. Reads never write, so ``refresh_ttl`` has no
  effect: the TTL runs from the last put. An expired entry stays in the file until
  the item is put again or deleted.

Scope: as everywhere in memvault, every call names a user. ``get``/``put``/
``delete`` name one through their namespace; ``search`` and ``list_namespaces``
must too — a prefix reaching the user label with a real id (not ``"*"``) — and
raise ``ValidationError`` otherwise: this store never lists or searches across
users. Entries written without this store (no ``langgraph`` metadata) are not
LangGraph items and are never returned.

Costs: get, put and delete touch one entry. A search without a query and
``list_namespaces`` read all of the user's entries (filters are applied here, on
the stored values); a query search asks the vault for up to 1000 hits and keeps
those in the prefix that pass the filter. Operations of one batch run in order,
each seeing the writes before it.

This is the only memvault module that imports ``langgraph.store``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    get_text_at_path,
    validate_op_namespace,
)

from ..errors import ConflictError, NotFoundError, SecurityError, ValidationError
from ..fields import MAX_NAME_CHARS
from ..model import MemoryEntry, utcnow
from ..security.scan import Verdict, assess
from ..validation import check_ident
from ..vault import Vault

METADATA_KEY = "langgraph"
"""The metadata key under which an entry records its LangGraph address and value."""

ID_PREFIX = "lg-"

_PAGE = 1000  # entries per vault.list call when reading all of a user's entries
_MAX_HITS = 1000  # the most hits Vault.search returns
_FIRST_DEPTH = 50  # hits asked for first in a query search
_COMPARISONS = ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte")


@dataclass(frozen=True, slots=True)
class _Record:
    """One LangGraph item as read back from its entry."""

    namespace: tuple[str, ...]
    key: str
    value: dict[str, Any]
    indexed: bool
    entry: MemoryEntry

    def item(self) -> Item:
        return Item(
            value=self.value,
            key=self.key,
            namespace=self.namespace,
            created_at=self.entry.created_at,
            updated_at=self.entry.updated_at,
        )

    def search_item(self, score: float | None = None) -> SearchItem:
        return SearchItem(
            namespace=self.namespace,
            key=self.key,
            value=self.value,
            created_at=self.entry.created_at,
            updated_at=self.entry.updated_at,
            score=score,
        )


class VaultStore(BaseStore):
    """A LangGraph store whose items are entries of ``vault`` (see the module docstring).

    ``user_label`` is the position of the namespace label that holds the memvault
    user id. ``default_ttl`` (minutes) applies to puts that do not pass ``ttl``.
    ``clock`` is the time TTLs are set from and expire by; give the vault's clock
    when the vault has one, so both agree on what has expired.
    The store does not own the vault: close the vault yourself when done.
    """

    supports_ttl = True

    def __init__(
        self,
        vault: Vault,
        *,
        user_label: int = 0,
        default_ttl: float | None = None,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        if isinstance(user_label, bool) or not isinstance(user_label, int) or user_label < 0:
            raise ValidationError("user_label must be an integer >= 0", field="user_label")
        self.vault = vault
        self.user_label = user_label
        self._clock = clock or utcnow
        _check_ttl(default_ttl)
        # Reads never extend a TTL, so the default refresh flag says so.
        self.ttl_config = {"default_ttl": default_ttl, "refresh_on_read": False}

    # -- BaseStore ------------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run the operations in order; each sees the writes of those before it."""
        results: list[Result] = []
        for op in ops:
            validate_op_namespace(op)
            if isinstance(op, GetOp):
                results.append(self._get(op))
            elif isinstance(op, PutOp):
                self._put(op)
                results.append(None)
            elif isinstance(op, SearchOp):
                results.append(self._search(op))
            elif isinstance(op, ListNamespacesOp):
                results.append(self._list_namespaces(op))
            else:
                raise ValidationError(f"unknown store operation {type(op).__name__}")
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """``batch`` on a worker thread, so the event loop is not blocked by SQLite."""
        return await asyncio.to_thread(self.batch, list(ops))

    # -- addressing -----------------------------------------------------------------

    def user_of(self, namespace: tuple[str, ...]) -> str:
        """The memvault user id a namespace belongs to; ``ValidationError`` if it has none."""
        at = self.user_label
        if len(namespace) <= at:
            raise ValidationError(
                f"namespace {namespace!r} has no label at position {at}, where this store "
                f"reads the memvault user id: use a namespace such as {_example(at)}",
                field="namespace",
            )
        label = namespace[at]
        try:
            return check_ident(label, "user_id")
        except ValidationError as exc:
            raise ValidationError(
                f"namespace {namespace!r}: the label at position {at} is where this store reads "
                f"the memvault user id, and {exc}",
                field="namespace",
            ) from None

    @staticmethod
    def entry_id(namespace: tuple[str, ...], key: str) -> str:
        """The id of the entry that holds ``(namespace, key)``."""
        address = json.dumps([list(namespace), key], ensure_ascii=False)
        return ID_PREFIX + hashlib.sha256(address.encode("utf-8")).hexdigest()

    def _scope_user(self, prefix: tuple[str, ...], what: str) -> str:
        if len(prefix) <= self.user_label or prefix[self.user_label] == "*":
            raise ValidationError(
                f"{what} needs a namespace prefix that names the user at position "
                f"{self.user_label} (got {prefix!r}): memvault never reads across users; "
                f"pass e.g. {_example(self.user_label)}",
                field="namespace",
            )
        return self.user_of(prefix)

    # -- reading entries ------------------------------------------------------------

    def _load(self, user_id: str, entry_id: str) -> MemoryEntry | None:
        try:
            return self.vault.get(entry_id, user_id=user_id)
        except NotFoundError:
            return None

    def _records(self, user_id: str) -> Iterator[_Record]:
        """Every live LangGraph item of the user."""
        now = self._clock()
        offset = 0
        while True:
            page = self.vault.list(user_id=user_id, quarantined=False, limit=_PAGE, offset=offset)
            for entry in page:
                record = _record(entry, now)
                if record is not None:
                    yield record
            if len(page) < _PAGE:
                return
            offset += _PAGE

    # -- operations -----------------------------------------------------------------

    def _get(self, op: GetOp) -> Item | None:
        namespace = tuple(op.namespace)
        entry = self._load(self.user_of(namespace), self.entry_id(namespace, op.key))
        if entry is not None and entry.quarantine is not None:
            return None  # held for review: reads as absent until its owner approves it
        record = None if entry is None else _record(entry, self._clock())
        if record is None or record.namespace != namespace or record.key != op.key:
            return None
        return record.item()

    def _put(self, op: PutOp) -> None:
        namespace = tuple(op.namespace)
        if not namespace:
            raise ValidationError("namespace cannot be empty", field="namespace")
        user_id = self.user_of(namespace)
        entry_id = self.entry_id(namespace, op.key)
        existing = self._load(user_id, entry_id)
        if existing is not None:
            marker = existing.metadata.get(METADATA_KEY)
            if not isinstance(marker, Mapping) or (
                marker.get("namespace") != list(namespace) or marker.get("key") != op.key
            ):
                raise ConflictError(
                    f"entry {entry_id!r} of user {user_id!r} was not written by VaultStore "
                    "for this namespace and key: delete or rename it",
                    entry_id=entry_id,
                    user_id=user_id,
                )
        if op.value is None:
            if existing is not None:
                self.vault.delete_many([entry_id], user_id=user_id)
            return
        self._write(op, namespace, user_id, entry_id, exists=existing is not None)

    def _write(
        self,
        op: PutOp,
        namespace: tuple[str, ...],
        user_id: str,
        entry_id: str,
        *,
        exists: bool,
    ) -> None:
        assert op.value is not None  # a delete never gets here (``_put``)
        value = _json_value(op.value, namespace, op.key)
        _check_ttl(op.ttl)
        indexed = op.index is not False
        text = _searchable_text(value, op.index) if indexed else ""
        if not text.strip():
            text = json.dumps(value, ensure_ascii=False, sort_keys=True)
        self._screen_rest(value, text, namespace, op.key)
        fields: dict[str, Any] = {
            "content": text,
            "name": op.key[:MAX_NAME_CHARS],
            "metadata": {
                METADATA_KEY: {
                    "namespace": list(namespace),
                    "key": op.key,
                    "value": value,
                    "indexed": indexed,
                }
            },
            "expires_at": None if op.ttl is None else self._clock() + timedelta(minutes=op.ttl),
        }
        if exists:
            self.vault.update(entry_id, user_id=user_id, **fields)
            return
        try:
            self.vault.add(user_id=user_id, id=entry_id, **fields)
        except ConflictError:  # another writer created it since we looked
            self.vault.update(entry_id, user_id=user_id, **fields)

    def _screen_rest(
        self, value: dict[str, Any], content: str, namespace: tuple[str, ...], key: str
    ) -> None:
        """Scan the value's text up front, so a refusal names the item (the vault
        assesses the whole entry, metadata included, again, and holds what is only
        borderline for review)."""
        if not self.vault.config.security.scan_writes:
            return
        rest = "\n".join(text for text in _string_leaves(value) if text not in content)
        found = assess(rest) if rest else None
        threat = found.threat if found is not None and found.verdict is Verdict.BLOCK else None
        if threat is not None:
            raise SecurityError(
                f"the value of {key!r} in {namespace!r} was blocked by the security scan "
                f"({threat.pattern_id}: {threat.description}): memories may not carry "
                "instructions to the assistant, secrets to send out or hidden characters",
                pattern_id=threat.pattern_id,
                category=threat.category,
            )

    def _search(self, op: SearchOp) -> list[SearchItem]:
        prefix = tuple(op.namespace_prefix)
        user_id = self._scope_user(prefix, "search")
        limit = _check_count(op.limit, "limit")
        offset = _check_count(op.offset, "offset")
        flt = _check_filter(op.filter)
        if limit == 0:
            return []
        if op.query is not None and op.query.strip():
            return self._query_search(op.query, user_id, prefix, flt, limit, offset)
        records = [
            r for r in self._records(user_id) if _under(r.namespace, prefix) and _passes(r, flt)
        ]
        records.sort(key=lambda r: (r.entry.updated_at, r.namespace, r.key), reverse=True)
        return [r.search_item() for r in records[offset : offset + limit]]

    def _query_search(
        self,
        query: str,
        user_id: str,
        prefix: tuple[str, ...],
        flt: Mapping[str, Any] | None,
        limit: int,
        offset: int,
    ) -> list[SearchItem]:
        """Hybrid search, keeping the indexed items under ``prefix`` that pass ``flt``.

        Other hits (other namespaces, memvault's own entries) take room in the vault's
        answer, so the search is repeated deeper until enough items are kept.
        """
        wanted = offset + limit
        depth = min(max(_FIRST_DEPTH, wanted * 3), _MAX_HITS)
        now = self._clock()
        while True:
            hits = self.vault.search(query, user_id=user_id, limit=depth, quarantined=False)
            kept: list[tuple[_Record, float]] = []
            for hit in hits:
                record = _record(hit.entry, now)
                if (
                    record is not None
                    and record.indexed
                    and _under(record.namespace, prefix)
                    and _passes(record, flt)
                ):
                    kept.append((record, hit.score))
            if len(kept) >= wanted or len(hits) < depth or depth >= _MAX_HITS:
                break
            depth = min(depth * 4, _MAX_HITS)
        return [record.search_item(score) for record, score in kept[offset:wanted]]

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        conditions = tuple(op.match_conditions or ())
        for condition in conditions:
            if condition.match_type not in ("prefix", "suffix"):
                raise ValidationError(
                    f"match type {condition.match_type!r} is not supported: use prefix or suffix",
                    field="match_type",
                )
        limit = _check_count(op.limit, "limit")
        offset = _check_count(op.offset, "offset")
        if op.max_depth is not None:
            _check_count(op.max_depth, "max_depth")
        users = {
            self._scope_user(tuple(c.path), "list_namespaces")
            for c in conditions
            if c.match_type == "prefix" and _pins_user(c, self.user_label)
        }
        if not users:
            self._scope_user((), "list_namespaces")  # raises: no prefix names a user
        if len(users) > 1:
            return []  # two prefixes naming different users: nothing matches both
        found = {
            r.namespace
            for r in self._records(users.pop())
            if all(_namespace_matches(r.namespace, c) for c in conditions)
        }
        if op.max_depth is not None:
            found = {ns[: op.max_depth] for ns in found}
        return sorted(found)[offset : offset + limit]


# -- helpers ------------------------------------------------------------------------


def _example(at: int) -> str:
    labels = ["'memories'"] * at + ["'<user_id>'", "'memories'"]
    return "(" + ", ".join(labels) + ")"


def _record(entry: MemoryEntry, now: datetime) -> _Record | None:
    """The LangGraph item an entry holds, or None (not one of ours, or expired)."""
    if entry.expires_at is not None and entry.expires_at <= now:
        return None
    marker = entry.metadata.get(METADATA_KEY)
    if not isinstance(marker, Mapping):
        return None
    namespace, key, value = marker.get("namespace"), marker.get("key"), marker.get("value")
    if not isinstance(namespace, list) or not isinstance(key, str) or not isinstance(value, dict):
        return None
    return _Record(tuple(namespace), key, value, marker.get("indexed") is not False, entry)


def _check_ttl(ttl: object) -> None:
    if ttl is None:
        return
    if isinstance(ttl, bool) or not isinstance(ttl, int | float) or not math.isfinite(ttl):
        raise ValidationError("ttl must be a number of minutes, or None", field="ttl")
    if ttl <= 0:
        raise ValidationError("ttl must be a positive number of minutes", field="ttl")


def _check_count(value: object, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValidationError(f"{field} must be an integer >= 0", field=field)
    return value


def _json_value(value: Mapping[str, Any], namespace: tuple[str, ...], key: str) -> dict[str, Any]:
    """A JSON copy of the value (what every later read returns)."""
    if not isinstance(value, Mapping):
        raise ValidationError(
            f"the value of {key!r} in {namespace!r} must be a dict, got {type(value).__name__}",
            field="value",
        )
    try:
        copied: dict[str, Any] = json.loads(json.dumps(value, ensure_ascii=False, allow_nan=False))
    except (TypeError, ValueError, RecursionError) as exc:
        raise ValidationError(
            f"the value of {key!r} in {namespace!r} is not JSON ({exc}): use strings, numbers, "
            "booleans, None, lists and dicts with string keys",
            field="value",
        ) from None
    return copied


def _searchable_text(value: dict[str, Any], index: Literal[False] | list[str] | None) -> str:
    """The text an item is searched by (see the module docstring)."""
    if isinstance(index, list):
        return "\n".join(text for path in index for text in get_text_at_path(value, path))
    content = value.get("content")
    if isinstance(content, str):
        return content
    if content is not None:
        return json.dumps(content, ensure_ascii=False, sort_keys=True)
    return "\n".join(_string_leaves(value))


def _string_leaves(node: object) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for child in node.values():
            yield from _string_leaves(child)
    elif isinstance(node, list):
        for child in node:
            yield from _string_leaves(child)


def _under(namespace: tuple[str, ...], prefix: tuple[str, ...]) -> bool:
    return namespace[: len(prefix)] == prefix


def _pins_user(condition: MatchCondition, at: int) -> bool:
    return len(condition.path) > at and condition.path[at] != "*"


def _namespace_matches(namespace: tuple[str, ...], condition: MatchCondition) -> bool:
    """Prefix or suffix match of labels, where ``"*"`` in the pattern matches any label."""
    pattern = tuple(condition.path)
    if len(pattern) > len(namespace):
        return False
    if condition.match_type == "prefix":
        window = namespace[: len(pattern)]
    else:
        window = namespace[len(namespace) - len(pattern) :]
    return all(p == "*" or p == label for p, label in zip(pattern, window, strict=True))


# -- filters --------------------------------------------------------------------------


def _check_filter(flt: object) -> Mapping[str, Any] | None:
    if flt is None or (isinstance(flt, Mapping) and not flt):
        return None
    if not isinstance(flt, Mapping):
        raise ValidationError("filter must be a dict of value fields to conditions", field="filter")
    return flt


def _passes(record: _Record, flt: Mapping[str, Any] | None) -> bool:
    if flt is None:
        return True
    return all(_field_passes(record.value.get(name), cond) for name, cond in flt.items())


def _field_passes(actual: object, cond: object) -> bool:
    """Whether one value field meets its condition: operators, a nested dict, or a value."""
    if isinstance(cond, Mapping):
        operators = [k for k in cond if isinstance(k, str) and k.startswith("$")]
        if operators:
            unknown = [k for k in cond if k not in _COMPARISONS]
            if unknown:
                raise ValidationError(
                    f"filter operator {unknown[0]!r} is not supported: use "
                    + ", ".join(_COMPARISONS),
                    field="filter",
                )
            return all(_compare(actual, op, operand) for op, operand in cond.items())
        return isinstance(actual, Mapping) and all(
            _field_passes(actual.get(k), v) for k, v in cond.items()
        )
    if isinstance(cond, list | tuple):
        return (
            isinstance(actual, list)
            and len(actual) == len(cond)
            and all(_field_passes(a, c) for a, c in zip(actual, cond, strict=True))
        )
    return _equal(actual, cond)


def _equal(a: object, b: object) -> bool:
    # JSON equality: true is not 1, but 1 equals 1.0.
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    return a == b


def _compare(actual: object, op: str, operand: object) -> bool:
    if op == "$eq":
        return _equal(actual, operand)
    if op == "$ne":
        return not _equal(actual, operand)
    both_numbers = all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in (actual, operand)
    )
    both_strings = isinstance(actual, str) and isinstance(operand, str)
    if not (both_numbers or both_strings):
        return False  # a missing field or mixed types never satisfy an ordering
    a: Any = actual
    b: Any = operand
    if op == "$gt":
        return bool(a > b)
    if op == "$gte":
        return bool(a >= b)
    if op == "$lt":
        return bool(a < b)
    return bool(a <= b)


__all__ = ["METADATA_KEY", "VaultStore"]
