"""Where the storage contract used to live; kept so existing imports go on working.

The contract is now split by concern: ``values`` (the dataclasses stores take and
return), ``bm25`` (the scoring formulas) and ``protocols`` (``EntryStore``,
``KeywordIndex``, ``VectorStore``, ``RevealStore``, ``Transactional``, ``Admin``,
and ``Store``, their union). Import from those; this module only re-exports.
"""

from __future__ import annotations

from .bm25 import (
    BM25_B,
    BM25_K1,
    bm25_idf,
    bm25_part,
    doc_length,
    index_form,
    query_forms,
    token_count,
)
from .protocols import Store
from .values import (
    DEFAULT_WEIGHTS,
    NO_FILTER,
    AuditRecord,
    EntryFilter,
    KeywordWeights,
    Mutation,
    RevealChange,
    RevealState,
    SearchDoc,
    StoredVectors,
    VectorChanges,
    VectorItem,
    View,
)

__all__ = [
    "BM25_B",
    "BM25_K1",
    "DEFAULT_WEIGHTS",
    "NO_FILTER",
    "AuditRecord",
    "EntryFilter",
    "KeywordWeights",
    "Mutation",
    "RevealChange",
    "RevealState",
    "SearchDoc",
    "Store",
    "StoredVectors",
    "VectorChanges",
    "VectorItem",
    "View",
    "bm25_idf",
    "bm25_part",
    "doc_length",
    "index_form",
    "query_forms",
    "token_count",
]
