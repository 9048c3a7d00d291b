"""What is checked in an RDF file before pyoxigraph parses it: how deep triple terms nest.

RDF 1.2 lets a triple term hold another (`<<( s p <<( ... )>> )>>`); Oxigraph parses any
depth, but evaluating a query over terms nested some thousands deep overflows its stack
and kills the process without a word (measured: an aggregate over the predicates of a
Turtle file nested 10,000 deep, where 8,000 still answered). Real data nests two or
three deep, so a file nesting deeper than `MAX_TRIPLE_TERM_DEPTH` is refused, naming the
line, before it is loaded. The scan reads strings, IRIs and comments as wholes, so a
`<<` or `>>` inside one does not count; it runs in C over files without `<<` at all.
"""

from __future__ import annotations

import gzip
import mmap
import re
from collections.abc import Iterator
from pathlib import Path

import pyoxigraph as ox

from gateway.errors import InvalidInput

MAX_TRIPLE_TERM_DEPTH = 64
SCANNED = frozenset({ox.RdfFormat.TURTLE, ox.RdfFormat.TRIG, ox.RdfFormat.N3, ox.RdfFormat.N_TRIPLES,
                     ox.RdfFormat.N_QUADS})
"""The syntaxes that can write a triple term inside another."""
_TOKENS = re.compile(
    rb'"""(?:[^"\\]|\\.|"(?!""))*"""' rb"|'''(?:[^'\\]|\\.|'(?!''))*'''"
    rb'|"(?:[^"\\\n]|\\.)*"' rb"|'(?:[^'\\\n]|\\.)*'"
    rb"|(<<)|(>>)|<[^<>\s]*>|#[^\n]*",
    re.S,
)


def check_triple_terms(path: Path, fmt: ox.RdfFormat) -> None:
    """Refuse a file whose triple terms nest deeper than `MAX_TRIPLE_TERM_DEPTH`."""
    if fmt not in SCANNED:
        return
    depth = lines = 0
    for chunk in _chunks(path):
        if chunk.find(b"<<") >= 0:
            for token in _TOKENS.finditer(chunk):
                if token.group(1):
                    depth += 1
                    if depth > MAX_TRIPLE_TERM_DEPTH:
                        line = lines + chunk[: token.start()].count(b"\n") + 1
                        raise InvalidInput(f"{path.name}: line {line}: triple terms nest deeper than "
                                           f"{MAX_TRIPLE_TERM_DEPTH}; the gateway does not load such data", field="path")
                elif token.group(2):
                    depth = max(depth - 1, 0)
        if isinstance(chunk, bytes):  # a .gz file's block: the next one's lines come after it
            lines += chunk.count(b"\n")


def _chunks(path: Path) -> Iterator[bytes | mmap.mmap]:
    """The file's bytes: mapped whole (a regex over it runs in C), or a .gz file's lines in
    blocks of about 16 MiB (a string cut at a block's end is read as what it looks like)."""
    if path.suffix.lower() == ".gz":
        with gzip.open(path, "rb") as packed:
            while block := packed.read(1 << 24):
                yield block + packed.readline()
        return
    if path.stat().st_size == 0:
        return
    with open(path, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        yield mapped
