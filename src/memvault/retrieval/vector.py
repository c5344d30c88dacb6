"""The vector channel: exact cosine top-k over a user's vectors, cached in memory.

A user's vectors are loaded once per model into a growable matrix and kept up
to date by the engine's own writes; when another process commits (the store's
change counter moves) each cached user catches up on its next search by reading
just the entries the store's vector log names, or reloads when the store cannot
tell. Exact search
with numpy is fast enough here: one matrix-vector product over 100k x 384
floats takes a few milliseconds. A store that can search a large user's vectors
itself (``NearestVectors``: PostgreSQL with pgvector) is asked instead for the users
it says are large, whose vectors are then never held here.

The cache holds at most ``budget_bytes`` (``embedding.cache_mb``): when a user's
vectors are loaded or grow past it, the users searched least recently are dropped
(and read from the store again when next searched). The user being searched is never
dropped, so one user larger than the budget is still searched, alone. What a user
costs is counted as its matrix and agent codes plus ``_ID_BYTES`` per entry for the
id strings and their lookup table.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from ..stores.protocols import NearestVectors, Store
from ..stores.values import View

Matrix = npt.NDArray[np.float32]
#: Which models (routes) stored vectors came from (``embed.base.RoutedEmbedder.routes_of``).
RoutesOf = Callable[[Matrix], frozenset[str]]

#: What the cache may hold unless told otherwise (``embedding.cache_mb``'s default).
DEFAULT_BUDGET_BYTES = 512 * 2**20
# Python's cost of one entry id beside its vector: the string (a 32-character id is
# about 80 bytes), its slot in the id list and its entry in the position dict.
_ID_BYTES = 200


def _length(query: Matrix) -> float:
    """A query's length: a store that searches by cosine distance (pgvector) normalises
    the query, which a calibrated query vector (``embed.bilingual``) is not; scaling its
    scores back by the length gives the dot products the in-process search computes."""
    length = float(np.linalg.norm(query))
    return 1.0 if length == 0.0 or abs(length - 1.0) < 1e-4 else length


class _UserVectors:
    """One user's vectors: rows ``[0, n)`` of ``matrix`` are live."""

    def __init__(
        self,
        ids: list[str],
        agents: list[str | None],
        matrix: Matrix,
        mark: int = 0,
        routes_of: RoutesOf | None = None,
    ) -> None:
        self.mark = mark  # the store's vector-log position this reflects
        # The routes of every vector held, or None (not routed): grows with upserts and
        # never shrinks with removals, so it may name a route no vector has any more.
        self.routes_of = routes_of
        self.routes = None if routes_of is None else routes_of(matrix[: len(ids)])
        self.stale = False  # another process wrote since: catch up before searching
        self.agent_codes: dict[str | None, int] = {None: 0}
        self.ids = list(ids)
        self.pos = {entry_id: i for i, entry_id in enumerate(self.ids)}
        self.n = len(self.ids)
        self.dim = matrix.shape[1] if matrix.size else 0
        # The columns any held vector uses (the rest are 0 in every row, so they add
        # nothing to a dot product): only those are kept. An embedder whose vectors
        # have a part per model (``embed.bilingual``) stores half as many numbers for
        # a user whose memories are all of one language, and a search reads half.
        loaded = matrix[: self.n]
        self.cols: npt.NDArray[np.intp] = (
            np.flatnonzero(np.any(loaded != 0, axis=0)) if self.n else np.arange(self.dim)
        )
        # Room for a quarter more before the first growth (then doubling): a loaded
        # user mostly searches, and twice its size would double the cache's memory.
        rows = max(16, self.n + self.n // 4)
        self.matrix = np.zeros((rows, self.cols.size), dtype=np.float32)
        self.codes = np.zeros(rows, dtype=np.int32)
        if self.n:
            self.matrix[: self.n] = loaded[:, self.cols]
            self.codes[: self.n] = [self._code(a) for a in agents]

    def _code(self, agent_id: str | None) -> int:
        return self.agent_codes.setdefault(agent_id, len(self.agent_codes))

    def _widen(self, used: npt.NDArray[np.intp]) -> None:
        """Keep the columns ``used`` as well (a vector uses a part none held did)."""
        cols = np.union1d(self.cols, used)
        matrix = np.zeros((self.matrix.shape[0], cols.size), dtype=np.float32)
        matrix[:, np.searchsorted(cols, self.cols)] = self.matrix
        self.cols, self.matrix = cols, matrix

    def _query(self, query: Matrix) -> Matrix:
        """The query's numbers for the columns kept."""
        return query if self.cols.size == self.dim else query[self.cols]

    def upsert(self, entry_id: str, agent_id: str | None, vector: Matrix) -> None:
        if self.dim == 0:
            self.dim = vector.shape[0]
            self.cols = np.arange(0, dtype=np.intp)
            self.matrix = np.zeros((self.matrix.shape[0], 0), dtype=np.float32)
        if vector.shape[0] != self.dim:
            return  # another model's size: never mixed in
        used = np.flatnonzero(vector)
        if np.setdiff1d(used, self.cols, assume_unique=True).size:
            self._widen(used)
        i = self.pos.get(entry_id)
        if i is None:
            if self.n == self.matrix.shape[0]:
                grow = self.matrix.shape[0] * 2
                self.matrix = np.resize(self.matrix, (grow, self.matrix.shape[1]))
                self.codes = np.resize(self.codes, grow)
            i = self.n
            self.n += 1
            self.ids.append(entry_id)
            self.pos[entry_id] = i
        self.matrix[i] = vector[self.cols]
        self.codes[i] = self._code(agent_id)
        if self.routes_of is not None and self.routes is not None:
            self.routes |= self.routes_of(vector[None, :])

    @property
    def nbytes(self) -> int:
        """What this user's vectors cost in memory (see the module docstring)."""
        return self.matrix.nbytes + self.codes.nbytes + _ID_BYTES * self.n

    def remove(self, entry_id: str) -> None:
        i = self.pos.pop(entry_id, None)
        if i is None:
            return
        last = self.n - 1
        if i != last:  # move the last row into the hole
            moved = self.ids[last]
            self.matrix[i] = self.matrix[last]
            self.codes[i] = self.codes[last]
            self.ids[i] = moved
            self.pos[moved] = i
        self.ids.pop()
        self.n -= 1

    def search(self, view: View, query: Matrix, k: int) -> list[tuple[str, float]]:
        if self.n == 0 or query.shape[0] != self.dim:
            return []
        # einsum, not BLAS: as fast for a matrix-vector product (memory-bound), and it
        # leaves no OpenBLAS threads spinning that would slow the embedder's next call
        # (measured: 12 ms -> 49 ms per query embedding on 2 cores).
        sims = np.einsum("ij,j->i", self.matrix[: self.n], self._query(query))
        codes = self.codes[: self.n]
        if not view.all_agents:
            visible = codes == 0
            if view.agent_id is not None and view.agent_id in self.agent_codes:
                visible |= codes == self.agent_codes[view.agent_id]
            sims = np.where(visible, sims, -np.inf)
        k = min(k, self.n)
        top = np.argpartition(-sims, k - 1)[:k]
        top = top[np.argsort(-sims[top], kind="stable")]
        return [(self.ids[i], float(sims[i])) for i in top if np.isfinite(sims[i])]

    def similarity(self, query: Matrix, entry_ids: Sequence[str]) -> dict[str, float]:
        rows = [(entry_id, self.pos[entry_id]) for entry_id in entry_ids if entry_id in self.pos]
        if not rows or query.shape[0] != self.dim:
            return {}
        part = self._query(query)
        sims = np.einsum("ij,j->i", self.matrix[[i for _, i in rows]], part)  # no BLAS threads
        return {entry_id: float(sim) for (entry_id, _), sim in zip(rows, sims, strict=True)}


class VectorIndex:
    """Per-user caches of one model's vectors over a ``Store``."""

    def __init__(
        self,
        store: Store,
        model: str,
        *,
        budget_bytes: int = DEFAULT_BUDGET_BYTES,
        routes_of: RoutesOf | None = None,
    ) -> None:
        self.store = store
        self.model = model
        self.budget_bytes = budget_bytes
        self.routes_of = routes_of
        # Least recently searched first (``_user`` moves a user to the end).
        self._users: OrderedDict[str, _UserVectors] = OrderedDict()
        # Users whose vectors the store searches itself (``NearestVectors``): too many
        # to hold here. Decided once per user; SQLite and MySQL never have any.
        self._in_store: dict[str, bool] = {}
        self._nearest = store if isinstance(store, NearestVectors) else None
        self._lock = threading.RLock()
        # Removals wait here for the next holder of the lock (see ``remove``).
        self._removals: list[tuple[str, list[str]]] = []
        self._removals_lock = threading.Lock()
        self._seen_counter = store.change_counter()

    def _apply_removals(self) -> None:
        """Apply the removals queued by ``remove`` (call with ``self._lock`` held)."""
        with self._removals_lock:
            pending, self._removals = self._removals, []
        for user_id, entry_ids in pending:
            cached = self._users.get(user_id)
            if cached is not None:
                for entry_id in entry_ids:
                    cached.remove(entry_id)

    def _check_external_writes(self) -> None:
        counter = self.store.change_counter()
        if counter != self._seen_counter:
            for cached in self._users.values():
                cached.stale = True
            self._seen_counter = counter

    def _user(self, user_id: str) -> _UserVectors:
        cached = self._users.get(user_id)
        if cached is not None and cached.stale:
            changes = self.store.vector_changes(user_id, self.model, cached.mark)
            if changes is None:
                cached = None
            else:
                found = changes.vectors
                for i, (entry_id, agent_id) in enumerate(
                    zip(found.ids, found.agent_ids, strict=True)
                ):
                    cached.upsert(entry_id, agent_id, found.matrix[i])
                for entry_id in changes.removed:
                    cached.remove(entry_id)
                cached.mark, cached.stale = changes.mark, False
        if cached is None:
            stored = self.store.load_vectors(user_id, self.model)
            cached = _UserVectors(
                stored.ids, stored.agent_ids, stored.matrix, stored.mark, self.routes_of
            )
            self._users[user_id] = cached
        self._users.move_to_end(user_id)
        self._keep_to_budget()
        return cached

    def _keep_to_budget(self) -> None:
        """Drop the users searched least recently while the cache holds more than its
        budget; the most recent one always stays."""
        held = sum(u.nbytes for u in self._users.values())
        while held > self.budget_bytes and len(self._users) > 1:
            _, dropped = self._users.popitem(last=False)
            held -= dropped.nbytes

    @property
    def held_bytes(self) -> int:
        """What the cached users' vectors take now."""
        with self._lock:
            return sum(u.nbytes for u in self._users.values())

    def _searched_in_store(self, user_id: str) -> NearestVectors | None:
        """The store, when it searches this user's vectors itself."""
        nearest = self._nearest
        if nearest is None or user_id in self._users:
            return None
        known = self._in_store.get(user_id)
        if known is None:
            known = self._in_store[user_id] = nearest.searches_in_store(user_id, self.model)
        return nearest if known else None

    def routes(self, view: View, *, others: bool = True) -> frozenset[str] | None:
        """The routes of the vectors a search of ``view`` meets (``RoutesOf``), for a
        query to be embedded for those alone; ``None`` when not known (an embedder
        without routes, a user the store searches itself). The user's own vectors
        only: what another user stored never changes how a query is embedded.
        ``others=False``: without asking the store about other processes' writes (a
        round trip on a server store), for a second look within one search."""
        if self.routes_of is None:
            return None
        with self._lock:
            self._apply_removals()
            if others:
                self._check_external_writes()
            if self._searched_in_store(view.user_id) is not None:
                return None
            return self._user(view.user_id).routes

    def search(
        self, view: View, query: Matrix, k: int, *, others: bool = True
    ) -> list[tuple[str, float]]:
        """Entry ids in ``view`` by their dot product with ``query`` (the cosine, for a unit
        query vector), best first. ``others=False``: as of the last look at other
        processes' writes (a search looks once: on a server store each look is a
        round trip)."""
        with self._lock:
            self._apply_removals()
            if others:
                self._check_external_writes()
            in_store = self._searched_in_store(view.user_id)
            if in_store is not None:
                found = in_store.nearest(view, self.model, query, k)
                return [(i, s * _length(query)) for i, s in found]
            return self._user(view.user_id).search(view, query, k)

    def similarity(
        self, view: View, query: Matrix, entry_ids: Sequence[str], *, others: bool = True
    ) -> dict[str, float]:
        """The cosine of ``query`` to each of ``entry_ids`` that has a vector (the caller
        has checked the ids are in ``view``); ``others``: as in :meth:`search`."""
        with self._lock:
            self._apply_removals()
            if others:
                self._check_external_writes()
            in_store = self._searched_in_store(view.user_id)
            if in_store is not None:
                sims = in_store.vector_similarity(view.user_id, self.model, query, entry_ids)
                return {i: s * _length(query) for i, s in sims.items()}
            return self._user(view.user_id).similarity(query, entry_ids)

    def upsert(self, user_id: str, items: Sequence[tuple[str, str | None, Matrix]]) -> None:
        """Reflect vectors this process just stored."""
        with self._lock:
            self._apply_removals()
            self._check_external_writes()
            cached = self._users.get(user_id)
            if cached is None:
                return  # loaded from the store on first search
            for entry_id, agent_id, vector in items:
                cached.upsert(entry_id, agent_id, vector)
            self._keep_to_budget()

    def remove(self, user_id: str, entry_ids: Sequence[str]) -> None:
        """Reflect entries this process deleted or whose text it changed.

        Never waits for the index's lock: a writer calls it inside its transaction,
        while the embedding thread may hold that lock and wait for the store (which the
        transaction holds) — waiting here would deadlock them. The removal is queued and
        applied now if the lock is free, else by whichever call holds it next."""
        with self._removals_lock:
            self._removals.append((user_id, list(entry_ids)))
        if self._lock.acquire(blocking=False):
            try:
                self._apply_removals()
            finally:
                self._lock.release()

    def clear(self) -> None:
        with self._lock:
            self._users.clear()
            self._in_store.clear()


__all__ = ["VectorIndex"]
