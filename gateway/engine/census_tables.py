"""The tables the census counts in: numbers per term, keyed by a 64-bit hash of the term's
text, held in numpy arrays, and put on disk in hash buckets past a bound in rows.

A hash is Python's own (SipHash) of the term's text: the same within the process for the
same text, and for two different IRIs equal with odds of about n²/2⁶⁵ (n distinct
entities; under 10⁻⁴ at 10⁸).
"""

from __future__ import annotations

import os
import pickle
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Generic, TypeVar

import numpy as np
import numpy.typing as npt

Hashes = npt.NDArray[np.int64]
BUCKETS = 64
_ROW_BYTES = 120
"""What one pending entity costs in a `Tally` (hash, count, its IRI's bytes object and
the list slot holding it), for turning the memory setting into rows."""
LEAST = 1024
"""The fewest rows a `Tally` or `Pairs` holds before it puts them on disk, whatever the memory setting."""


def hashes(tokens: list[bytes]) -> Hashes:
    return np.fromiter(map(hash, tokens), dtype=np.int64, count=len(tokens))


def buckets(keys: Hashes) -> Iterator[tuple[int, npt.NDArray[np.intp]]]:
    """Each spill bucket's number and the positions of `keys` it takes, by a hash's top
    bits (they spread evenly), for the `BUCKETS` files a spill writes."""
    bucket = (keys.view(np.uint64) >> np.uint64(58)).astype(np.int64)
    order = np.argsort(bucket, kind="stable")
    bounds = np.searchsorted(bucket[order], np.arange(BUCKETS + 1))
    for n in range(BUCKETS):
        if bounds[n + 1] > bounds[n]:
            yield n, order[bounds[n]:bounds[n + 1]]


SORTED_FROM = 1024
"""Keys past which a lookup sorts them first: binary searches at random miss the cache at
each step of a large table (60,000 keys into 2.4M: 20 ms at random, 3.5 ms sorted)."""


def _places(table: Hashes, keys: Hashes) -> npt.NDArray[np.intp]:
    """Where each key is in `table` (sorted), or the place beside where it would be."""
    if len(keys) < SORTED_FROM:
        at = np.searchsorted(table, keys)
    else:
        order = np.argsort(keys)
        at = np.empty(len(keys), dtype=np.intp)
        at[order] = np.searchsorted(table, keys[order])
    return np.minimum(at, len(table) - 1)


class Members:
    """A set of terms by hash, asked about many at once."""

    def __init__(self, found: Iterable[bytes]) -> None:
        self._sorted = np.unique(hashes(list(found)))

    @classmethod
    def of_hashes(cls, keys: Hashes) -> Members:
        members = cls(())
        members._sorted = np.unique(keys)
        return members

    def __len__(self) -> int:
        return len(self._sorted)

    @property
    def hashes(self) -> Hashes:
        """The members' hashes, each once, sorted."""
        return self._sorted

    def of(self, keys: Hashes) -> npt.NDArray[np.bool_]:
        if not len(self._sorted):
            return np.zeros(len(keys), dtype=bool)
        found: npt.NDArray[np.bool_] = self._sorted[_places(self._sorted, keys)] == keys
        return found


class Lookup:
    """Term hash -> a small number (0 where the term has none), asked about many at once."""

    def __init__(self, keys: Hashes, values: npt.NDArray[np.int64], *, ordered: bool = False) -> None:
        """`ordered`: `keys` are sorted and distinct already (they are then held as given)."""
        if ordered:
            self._keys, self._values = keys, values
        else:
            order = np.argsort(keys, kind="stable")
            self._keys, self._values = keys[order], values[order]

    def of(self, keys: Hashes) -> npt.NDArray[np.int64]:
        if not len(self._keys):
            return np.zeros(len(keys), dtype=np.int64)
        at = _places(self._keys, keys)
        return np.where(self._keys[at] == keys, self._values[at], 0)

    def __len__(self) -> int:
        return len(self._keys)

    @property
    def keys(self) -> Hashes:
        """The terms' hashes, sorted."""
        return self._keys

    def per_value(self, size: int) -> npt.NDArray[np.int64]:
        """How many terms have each number, 0 to `size` - 1."""
        return np.bincount(self._values, minlength=size).astype(np.int64)


class Tally:
    """Counts per IRI, by hash: added a chunk at a time, summed when they pile up, and put
    on disk in hash buckets once the sums alone pass `rows`; read back (`items`) one
    bucket at a time."""

    def __init__(self, rows: int) -> None:
        self._rows = max(rows, LEAST)
        self._pending: list[tuple[Hashes, npt.NDArray[np.int64], list[bytes]]] = []
        self._size = 0
        self._spill: tempfile.TemporaryDirectory[str] | None = None
        self._files: list[IO[bytes]] = []

    def add(self, keys: Hashes, tokens: list[bytes], *, counted: bool = True) -> None:
        """One count for each of `tokens` (whose hashes are `keys`); none where not `counted`
        (an entity told, with nothing to count yet)."""
        unique, first, counts = np.unique(keys, return_index=True, return_counts=True)
        counts = counts.astype(np.int64) if counted else np.zeros(len(unique), dtype=np.int64)
        self._pending.append((unique, counts, [tokens[i] for i in first.tolist()]))
        self._size += len(unique)
        if self._size > self._rows:
            summed = _sum(self._pending)
            self._pending, self._size = [summed], len(summed[0])
            if self._size > self._rows // 2:
                self._write(summed)
                self._pending, self._size = [], 0

    @property
    def spilled(self) -> bool:
        return self._spill is not None

    def items(self) -> Iterator[tuple[Hashes, npt.NDArray[np.int64], list[bytes]]]:
        """(hashes, counts, IRI bytes) of every IRI once, a bucket at a time (all at once
        where nothing went to disk); read again on each call."""
        if self._spill is None:
            self._pending = [_sum(self._pending)]
            yield self._pending[0]
            return
        if self._pending:
            self._write(_sum(self._pending))
            self._pending, self._size = [], 0
        for handle in self._files:
            handle.flush()
            handle.seek(0)
            yield self._bucket(handle)
            handle.seek(0, os.SEEK_END)

    def _write(self, rows: tuple[Hashes, npt.NDArray[np.int64], list[bytes]]) -> None:
        if self._spill is None:
            self._spill = tempfile.TemporaryDirectory(prefix="bfsql-census-")
            folder = Path(self._spill.name)
            self._files = [open(folder / str(n), "w+b") for n in range(BUCKETS)]  # noqa: SIM115
        keys, counts, tokens = rows
        for n, picked in buckets(keys):
            handle = self._files[n]
            np.save(handle, keys[picked])
            np.save(handle, counts[picked])
            np.save(handle, np.frombuffer(b"\n".join(tokens[i] for i in picked.tolist()), dtype=np.uint8))

    @staticmethod
    def _bucket(handle: IO[bytes]) -> tuple[Hashes, npt.NDArray[np.int64], list[bytes]]:
        parts: list[tuple[Hashes, npt.NDArray[np.int64], list[bytes]]] = []
        end = os.fstat(handle.fileno()).st_size
        while handle.tell() < end:
            keys, counts = np.load(handle), np.load(handle)
            blob = np.load(handle).tobytes()
            parts.append((keys, counts, blob.split(b"\n") if blob else []))
        return _sum(parts)


def _sum(parts: list[tuple[Hashes, npt.NDArray[np.int64], list[bytes]]]) -> tuple[Hashes, npt.NDArray[np.int64], list[bytes]]:
    if not parts:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), []
    if len(parts) == 1:
        return parts[0]
    keys = np.concatenate([p[0] for p in parts])
    counts = np.concatenate([p[1] for p in parts])
    tokens = [t for p in parts for t in p[2]]
    unique, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    return unique, np.bincount(inverse, weights=counts, minlength=len(unique)).astype(np.int64), [
        tokens[i] for i in first.tolist()]


class Pairs:
    """(hash, number) rows, held up to `rows` and then put on disk in `BUCKETS` files by
    the hash's top bits; read back a bucket at a time (`buckets`), so that what is held
    stays within `rows` whatever the number of rows added."""

    def __init__(self, rows: int) -> None:
        self._rows = max(rows, LEAST)
        self._pending: list[tuple[Hashes, npt.NDArray[np.int64]]] = []
        self._size = 0
        self._spill: tempfile.TemporaryDirectory[str] | None = None
        self._files: list[IO[bytes]] = []
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def add(self, keys: Hashes, values: npt.NDArray[np.int64]) -> None:
        self._pending.append((keys, values))
        self._size += len(keys)
        self._count += len(keys)
        if self._size > self._rows:
            self._write()

    @property
    def spilled(self) -> bool:
        return self._spill is not None

    def buckets(self) -> Iterator[tuple[Hashes, npt.NDArray[np.int64]]]:
        """Every row once, a bucket at a time (all at once where nothing went to disk): the
        buckets of negative hashes first, so that hashes sorted within each bucket come out
        sorted across them."""
        if self._spill is None:
            yield _joined(self._pending)
            return
        self._write()
        for n in (*range(BUCKETS // 2, BUCKETS), *range(BUCKETS // 2)):
            handle = self._files[n]
            handle.flush()
            handle.seek(0)
            parts = []
            end = os.fstat(handle.fileno()).st_size
            while handle.tell() < end:
                parts.append((np.load(handle), np.load(handle)))
            handle.seek(0, os.SEEK_END)
            yield _joined(parts)

    def _write(self) -> None:
        if self._spill is None:
            self._spill = tempfile.TemporaryDirectory(prefix="bfsql-types-")
            self._files = [open(Path(self._spill.name) / str(n), "w+b") for n in range(BUCKETS)]  # noqa: SIM115
        keys, values = _joined(self._pending)
        self._pending, self._size = [], 0
        for n, picked in buckets(keys):
            np.save(self._files[n], keys[picked])
            np.save(self._files[n], values[picked])


def _joined(parts: list[tuple[Hashes, npt.NDArray[np.int64]]]) -> tuple[Hashes, npt.NDArray[np.int64]]:
    if not parts:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


T = TypeVar("T")


class Spool(Generic[T]):
    """Rows in the order added, pickled a batch at a time into a file held in memory up to
    `held` bytes and on disk past them (`tempfile.SpooledTemporaryFile`): a text value's row
    (two IRIs and a `Literal`) took ~285 bytes as Python objects, ~60 pickled. Read back
    whole as often as asked."""

    _BATCH = 4096

    def __init__(self, held: int) -> None:
        # (A max_size of 0 would be no bound at all.)
        self._file = tempfile.SpooledTemporaryFile(max_size=max(held, 1), prefix="bfsql-rows-")  # noqa: SIM115
        self._batch: list[T] = []
        self._end = 0
        self._count = 0

    def __len__(self) -> int:
        return self._count

    @property
    def spilled(self) -> bool:
        return bool(self._file._rolled)  # type: ignore[attr-defined]  # the file's own flag, not in its stubs

    def append(self, row: T) -> None:
        self._batch.append(row)
        self._count += 1
        if len(self._batch) >= self._BATCH:
            self._write()

    def __iter__(self) -> Iterator[T]:
        self._write()
        at = 0
        while at < self._end:  # each batch read from its own place: readers may interleave
            self._file.seek(at)
            batch: list[T] = pickle.load(self._file)  # this process's own file
            at = self._file.tell()
            yield from batch

    def _write(self) -> None:
        if self._batch:
            self._file.seek(self._end)
            pickle.dump(self._batch, self._file, protocol=pickle.HIGHEST_PROTOCOL)
            self._end = self._file.tell()
            self._batch = []


def rows_for(memory: int) -> int:
    """The pending entities a `Tally` holds within `memory` bytes."""
    return memory // _ROW_BYTES


def pairs_for(memory: int) -> int:
    """The (subject, type) rows `Types` holds beside the `Tally`: a quarter of `memory`,
    16 bytes a row."""
    return memory // 4 // 16


def spooled_for(memory: int) -> int:
    """The bytes of pickled rows a `Spool` (the text values) holds in memory: a quarter of `memory`."""
    return memory // 4
