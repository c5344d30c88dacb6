"""Adding a field touches one table: every surface that names entry fields matches
``memvault.fields``.

The table (``FIELDS``) drives the row mapping, the import field set, the validation of a
draft and the update rules; the typed mirrors (``MemoryEntry``, ``Draft``, ``Patch``,
``Vault.update``, the HTTP bodies) and the SQLite schema are checked against it here, so a
field added to the table and forgotten in one of them fails a test that names it. Each
surface is also exercised with a value in every field, through real stores and a real
server on loopback.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import re
import sqlite3
import types
import typing
from contextlib import closing
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import BaseModel

import memvault
from memvault import DecisionStatus, MemoryEntry, SQLiteStore, Vault
from memvault.engine.transfer import IMPORT_FIELDS
from memvault.engine.write import KEEP, Draft, Patch
from memvault.fields import (
    ADDRESS,
    BY_NAME,
    EMBEDDED,
    FIELDS,
    HTTP_CREATE,
    HTTP_UPDATE,
    KEPT,
    NAMES,
    PATCHABLE,
    PROTECTED,
    READERS,
    RECORD_NAMES,
    STORED,
    Check,
    Column,
    FieldSpec,
    Imported,
    Made,
    OnUpdate,
)
from memvault.model import utcnow
from memvault.server.schemas import AddRequest, Entry, UpdateRequest
from memvault.stores.protocols import Store
from memvault.stores.rows import ENTRY_COLUMNS, entry_to_row, row_to_entry
from memvault.stores.values import SearchDoc, View

from .gateway_server import Live

PACKAGE = Path(memvault.__file__).parent
_T0 = datetime(2025, 3, 4, 5, 6, 7, 891011, tzinfo=UTC)
# Columns of ``memories`` that are not entry fields: the row key and the full-text index.
_INDEX_COLUMNS = {"pk", "fts_scope", "fts_head", "fts_body", "fts_extra"}


def sample(spec: FieldSpec, index: int = 0) -> Any:
    """A valid value of the field that is not its default."""
    match spec.check:
        case Check.ENTRY_ID:
            return "fields-sample-1"
        case Check.IDENT:
            return f"{spec.name.replace('_', '-')}-x"
        case Check.CONTENT:
            return "the sample content of every field"
        case Check.TEXT:
            return f"sample {spec.name}"
        case Check.ENUM:
            assert spec.enum is not None
            if spec.enum is DecisionStatus:  # a legal first move of the decision lifecycle
                return DecisionStatus.ADOPTED
            return list(spec.enum)[-1]
        case Check.UNIT:
            return 0.25
        case Check.COUNT:
            return 7
        case Check.TIME:
            return _T0 + timedelta(days=index)
        case Check.JSON:
            return {"sample": spec.name, "nested": {"n": 1}}
        case Check.SUBJECT:
            return "Caroline"
    raise AssertionError(f"no sample for {spec.check}")


def full_entry(user_id: str = "alice") -> MemoryEntry:
    """An entry with a non-default value in every field."""
    values = {spec.name: sample(spec, i) for i, spec in enumerate(FIELDS)}
    return MemoryEntry(**{**values, "user_id": user_id})


def base_type(annotation: Any) -> tuple[Any, bool]:
    """The annotation without None, and whether None was part of it."""
    if typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        assert len(args) == 1, annotation
        return base_type(args[0])[0], True
    origin = typing.get_origin(annotation)
    return (origin if origin is not None else annotation), False


# -- the table itself --------------------------------------------------------------------


def test_every_row_is_consistent() -> None:
    assert len(set(NAMES)) == len(NAMES)
    for spec in FIELDS:
        assert BY_NAME[spec.name] is spec
        assert sample(spec) != spec.default, spec.name
        assert (spec.check is Check.ENUM) == (spec.enum is not None), spec.name
        assert (spec.column is Column.ENUM) == (spec.enum is not None), spec.name
        assert spec.max_chars is None or spec.check is Check.TEXT, spec.name
        assert not spec.blank_is_none or spec.optional, spec.name
        if spec.optional:
            assert spec.default is None, spec.name
        if spec.on_update is OnUpdate.SET_OR_CLEAR:
            assert spec.optional, f"{spec.name}: None clears it, so None must be a value"
        if spec.protected or spec.embedded:
            assert spec.check in (Check.CONTENT, Check.TEXT, Check.JSON), spec.name
    assert set(EMBEDDED) <= set(PROTECTED)


def test_the_readers_of_the_table_are_listed() -> None:
    """``READERS`` names exactly the modules that import ``memvault.fields``."""
    readers = set()
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        module = ".".join(parts)
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                base = package.split(".")
                base = base[: len(base) - node.level + 1] if node.level else []
                target = ".".join([*base, *(node.module or "").split(".")]).strip(".")
                names = {a.name for a in node.names}
                if target == "memvault.fields" or (target == "memvault" and "fields" in names):
                    readers.add(module)
            elif isinstance(node, ast.Import) and any(
                a.name == "memvault.fields" for a in node.names
            ):
                readers.add(module)
    assert readers == set(READERS)


# -- model --------------------------------------------------------------------------------


def test_the_model_dataclass_is_the_table() -> None:
    fields = dataclasses.fields(MemoryEntry)
    assert tuple(f.name for f in fields) == NAMES
    hints = typing.get_type_hints(MemoryEntry)
    for f in fields:
        spec = BY_NAME[f.name]
        kind, optional = base_type(hints[f.name])
        assert (kind, optional) == (spec.py_type, spec.optional), f.name
        if spec.default in (Made.REQUIRED, Made.NEW_ID):
            assert f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        elif spec.default in (Made.CLOCK, Made.CREATED):
            assert f.default_factory is utcnow, f.name
        elif spec.default is Made.EMPTY:
            assert f.default_factory is dict, f.name
        else:
            assert f.default == spec.default, f.name
    assert set(full_entry().to_dict()) == set(NAMES)


# -- rows and the SQLite schema -------------------------------------------------------------


def test_rows_are_the_stored_fields_and_round_trip() -> None:
    assert tuple(f.name for f in STORED) == ENTRY_COLUMNS
    entry = full_entry()
    row = entry_to_row(entry)
    python = {Column.REAL: float, Column.INTEGER: int}
    for spec, value in zip(STORED, row, strict=True):
        assert spec.column is not None
        assert type(value) is python.get(spec.column, str), spec.name
    assert row_to_entry(row) == entry
    assert row_to_entry((*row, "extra", "columns")) == entry


def test_sqlite_columns_are_the_stored_fields(sqlite_path: Path) -> None:
    SQLiteStore(sqlite_path).close()
    with closing(sqlite3.connect(sqlite_path)) as conn:
        info = conn.execute("PRAGMA table_info(memories)").fetchall()
        trigger = conn.execute(
            "SELECT sql FROM sqlite_master WHERE name = 'memories_vector_stale'"
        ).fetchone()[0]
    columns = {name: (sql_type, bool(notnull)) for _, name, sql_type, notnull, _, _ in info}
    for name in _INDEX_COLUMNS:
        columns.pop(name)
    expected = {}
    for spec in STORED:
        assert spec.column is not None
        expected[spec.name] = (spec.column.sql_type, not spec.optional)
    assert columns == expected
    # A change to what the embedder reads marks the vector stale, in SQL as in the table.
    watched = re.search(r"AFTER UPDATE OF (.*?) ON memories", trigger, re.S)
    assert watched is not None
    assert {c.strip() for c in watched.group(1).split(",")} == set(EMBEDDED)


def test_every_backend_keeps_every_field(store: Store) -> None:
    entry = full_entry()
    store.insert([(entry, SearchDoc(head="sample", body="content"))])
    assert store.get(View("alice", all_agents=True), entry.id) == entry


# -- import ---------------------------------------------------------------------------------


def test_import_takes_every_exported_field() -> None:
    assert IMPORT_FIELDS == RECORD_NAMES == set(NAMES) == set(full_entry().to_dict())
    draft = {f.name for f in dataclasses.fields(Draft)}
    assert draft == {f.name for f in KEPT}
    assert {f.name for f in FIELDS if f.imported is Imported.DROP} == set(NAMES) - draft


def test_an_import_keeps_every_kept_field_and_drops_the_rest(vault: Vault) -> None:
    record = full_entry(user_id="mallory").to_dict()
    (imported,) = vault.import_([record], user_id="alice")
    assert imported == vault.get(record["id"], user_id="alice")
    got = imported.to_dict()
    for spec in FIELDS:
        if spec.imported is Imported.KEEP:
            assert got[spec.name] == record[spec.name], spec.name
    assert got["user_id"] == "alice" and got["approved_at"] is None


def test_a_record_with_an_unknown_field_is_refused(vault: Vault) -> None:
    with pytest.raises(memvault.ImportFormatError, match="unknown fields"):
        vault.import_([{"content": "x", "colour": "blue"}], user_id="alice")
    with pytest.raises(memvault.ValidationError, match="unknown fields"):
        vault.add_many([{"content": "x", "colour": "blue"}], user_id="alice")


def test_a_draft_left_empty_takes_the_table_defaults(vault: Vault) -> None:
    entry = vault.add("only the content", user_id="alice")
    for spec in FIELDS:
        value = getattr(entry, spec.name)
        if isinstance(spec.default, Made):
            continue
        assert value == spec.default, spec.name
    assert entry.metadata == {} and entry.updated_at == entry.created_at


# -- update ----------------------------------------------------------------------------------


def test_patch_and_vault_update_are_the_patchable_fields() -> None:
    assert {f.name for f in dataclasses.fields(Patch)} == {f.name for f in PATCHABLE}
    params = set(inspect.signature(Vault.update).parameters) - {"self", "entry_id", *ADDRESS}
    assert params == {f.name for f in PATCHABLE}
    for f in dataclasses.fields(Patch):
        spec = BY_NAME[f.name]
        assert f.default is (KEEP if spec.on_update is OnUpdate.SET_OR_CLEAR else None), f.name
    adds = set(inspect.signature(Vault.add).parameters) - {"self"}
    assert adds <= {f.name for f in KEPT} | {"user_id"}


@pytest.mark.parametrize("spec", PATCHABLE, ids=lambda s: s.name)
def test_update_sets_each_patchable_field_and_none_keeps_or_clears(
    vault: Vault, spec: FieldSpec
) -> None:
    entry = vault.add("the first text", user_id="alice", expires_at=_T0 + timedelta(days=9000))
    value = sample(spec)
    changed = vault.update(entry.id, user_id="alice", **{spec.name: value})
    assert getattr(changed, spec.name) == value
    assert changed.updated_at > entry.updated_at
    for other in FIELDS:
        if other.name not in (spec.name, "updated_at", "sensitivity", "quarantine"):
            assert getattr(changed, other.name) == getattr(entry, other.name), other.name
    other_change = {"description": "another"} if spec.name != "description" else {"name": "x"}
    again = vault.update(entry.id, user_id="alice", **{spec.name: None, **other_change})
    if spec.on_update is OnUpdate.SET_OR_CLEAR:
        assert getattr(again, spec.name) is None
    else:
        assert getattr(again, spec.name) == value


# -- HTTP schemas -------------------------------------------------------------------------------


def _schema_matches(model: type[BaseModel], spec: FieldSpec, *, wire_times: bool) -> None:
    kind, _ = base_type(model.model_fields[spec.name].annotation)
    expected = str if (wire_times and spec.py_type is datetime) else spec.py_type
    assert kind is expected, f"{model.__name__}.{spec.name}: {kind} is not {expected}"
    if spec.enum is not None:
        assert issubclass(kind, StrEnum)


def test_the_create_body_is_the_table() -> None:
    fields = AddRequest.model_fields
    assert set(fields) == set(ADDRESS) | set(HTTP_CREATE)
    for name, info in fields.items():
        _schema_matches(AddRequest, BY_NAME[name], wire_times=True)
        required = BY_NAME[name].default is Made.REQUIRED and name not in ADDRESS
        assert info.is_required() == required, name


def test_the_update_body_is_the_table() -> None:
    fields = UpdateRequest.model_fields
    assert set(fields) == set(ADDRESS) | set(HTTP_UPDATE)
    assert set(HTTP_UPDATE) <= {f.name for f in PATCHABLE}
    for name, info in fields.items():
        _schema_matches(UpdateRequest, BY_NAME[name], wire_times=True)
        assert not info.is_required() and base_type(info.annotation)[1], name  # None: keep


def test_the_returned_entry_is_the_table() -> None:
    fields = Entry.model_fields
    assert tuple(fields) == NAMES
    for name, info in fields.items():
        spec = BY_NAME[name]
        _schema_matches(Entry, spec, wire_times=True)
        assert base_type(info.annotation)[1] == spec.optional, name
        assert info.is_required(), name  # every answer carries every field


def _wire(value: Any) -> Any:
    return value.value if isinstance(value, StrEnum) else value


def test_http_create_and_update_carry_every_field_they_expose(alice: httpx.Client) -> None:
    body = {name: _wire(sample(BY_NAME[name])) for name in HTTP_CREATE}
    # The entry a new one replaces must exist (and becomes superseded).
    replaced = alice.post(
        "/v1/memories", json={"content": "the fact before", "agent_id": body["agent_id"]}
    )
    body["supersedes"] = replaced.json()["id"]
    made = alice.post("/v1/memories", json=body)
    assert made.status_code == 201, made.text
    entry = made.json()
    # Every field, and the write's own feedback (held or redacted, and why: ``notes``).
    assert set(entry) == {*NAMES, "notes"}
    for name, value in body.items():
        assert entry[name] == value, name
    patch = {name: _wire(sample(BY_NAME[name])) for name in HTTP_UPDATE}
    patch["content"] = "changed content"
    changed = alice.patch(f"/v1/memories/{entry['id']}", json=patch)
    assert changed.status_code == 200, changed.text
    for name, value in patch.items():
        assert changed.json()[name] == value, name


def test_openapi_lists_the_allowed_values_of_every_enum(alice: httpx.Client) -> None:
    doc = alice.get("/openapi.json").json()
    schemas = doc["components"]["schemas"]
    for body, names in (("AddRequest", HTTP_CREATE), ("UpdateRequest", HTTP_UPDATE)):
        props = schemas[body]["properties"]
        for name in names:
            enum = BY_NAME[name].enum
            if enum is None:
                continue
            refs = re.findall(r"#/components/schemas/(\w+)", str(props[name]))
            assert refs == [enum.__name__], (body, name, props[name])
            assert schemas[enum.__name__]["enum"] == [m.value for m in enum]


@pytest.mark.parametrize(
    ("method", "path", "kwargs", "field"),
    [
        ("POST", "/v1/memories", {"json": {"content": "hi", "kind": "nope"}}, "kind"),
        ("POST", "/v1/memories", {"json": {"content": "hi", "mem_class": "nope"}}, "mem_class"),
        ("POST", "/v1/memories", {"json": {"content": "hi", "domain": ""}}, "domain"),
        ("PATCH", "/v1/memories/{id}", {"json": {"tier": "nope"}}, "tier"),
        ("POST", "/v1/memories/search", {"json": {"query": "x", "kind": "nope"}}, "kind"),
        ("GET", "/v1/memories", {"params": {"domain": "nope"}}, "domain"),
    ],
)
def test_an_unknown_enum_value_is_a_422_naming_the_field_and_the_values(
    live: Live, alice: httpx.Client, method: str, path: str, kwargs: dict[str, Any], field: str
) -> None:
    entry = alice.post("/v1/memories", json={"content": "existing"}).json()
    before = live.snapshot()
    r = alice.request(method, path.format(id=entry["id"]), **kwargs)
    assert r.status_code == 422, r.text
    error = r.json()["error"]
    assert error["code"] == "invalid_input"
    assert field in error["message"]
    for member in BY_NAME[field].enum or ():
        assert f"'{member.value}'" in error["message"], error["message"]
    assert live.snapshot() == before
