"""The census of N-Triples files read from their text, beside the store's bulk load of them.

Counting the store back after the load decodes every term again, about as long as the
load took to write them. Where the files are N-Triples spelt as the store's own writer
spells them, their lines are the text `census_scan.Scan` counts, read while pyoxigraph
loads the same files without the GIL: `bfsql load` then takes about as long as the
longer of the two. What cannot be told from the text alone (a line spelt otherwise, a
repeated line, which the store holds once) sends the census back to the store.
"""

from __future__ import annotations

import gzip
import os
import re
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import chain
from operator import itemgetter
from pathlib import Path
from typing import IO

import numpy as np

from gateway.engine.census_reifiers import Reifications
from gateway.engine.census_scan import CHUNK, Row, Scan, Source, Types
from gateway.engine.census_tables import BUCKETS, Hashes, Members, Tally, buckets, hashes
from gateway.terms import RDF

_IRI = rb'<[^<>"{}|^`\\\x00-\x20]*>'
_BLANK = rb"_:[^ \n]+"
_LITERAL = rb'"(?:[^"\\\n\r]|\\.)*"(?:@[a-z]+(?:-[a-z0-9]+)*(?:--(?:ltr|rtl))?|\^\^' + _IRI + rb")?"
_TERM = b"|".join((_IRI, _BLANK, _LITERAL))
_STRICT = re.compile(rb"^(" + _IRI + b"|" + _BLANK + rb") (" + _IRI + rb") (" + _TERM
                     + rb"|<<\( (?:" + _IRI + b"|" + _BLANK + rb") " + _IRI + rb" (?:" + _TERM + rb") \)>>) \.$", re.MULTILINE)
"""An N-Triples line as the store's own writer spells it (single spaces, no comment, no
escape in an IRI, lower-case language tags, a triple term one level deep): what it holds
then hashes as the store's text of the same terms would."""
_TYPE_LINE = re.compile(rb"^(<[^<][^ ]*>|_:[^ ]+) <" + re.escape(RDF.encode()) + rb"type> (.*) \.$", re.MULTILINE)
_TYPE_SEARCH = re.compile(re.escape(f" <{RDF}type> ".encode())).search
_REIFIES_MARK = f" <{RDF}reifies> ".encode()
_REIFIES_SEARCH = re.compile(re.escape(_REIFIES_MARK)).search
_REIFIES_LINE = re.compile(rb"^(<[^<][^ ]*>|_:[^ ]+) <" + re.escape(RDF.encode()) + rb"reifies> (.*) \.$", re.MULTILINE)
_NAMED_LINE = re.compile(rb"^(?:<<\( (<[^>\n]*>) (<[^>\n]*>) (<[^>\n]*>) \)>>$|.*$)", re.MULTILINE)
"""A line that is a triple term of three IRIs, in three groups; any other line, in none."""
_STRING_TYPED = b'"^^<http://www.w3.org/2001/XMLSchema#string>'
"""A string written with its datatype: the store writes it without, so its text differs."""


class Stopped(Exception):
    """The load the file census ran beside failed: its counts are not wanted."""


class FileSource(Source):
    """N-Triples files (plain or gzip) read as text while the store loads the same files:
    the types and reifiers in a first pass, every line in a second. Their counts are the
    store's only where every line is spelt as the store writes it (`canonical`) and the
    store holds one quad a distinct line (`lines`, `repeats`); the caller checks."""

    distinct_types = True

    def __init__(self, paths: Sequence[Path], stop: Callable[[], bool] = lambda: False,
                 reading: set[int] | None = None) -> None:
        self._paths, self._stop = list(paths), stop
        self.reading = set() if reading is None else reading
        """The descriptors of the files it has open: a progress bar following the store's
        own read of the same files tells them apart by these."""
        self.lines = 0
        """Non-empty lines read by the second pass."""
        self.repeats = 0
        """Of those, the lines read before: the store holds each quad once."""
        self.canonical = True
        self.reifications = Reifications()
        """The rdf:reifies lines, as `census._reifiers` tells them (a line said twice once)."""
        self._namespaces_found: Counter[bytes] = Counter()
        self._lines = _LineHashes()
        self._file = 0
        """The index of the file being read."""

    def types(self, types: Types) -> None:
        for text in self._chunks():
            lines = _nonempty(text)
            self._lines.add(self._hashes(lines))
            # A regular expression tried at each line costs as much as the whole second pass:
            # only the lines naming the predicate (found by a search in C) are handed to it.
            rows: list[tuple[bytes, bytes]] = _TYPE_LINE.findall(b"\n".join(filter(_TYPE_SEARCH, lines)))
            named = [row for row in rows if row[0][:1] == b"<"]
            types.rows(named)
            if len(named) < len(rows):  # a class of blank nodes is a type too
                types.others.update(kind for subject, kind in rows if subject[:1] != b"<")
            if _REIFIES_MARK in text:
                self._reifying(_REIFIES_LINE.findall(b"\n".join(filter(_REIFIES_SEARCH, lines))))
        repeated = self._lines.repeated()
        self.repeats = sum(repeated.values())
        self._repeated = Members.of_hashes(np.fromiter(repeated, dtype=np.int64, count=len(repeated)))

    def _reifying(self, rows: list[tuple[bytes, bytes]]) -> None:
        """The rdf:reifies lines' (subject, object) to `reifications`: each keyed by its
        text (`_hashes`), its triple read where it is an edge between IRIs."""
        if not rows:
            return
        values = [value for _, value in rows]
        # One match a value: its three IRIs where it is such a triple term, nothing where not.
        named = _NAMED_LINE.findall(b"\n".join(values))
        self.reifications.add_rows(self._hashes(list(map(b" ".join, rows))), [subject for subject, _ in rows],
                                   [value[:2] == b"<<" for value in values],
                                   [b" ".join(triple) if triple[0] else None for triple, _ in zip(named, values, strict=True)])

    def quads(self, scan: Scan, *, types_read: bool) -> None:
        seen: set[int] = set()
        for text, keys in zip(self._chunks(), self._lines.in_order(), strict=True):
            rows: list[Row] = _STRICT.findall(text)
            self.lines += len(keys)  # the chunk's non-empty lines, hashed by the first pass
            if len(rows) != len(keys) or _STRING_TYPED in text:
                self.canonical = False
                return  # counted from the store instead
            if len(self._repeated):
                rows = _first_times(rows, keys, self._repeated, seen)
            scan.rows([row for row in rows if row[0][:1] == b"<"])
            self._namespaces(rows, scan.known.non_edges)

    def _hashes(self, lines: list[bytes]) -> Hashes:
        """Each line's hash; a line with a blank node is its file's own (each file's blank
        nodes are the store's distinct nodes, however labelled), where there are several."""
        if len(self._paths) == 1 or _BLANK_MARK not in b"\n".join(lines):
            return hashes(lines)
        return np.array([hash((self._file, line)) if b"_:" in line else hash(line) for line in lines], dtype=np.int64)

    def _namespaces(self, rows: list[Row], non_edges: frozenset[bytes]) -> None:
        """Count the IRIs of these lines by namespace key, but the ends of edge triples
        (an IRI subject and object, a predicate that is a relationship): the degrees'
        `Tally` counts those, keyed once an IRI at the end (`namespace_keys`), not once a
        chunk it is in."""
        others = [row for row in rows if row[1] in non_edges or row[0][0] != 60 or row[2][0] != 60 or row[2][1] == 60]
        tokens = Counter(chain(map(itemgetter(1), rows), map(itemgetter(0), others), map(itemgetter(2), others)))
        _count_keys(tokens.items(), self._namespaces_found)

    def namespace_keys(self, degrees: Tally) -> Counter[str]:
        """Each `namespaces.namespace_key` -> the IRIs in it, once for each line that holds
        them, as `NamespaceFinder.add_quads` counts them over the store; `degrees`: the
        tally the pass counted the edges' ends in."""
        found = Counter(self._namespaces_found)
        for _, counts, tokens in degrees.items():
            edged = np.flatnonzero(counts)  # an entity told by its type alone is at no edge's end
            _add_keys([tokens[i] for i in edged.tolist()], counts[edged].tolist(), found)
        return Counter({key.decode(): n for key, n in found.items() if n})

    def _chunks(self) -> Iterator[bytes]:
        for n, path in enumerate(self._paths):
            self._file = n
            with gzip.open(path, "rb") if path.suffix.lower() == ".gz" else path.open("rb") as handle:
                descriptor = handle.fileno()
                self.reading.add(descriptor)
                try:
                    rest = b""
                    while block := handle.read(CHUNK):
                        if self._stop():
                            raise Stopped
                        text = rest + block
                        cut = text.rfind(b"\n") + 1
                        rest = text[cut:]
                        yield text[:cut]
                    if rest:
                        yield rest
                finally:
                    self.reading.discard(descriptor)


_KEY = re.compile(rb"^<(?:([^>\n]*[/#:](?:[A-Za-z][A-Za-z0-9]*_)?)[^/#:>\n]*|([^>\n]*))>$", re.MULTILINE)
"""An IRI's `namespaces.namespace_key` (its first group; the second where it has no `/`, `#` or `:`)."""
_XSD_STRING_IRI = b"<http://www.w3.org/2001/XMLSchema#string>"
_LANG_IRI, _DIR_LANG_IRI = f"<{RDF}langString>".encode(), f"<{RDF}dirLangString>".encode()
_INSIDE = re.compile(rb"<<\( (\S+) (<[^>]*>) (.*) \)>>")
_SIMPLE_TERM = re.compile(rb"^(?:<<\( (?:(<[^>\n]*>)|_:[^ \n]+) (<[^>\n]*>) (<[^>\n]*>) \)>>$|.*$)", re.MULTILINE)
"""A line that is a triple term of IRIs (a blank subject's left out), in three groups; any other, in none."""


def _count_keys(tokens: Iterable[tuple[bytes, int]], found: Counter[bytes]) -> None:
    """Add each term's count (its text, once) to the namespace keys of the IRIs it holds."""
    iris: list[bytes] = []
    counts: list[int] = []
    once: list[bytes] = []  # triple terms said once: their IRIs are counted together first
    for token, n in tokens:
        if token[:1] == b"<" and token[1:2] != b"<":
            iris.append(token)
            counts.append(n)
        elif token[:2] == b"<<" and n == 1:
            once.append(token)
        elif token[:1] != b"_":  # a literal's datatype, a triple term's IRIs; a blank node holds none
            for iri in _object_iris(token):
                iris.append(iri)
                counts.append(n)
    if once:  # most reify an edge: their subjects, predicates and objects repeat
        parts = _SIMPLE_TERM.findall(b"\n".join(once))
        inner = Counter(chain.from_iterable(parts))
        inner.pop(b"", None)  # a blank subject, or a term read below
        for (_, predicate, _), token in zip(parts, once, strict=True):
            if not predicate:
                inner.update(_object_iris(token))
        iris += inner
        counts += inner.values()
    _add_keys(iris, counts, found)


def _add_keys(iris: list[bytes], counts: list[int], found: Counter[bytes]) -> None:
    """Add these counts to the namespace keys of these IRIs (as `<...>` text), cut by one
    regular expression."""
    for (cut, whole), n in zip(_KEY.findall(b"\n".join(iris)), counts, strict=True):
        found[cut or whole] += n


def _object_iris(value: bytes) -> list[bytes]:
    """The IRIs an object holds (`terms.term_iris`), as `<...>` text: itself, a literal's
    datatype, those of a triple term (one level deep: the lines read are checked so)."""
    first = value[:1]
    if first == b'"':
        suffix = value[value.rfind(b'"') + 1:]
        if not suffix:
            return [_XSD_STRING_IRI]
        if suffix[:1] == b"@":
            return [_DIR_LANG_IRI if b"--" in suffix else _LANG_IRI]
        return [suffix[2:]]
    if first != b"<":
        return []  # a blank node
    if value[1:2] != b"<":
        return [value]
    inside = _INSIDE.fullmatch(value)
    assert inside is not None  # what _STRICT let through
    subject, predicate, rest = inside.groups()
    return [*([subject] if subject[:1] == b"<" else []), predicate, *_object_iris(rest)]


def _first_times(rows: list[Row], keys: Hashes, repeated: Members, seen: set[int]) -> list[Row]:
    """These lines (`keys`: their hashes) but those read before: the store holds each quad once."""
    at = np.flatnonzero(repeated.of(keys))
    if not len(at):
        return rows
    dropped = set()
    for i, key in zip(at.tolist(), keys[at].tolist(), strict=True):
        if key in seen:
            dropped.add(i)
        seen.add(key)
    return [row for i, row in enumerate(rows) if i not in dropped] if dropped else rows


class _LineHashes:
    """Every line's hash, a chunk at a time: read back in order (`in_order`), and to find
    the lines repeated; put on disk (in order, and in hash buckets) past a few megabytes,
    so that memory stays flat whatever the number of lines."""

    _HELD = 1 << 20

    def __init__(self) -> None:
        self._pending: list[Hashes] = []
        self._size = 0
        self._spill: tempfile.TemporaryDirectory[str] | None = None
        self._files: list[IO[bytes]] = []
        self._chunks: list[Hashes] = []
        self._order: IO[bytes] | None = None

    def add(self, keys: Hashes) -> None:
        self._pending.append(keys)
        self._size += len(keys)
        if self._order is not None:
            np.save(self._order, keys)
        else:
            self._chunks.append(keys)
        if self._size > self._HELD:
            self._write()

    def in_order(self) -> Iterator[Hashes]:
        """Each chunk's hashes, as added."""
        if self._order is None:
            yield from self._chunks
            return
        self._order.seek(0)
        end = os.fstat(self._order.fileno()).st_size
        while self._order.tell() < end:
            yield np.load(self._order)

    def repeated(self) -> dict[int, int]:
        """Each hash read more than once -> how many times more."""
        if self._spill is None:
            return _repeats(np.concatenate(self._pending) if self._pending else np.zeros(0, dtype=np.int64))
        self._write()
        found: dict[int, int] = {}
        for handle in self._files:
            handle.seek(0)
            parts = []
            end = os.fstat(handle.fileno()).st_size
            while handle.tell() < end:
                parts.append(np.load(handle))
            found.update(_repeats(np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)))
            handle.truncate(0)  # read once
        return found

    def _write(self) -> None:
        if self._spill is None:
            self._spill = tempfile.TemporaryDirectory(prefix="bfsql-lines-")
            self._files = [open(Path(self._spill.name) / str(n), "w+b") for n in range(BUCKETS)]  # noqa: SIM115
            self._order = open(Path(self._spill.name) / "order", "w+b")  # noqa: SIM115
            for keys in self._chunks:
                np.save(self._order, keys)
            self._chunks = []
        keys = np.concatenate(self._pending) if self._pending else np.zeros(0, dtype=np.int64)
        self._pending, self._size = [], 0
        for n, picked in buckets(keys):
            np.save(self._files[n], keys[picked])


def _repeats(keys: Hashes) -> dict[int, int]:
    unique, counts = np.unique(keys, return_counts=True)
    more = counts > 1
    return dict(zip(unique[more].tolist(), (counts[more] - 1).tolist(), strict=True))


_BLANK_MARK = b"_:"


def _nonempty(text: bytes) -> list[bytes]:
    """The non-empty lines of whole lines of text."""
    lines = text.split(b"\n")
    if lines and not lines[-1]:
        lines.pop()
    # An empty line is looked for among the lines, not as "\n\n" in the text: a search for
    # two bytes goes a byte at a time (a tenth of a second a million lines).
    return [x for x in lines if x] if b"" in lines else lines
