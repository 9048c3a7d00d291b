"""What rdf:reifies says, for the census: its reifiers, the triples they reify and the
statuses they state, by hash."""

from __future__ import annotations

from array import array
from collections import Counter
from itertools import compress

import numpy as np
import numpy.typing as npt

from gateway.engine.census_tables import Hashes, Lookup, Members, hashes
from gateway.terms import BFS

_ASSERTED_TRUE = BFS + "asserted_true"


def _namespace(subject: bytes) -> bytes:
    """An IRI reifier's `terms.namespace`, from its N-Triples text."""
    return subject[1 : max(subject.rfind(b"/"), subject.rfind(b"#")) + 1]


class Reifications:
    """What rdf:reifies says, as hashes of the terms' text (27 bytes a row, where the terms'
    bytes in Python lists and counters took ~400): every row's key (`add_rows`), its subject's
    hash, and its triple's (`s p o`) where it is an edge between IRIs. `done` drops
    repeated rows (the same key: a line said twice, which the store holds once)."""

    def __init__(self) -> None:
        self._rows, self._subjects, self._triples = array("q"), array("q"), array("q")
        self._iri, self._terms, self._named = bytearray(), bytearray(), bytearray()
        self._namespaces: set[bytes] = set()
        self.namespaces: frozenset[str] = frozenset()
        """`terms.namespace` of every IRI reifier, once `done`."""
        self.reifiers = Members(())
        """The IRI reifiers, once `done` (the pass asks its lines' subjects of them: not copied there)."""
        self.reified = Lookup(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
        """An edge triple's hash -> how many reifiers it has, once `done`."""
        self._kept: tuple[Hashes, npt.NDArray[np.bool_], npt.NDArray[np.bool_], npt.NDArray[np.bool_], Hashes] | None = None
        """Each row once (subject, an IRI, a triple term, an edge between IRIs, its hash), once `done`."""

    def add_rows(self, rows: Hashes, subjects: list[bytes], terms: list[bool], triples: list[bytes | None]) -> None:
        """Rows, each list's in turn: their keys (a row said twice has one), their subjects'
        text, whether their objects are triple terms, and the triples' text (`s p o`) where
        they are edges between IRIs."""
        self._rows.frombytes(rows.tobytes())
        iri = [subject[:1] == b"<" for subject in subjects]
        self._iri.extend(iri)
        self._namespaces.update(map(_namespace, compress(subjects, iri)))
        self._subjects.frombytes(hashes(subjects).tobytes())
        self._terms.extend(terms)
        self._named.extend(triple is not None for triple in triples)
        self._triples.frombytes(np.fromiter((0 if t is None else hash(t) for t in triples), np.int64, len(triples)).tobytes())

    def done(self) -> Reifications:
        rows = np.frombuffer(self._rows, dtype=np.int64)
        first = np.unique(rows, return_index=True)[1]
        subjects = np.frombuffer(self._subjects, dtype=np.int64)[first]
        iri = np.frombuffer(self._iri, dtype=np.bool_)[first]
        named = np.frombuffer(self._named, dtype=np.bool_)[first]
        triples = np.frombuffer(self._triples, dtype=np.int64)[first]
        self._kept = (subjects, iri, np.frombuffer(self._terms, dtype=np.bool_)[first], named, triples)
        self.reifiers = Members.of_hashes(subjects[iri])
        unique, counts = np.unique(triples[named], return_counts=True)
        self.reified = Lookup(unique, counts.astype(np.int64), ordered=True)
        self.namespaces = frozenset(n.decode() for n in self._namespaces)
        self._rows, self._subjects, self._triples = array("q"), array("q"), array("q")
        self._iri, self._terms, self._named = bytearray(), bytearray(), bytearray()
        return self

    def __bool__(self) -> bool:
        return bool(len(self.reifiers) or len(self.reified))

    def statuses(self, stated: list[tuple[Hashes, npt.NDArray[np.integer]]], names: dict[bytes, int],
                 timed: list[Hashes], maybe_unasserted: Hashes) -> tuple[Counter[str], Counter[str]] | None:
        """`census._count_statuses`'s counts (each row's statements per status: one for each
        status its reifier states, else asserted_true where its triple is asserted and
        hypothetical where not; as many as its reifier's times, else one, untimed), from the
        statuses and times the lines state (`Counts.stated`, `timed`). None where only the
        store can tell: a blank reifier, a status that is no IRI, or a reifier stating none
        whose triple no line was seen to assert (`maybe_unasserted`) or has a literal or
        blank end."""
        assert self._kept is not None
        subjects, iri, terms, named, triples = self._kept
        if not iri.all() or any(name[:1] != b"<" or name[:2] == b"<<" for name in names):
            return None
        by_status = np.concatenate([s for s, _ in stated]) if stated else np.zeros(0, dtype=np.int64)
        numbers = np.concatenate([n for _, n in stated]) if stated else np.zeros(0, dtype=np.int64)
        unstated = ~np.isin(subjects, by_status)
        if (unstated & terms & ~named).any() or (unstated & named & np.isin(triples, maybe_unasserted)).any():
            return None
        times = Lookup(*np.unique(np.concatenate(timed) if timed else np.zeros(0, dtype=np.int64), return_counts=True),
                       ordered=True)
        reifiers, rows = np.unique(subjects, return_counts=True)
        per = Lookup(reifiers, rows.astype(np.int64), ordered=True)
        found: Counter[str] = Counter()
        untimed: Counter[str] = Counter()
        # A status line counts once for each row of its reifier, each time the reifier states.
        rows_of, times_of = per.of(by_status), times.of(by_status)
        weights = np.bincount(numbers, weights=rows_of * np.maximum(times_of, 1), minlength=len(names))
        bare = np.bincount(numbers, weights=np.where(times_of == 0, rows_of, 0), minlength=len(names))
        for name, number in names.items():
            if weights[number]:
                found[name[1:-1].decode()] += int(weights[number])
            if bare[number]:
                untimed[name[1:-1].decode()] += int(bare[number])
        # A row whose reifier states none is asserted here: no triple term, or an edge seen asserted.
        own = times.of(subjects[unstated])
        if len(own):
            found[_ASSERTED_TRUE] += int(np.maximum(own, 1).sum())
        if (own == 0).any():
            untimed[_ASSERTED_TRUE] += int((own == 0).sum())
        return found, untimed
