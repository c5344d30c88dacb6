"""jieba's prefix dictionary as a read-only SQLite table, for a process that cuts little Chinese.

jieba keeps every word of its dictionary with its frequency, and every prefix of a word
with frequency 0, in one dict of about half a million entries (``Tokenizer.FREQ``, with
the sum of the frequencies in ``total``), which it loads whole the first time a process
cuts Chinese: most of a second. A short command cuts a query or a few sentences, a few
hundred lookups. This module writes that dict once into a SQLite file, made by jieba's
own ``gen_pfdict`` from jieba's own dictionary, and gives a tokenizer a mapping that
reads the file a word at a time (:class:`PrefixTable`), so its cuts are jieba's, word for
word: jieba only asks ``FREQ`` whether a fragment is there and how frequent it is.

The file is named after a hash of the dictionary, so another jieba (another dictionary)
gets a file of its own. It is built in a temporary file beside it and renamed into place:
a reader sees a whole table or none, and two processes building at once each rename a
whole one. A file that fails its checks when opened is built again; a lookup that fails
later (a file damaged under us) loads the dictionary the normal way and answers from it,
so a damaged table costs time, never different words.
"""

from __future__ import annotations

import hashlib
import io
import logging
import os
import sqlite3
import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from .atomic import fsync_directory

log = logging.getLogger(__name__)

#: The layout of the file; a file of another layout is built again.
FORMAT = "1"

#: Lookups remembered before the memo starts over (the words a process added stay).
MEMO_SIZE = 200_000


def table_path(directory: Path, dictionary: bytes) -> Path:
    """Where the table of ``dictionary`` (the dictionary file's bytes) lives in ``directory``."""
    return directory / f"jieba-{_digest(dictionary)[:32]}.sqlite3"


def _digest(dictionary: bytes) -> str:
    return hashlib.sha256(dictionary).hexdigest()


def build(path: Path, dictionary: bytes) -> None:
    """Write the prefix table of ``dictionary`` to ``path``, whole or not at all."""
    import jieba

    freq, total = jieba.Tokenizer.gen_pfdict(io.BytesIO(dictionary))
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        db = sqlite3.connect(temp)
        try:
            db.execute("PRAGMA journal_mode=OFF")
            db.execute("PRAGMA synchronous=OFF")  # the file is synced once, below
            db.execute(
                "CREATE TABLE prefix (word TEXT PRIMARY KEY, freq INTEGER NOT NULL) WITHOUT ROWID"
            )
            # Sorted: UTF-8 byte order (SQLite's) is code point order (Python's).
            db.executemany("INSERT INTO prefix VALUES (?, ?)", sorted(freq.items()))
            db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            meta = {
                "format": FORMAT,
                "dictionary": _digest(dictionary),
                "total": str(total),
                "entries": str(len(freq)),
            }
            db.executemany("INSERT INTO meta VALUES (?, ?)", meta.items())
            db.commit()
        finally:
            db.close()
        with open(temp, "rb") as done:
            os.fsync(done.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    fsync_directory(path.parent)


def open_table(path: Path, dictionary: bytes) -> tuple[sqlite3.Connection, int]:
    """A read-only connection to the table at ``path`` and jieba's ``total``.

    Raises ``ValueError`` (or ``sqlite3.Error``, ``OSError``) when the file is missing,
    cut short, of another layout or of another dictionary."""
    uri = path.resolve().as_uri() + "?mode=ro&immutable=1"
    db = sqlite3.connect(uri, uri=True, check_same_thread=False)
    try:
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
        if meta.get("format") != FORMAT or meta.get("dictionary") != _digest(dictionary):
            raise ValueError(f"{path} is the table of another dictionary or layout")
        (pages,) = db.execute("PRAGMA page_count").fetchone()
        (page_size,) = db.execute("PRAGMA page_size").fetchone()
        if os.path.getsize(path) != pages * page_size:
            raise ValueError(f"{path} is cut short")
        return db, int(meta["total"])
    except BaseException:
        db.close()
        raise


class PrefixTable(Mapping[str, int]):
    """jieba's ``FREQ`` read from the table a word at a time, each answer remembered.

    ``reload`` is called once if a lookup fails: it loads the dictionary the normal way
    and returns its ``FREQ``, which answers from then on. Words a process adds
    (``jieba.add_word``) are kept in memory, over the table."""

    def __init__(
        self, db: sqlite3.Connection, path: Path, reload: Callable[[], dict[str, int]]
    ) -> None:
        self._db = db
        self._path = path
        self._reload = reload
        self._lock = threading.Lock()
        self._memo: dict[str, int | None] = {}
        self._added: dict[str, int] = {}
        self._full: dict[str, int] | None = None

    def _lookup(self, word: str) -> int | None:
        try:
            return self._memo[word]
        except KeyError:
            pass
        if self._full is not None:
            return self._full.get(word)
        with self._lock:
            try:
                row = self._db.execute("SELECT freq FROM prefix WHERE word = ?", (word,)).fetchone()
            except sqlite3.Error:
                return self._fall_back().get(word)
        freq: int | None = row[0] if row is not None else None
        if len(self._memo) >= MEMO_SIZE:
            self._memo = dict(self._added)
        self._memo[word] = freq
        return freq

    def _fall_back(self) -> dict[str, int]:
        """Answer from the whole dictionary from now on (called with the lock held)."""
        if self._full is None:
            log.warning("jieba's word table %s failed; loading the whole dictionary", self._path)
            self._path.unlink(missing_ok=True)  # the next process builds it again
            full = self._reload()
            full.update(self._added)
            self._full = full
            self._memo = {}
        return self._full

    def get(self, word: str, default: Any = None) -> Any:
        freq = self._lookup(word)
        return default if freq is None else freq

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and self._lookup(word) is not None

    def __getitem__(self, word: str) -> int:
        freq = self._lookup(word)
        if freq is None:
            raise KeyError(word)
        return freq

    def __setitem__(self, word: str, freq: int) -> None:
        """What ``jieba.add_word`` writes: kept in memory, over the table."""
        self._added[word] = freq
        self._memo[word] = freq
        if self._full is not None:
            self._full[word] = freq

    def _words(self) -> dict[str, int]:
        if self._full is not None:
            return self._full
        with self._lock:
            rows = self._db.execute("SELECT word, freq FROM prefix").fetchall()
        words = dict(rows)
        words.update(self._added)
        return words

    def __iter__(self) -> Iterator[str]:
        return iter(self._words())

    def __len__(self) -> int:
        return len(self._words())


def install(tokenizer: Any, directory: Path) -> PrefixTable:
    """Give the jieba ``tokenizer`` the table of its dictionary in ``directory`` (built
    first when missing or failing its checks) in place of loading the dictionary.

    Raises whatever building or opening the table raised: the caller loads the
    dictionary the normal way then."""
    with tokenizer.get_dict_file() as f:
        dictionary = f.read()
    path = table_path(directory, dictionary)
    try:
        db, total = open_table(path, dictionary)
    except (sqlite3.Error, OSError, ValueError, KeyError) as exc:
        if path.exists():
            log.info("building jieba's word table again (%s)", exc)
        build(path, dictionary)
        db, total = open_table(path, dictionary)

    def reload() -> dict[str, int]:
        import jieba

        fresh = jieba.Tokenizer(tokenizer.dictionary)
        fresh.tmp_dir, fresh.cache_file = tokenizer.tmp_dir, tokenizer.cache_file
        fresh.initialize()
        tokenizer.total = fresh.total
        freq: dict[str, int] = fresh.FREQ
        return freq

    table = PrefixTable(db, path, reload)
    with tokenizer.lock:
        tokenizer.FREQ = table
        tokenizer.total = total
        tokenizer.initialized = True
    return table


__all__ = ["FORMAT", "PrefixTable", "build", "install", "open_table", "table_path"]
