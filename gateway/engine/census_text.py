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
import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from gateway.engine.census_scan import CHUNK, Row, Scan, Source, Take
from gateway.engine.namespaces import namespace_key
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
_TYPE_LINE = re.compile(rb"^(<[^<][^ ]*>) <" + re.escape(RDF.encode()) + rb"type> (.*) \.$", re.MULTILINE)
_REIFIES_LINE = re.compile(rb"^(<[^<][^ ]*>|_:[^ ]+) <" + re.escape(RDF.encode()) + rb"reifies> (.*) \.$", re.MULTILINE)
_NAMED_TRIPLE = re.compile(rb"<<\( (<[^>]*>) (<[^>]*>) (<[^>]*>) \)>>")
_STRING_TYPED = b'"^^<http://www.w3.org/2001/XMLSchema#string>'
"""A string written with its datatype: the store writes it without, so its text differs."""


class Stopped(Exception):
    """The load the file census ran beside failed: its counts are not wanted."""


class FileSource(Source):
    """N-Triples files (plain or gzip) read as text while the store loads the same files:
    the types and reifiers in a first pass, every line in a second. Their counts are the
    store's only where every line is spelt as the store writes it (`canonical`) and the
    store holds one quad a line (`lines`: a repeated line is one quad); the caller checks."""

    def __init__(self, paths: Sequence[Path], stop: Callable[[], bool] = lambda: False) -> None:
        self._paths, self._stop = list(paths), stop
        self.lines = 0
        """Non-empty lines read by the second pass."""
        self.canonical = True
        self.reifiers: list[bytes] = []
        """IRI subjects of rdf:reifies, as `census._reifiers` tells them."""
        self.reified: Counter[bytes] = Counter()
        """Each reified triple between IRIs (`s p o`) -> its reifiers."""
        self.namespace_keys: Counter[str] = Counter()
        """Each `namespaces.namespace_key` -> the IRIs in it, once for each line that holds
        them, as `NamespaceFinder.add_quads` counts them over the store."""
        self._keys: dict[bytes, str] = {}

    def types(self, take: Take) -> None:
        for text in self._chunks():
            rows: list[tuple[bytes, bytes]] = _TYPE_LINE.findall(text)
            if rows:
                take(b"\n".join(subject + b"\t" + kind for subject, kind in rows))
            for subject, value in _REIFIES_LINE.findall(text):
                if subject[:1] == b"<":
                    self.reifiers.append(subject)
                triple = _NAMED_TRIPLE.fullmatch(value)
                if triple is not None:
                    self.reified[b" ".join(triple.groups())] += 1

    def quads(self, scan: Scan, *, types_read: bool) -> None:
        for text in self._chunks():
            rows: list[Row] = _STRICT.findall(text)
            lines = _lines(text)
            self.lines += lines
            if len(rows) != lines or _STRING_TYPED in text:
                self.canonical = False
                return  # counted from the store instead
            scan.rows([row for row in rows if row[0][:1] == b"<"])
            self._namespaces(rows)

    def _namespaces(self, rows: list[Row]) -> None:
        """Count the IRIs of these lines by namespace key: terms counted first (predicates,
        datatypes, classes and hubs repeat), each key found once and remembered a while."""
        iris: Counter[bytes] = Counter(row[1] for row in rows)
        iris.update(row[0] for row in rows if row[0][:1] == b"<")
        for value in (row[2] for row in rows):
            iris.update(_object_iris(value))
        keys, found = self._keys, self.namespace_keys
        if len(keys) > _KEYS_REMEMBERED:
            keys.clear()
        for iri, n in iris.items():
            key = keys.get(iri)
            if key is None:
                key = keys[iri] = namespace_key(iri[1:-1].decode())
            found[key] += n

    def _chunks(self) -> Iterator[bytes]:
        for path in self._paths:
            with gzip.open(path, "rb") if path.suffix.lower() == ".gz" else path.open("rb") as handle:
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


_KEYS_REMEMBERED = 200_000
_XSD_STRING_IRI = b"<http://www.w3.org/2001/XMLSchema#string>"
_LANG_IRI, _DIR_LANG_IRI = f"<{RDF}langString>".encode(), f"<{RDF}dirLangString>".encode()
_INSIDE = re.compile(rb"<<\( (\S+) (<[^>]*>) (.*) \)>>")


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


def _lines(text: bytes) -> int:
    """The non-empty lines of whole lines of text."""
    ends = text.count(b"\n") + (text[-1:] not in (b"", b"\n"))
    return ends - text.count(b"\n\n") - text.startswith(b"\n")


