"""What rdf:reifies says, for the census: its reifiers and the edge triples they reify, by hash."""

from __future__ import annotations

from array import array

import numpy as np

from gateway.engine.census_scan import Hashes, Lookup


class Reifications:
    """What rdf:reifies says, as hashes of the terms' text (26 bytes a row, where the terms'
    bytes in Python lists and counters took ~400): every row's key (`add`), its subject's
    hash where it is an IRI, and its triple's (`s p o`) where it is an edge between IRIs.
    `done` drops repeated rows (the same key: a line said twice, which the store holds once)."""

    def __init__(self) -> None:
        self._rows, self._subjects, self._triples = array("q"), array("q"), array("q")
        self._iri, self._named = bytearray(), bytearray()
        self._namespaces: set[bytes] = set()
        self.namespaces: frozenset[str] = frozenset()
        """`terms.namespace` of every IRI reifier, once `done`."""
        self.reifiers: Hashes = np.zeros(0, dtype=np.int64)
        """The IRI reifiers' hashes (one reifying two triples twice), once `done`."""
        self.reified = Lookup(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
        """An edge triple's hash -> how many reifiers it has, once `done`."""

    def add(self, row: int, subject: bytes, triple: bytes | None) -> None:
        """One row: its key, its subject's text and its triple's (`s p o`; None for another object)."""
        self._rows.append(row)
        iri = subject[:1] == b"<"
        self._iri.append(iri)
        if iri:
            self._namespaces.add(subject[1 : max(subject.rfind(b"/"), subject.rfind(b"#")) + 1])
        self._subjects.append(hash(subject))
        self._named.append(triple is not None)
        self._triples.append(hash(triple) if triple is not None else 0)

    def done(self) -> Reifications:
        rows = np.frombuffer(self._rows, dtype=np.int64)
        first = np.unique(rows, return_index=True)[1]
        iri = np.frombuffer(self._iri, dtype=np.bool_)[first]
        named = np.frombuffer(self._named, dtype=np.bool_)[first]
        self.reifiers = np.frombuffer(self._subjects, dtype=np.int64)[first][iri]
        triples, counts = np.unique(np.frombuffer(self._triples, dtype=np.int64)[first][named], return_counts=True)
        self.reified = Lookup(triples, counts.astype(np.int64), ordered=True)
        self.namespaces = frozenset(n.decode() for n in self._namespaces)
        self._rows, self._subjects, self._triples = array("q"), array("q"), array("q")
        self._iri, self._named = bytearray(), bytearray()
        return self

    def __bool__(self) -> bool:
        return bool(len(self.reifiers) or len(self.reified))
