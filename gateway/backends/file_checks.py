"""What is checked in an RDF file before pyoxigraph parses it: how deep it nests.

pyoxigraph builds, evaluates and drops nested terms by recursion, so nesting deep enough
overflows the stack of the thread doing it and the process dies without a word (SIGSEGV).
Measured with pyoxigraph 0.5.13 on 8 MiB stacks: triple terms nested 30,000 deep in
Turtle or N-Triples, or 20,000 deep in RDF/XML (`rdf:parseType="Triple"`), kill its
parser; 10,000 deep parse, but an aggregate over the predicates of such a file kills the
query (8,000 answered); JSON-LD objects nested 5,000 deep kill its parser (256 deep on a
256 KiB thread stack). `reifiers.start`'s thread parses the same file as the load, so
`check_files` runs before either starts (`CheckedFiles` is what both take): refusing a
file while that thread was already parsing it said the clear error, then the process
died all the same.

Real data nests two or three deep, so a file whose triple terms nest deeper than
`MAX_TRIPLE_TERM_DEPTH`, or whose JSON nests deeper than `MAX_JSON_DEPTH`, is refused,
naming the line. The Turtle-family and JSON scans read strings, IRIs and comments as
wholes, as the parser does, so brackets in them do not count; each skips in C to the
next bracket, so a file costs a Python step per bracket, and a Turtle-family file
without `<<` none. RDF/XML is read by expat, whose elements are the parser's, but only
when some `parseType` may be `Triple`.
"""

from __future__ import annotations

import gzip
import mmap
import re
import zlib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NewType
from xml.parsers import expat

import pyoxigraph as ox

from gateway.errors import InvalidInput

MAX_TRIPLE_TERM_DEPTH = 64
MAX_JSON_DEPTH = 128
"""Objects and arrays inside each other, the outermost counted (a JSON-LD document with a
`@graph` of nodes, each with a list of values, nests five deep)."""

CheckedFiles = NewType("CheckedFiles", tuple[tuple[Path, ox.RdfFormat], ...])
"""Files, with their syntaxes, that `check_files` read and passed: what a parse is given."""

_TURTLE_FAMILY = frozenset({ox.RdfFormat.TURTLE, ox.RdfFormat.TRIG, ox.RdfFormat.N3, ox.RdfFormat.N_TRIPLES,
                            ox.RdfFormat.N_QUADS})
_LINE_FORMATS = frozenset({ox.RdfFormat.N_TRIPLES, ox.RdfFormat.N_QUADS})
# Each match skips what cannot nest, then ends at a bracket (`open`, `close`), at a long
# string that does not end (`cut`) or at the end. Every character is skipped or ends a
# match: a match that failed would be tried again from each later position (quadratic).
# The skipped alternatives start with different characters and every loop is possessive,
# so nothing backtracks. What the parser refuses is skipped a character at a time: the
# parser stops there, so what the scan makes of the rest does not matter.
_TURTLE_TOKENS = re.compile(
    rb"""(?:[^<>"'\#\\]++
    | \"\"\"(?:[^"\\]|\\.|"(?!""))*+\"\"\" | '''(?:[^'\\]|\\.|'(?!''))*+'''
    | "(?!"")(?:[^"\\\n]|\\.)*+" | '(?!'')(?:[^'\\\n]|\\.)*+'
    | <[^<>\s]*+> | \#[^\n]*+
    | \\.?                          # a local name's escape (`ex:a\#b`), not a comment
    | <(?!<) | >(?!>) | "(?!"") | '(?!'')
    )*+(?:(?P<open><<)|(?P<close>>>)|(?P<cut>\"\"\"|''')|\Z)""",
    re.S | re.X,
)
# A JSON string holds no line break (the parser refuses one), so no string runs past a block.
_JSON_TOKENS = re.compile(rb"""(?:[^"\[\]{}]++|"(?:[^"\\\n]|\\[^\n])*+"|")*+(?:(?P<open>[\[{])|(?P<close>[\]}])|\Z)""")
_MAYBE_TRIPLE = re.compile(rb"""parseType\s*=\s*(?!(["'])(?:Resource|Literal|Collection)\1)""")
"""A `parseType` that may be `Triple` (a reference such as `&#84;riple` may spell it)."""
_BLOCK = 1 << 24
_CARRIED = 4 * _BLOCK
"""The most of a long string the scan carries into the next block (past it, the
string is read as if it were not one: counting what is in it can only refuse more), and
the longest line of a plain file read into a block (past it, the file is mapped)."""


def check_files(files: Iterable[tuple[Path, ox.RdfFormat]]) -> CheckedFiles:
    """Refuse, before anything parses them, files nesting deeper than pyoxigraph can take."""
    checked = tuple(files)
    for path, fmt in checked:
        with read_errors(path):
            if fmt in _TURTLE_FAMILY:
                # N-Triples and N-Quads have no long strings to start: a block without `<<` opens nothing.
                marks = (b"<<",) if fmt in _LINE_FORMATS else (b"<<", b'"""', b"'''")
                _scan(path, _TURTLE_TOKENS, MAX_TRIPLE_TERM_DEPTH, "triple terms", marks, whole=False)
            elif fmt == ox.RdfFormat.RDF_XML:
                # No attribute's name holds a line break; a value on the next line counts as `Triple`.
                if any(_MAYBE_TRIPLE.search(block) for block, _ in _blocks(path, whole=True)):
                    _scan_xml(path)
            elif fmt == ox.RdfFormat.JSON_LD:
                _scan(path, _JSON_TOKENS, MAX_JSON_DEPTH, "objects and arrays", None, whole=True)
    return CheckedFiles(checked)


@contextmanager
def read_errors(path: Path) -> Iterator[None]:
    """A file that cannot be read, or a .gz file that is not whole, as a one-line `InvalidInput`."""
    try:
        yield
    except (EOFError, gzip.BadGzipFile, zlib.error) as error:
        raise InvalidInput(f"{path.name}: not a whole gzip file ({error or 'it ends early'})", field="path") from None
    except OSError as error:
        raise InvalidInput(f"{path.name}: cannot be read ({error})", field="path") from None


def _too_deep(path: Path, line: int, what: str, limit: int) -> InvalidInput:
    return InvalidInput(f"{path.name}: line {line}: {what} nest deeper than {limit}; the gateway does not load such data",
                        field="path")


def _scan(path: Path, tokens: re.Pattern[bytes], limit: int, what: str, marks: tuple[bytes, ...] | None, *,
          whole: bool) -> None:
    """Refuse the file where the brackets `tokens` finds nest deeper than `limit`, read as
    `_blocks` reads it (`whole`; a plain file with a line longer than `_CARRIED` is then
    read again mapped whole). With `marks`, a block holding none of them is passed over in
    C: it opens nothing, and starts no string (a `>>` in it is not counted, which can only
    refuse more)."""
    try:
        _count(path, tokens, limit, what, marks, whole=whole)
    except _LongLine:
        _count(path, tokens, limit, what, marks, whole=True)


class _LongLine(Exception):
    """A plain file's line is longer than `_CARRIED`: read in blocks of lines, it would be
    held whole."""


def _count(path: Path, tokens: re.Pattern[bytes], limit: int, what: str, marks: tuple[bytes, ...] | None, *,
           whole: bool) -> None:
    depth = lines = 0
    carry = b""

    def read(data: bytes | mmap.mmap, last: bool) -> int | None:
        """Count `data`'s brackets; where a long string runs past its end, that string's start."""
        nonlocal depth
        for token in tokens.finditer(data):
            if token.lastgroup == "open":
                depth += 1
                if depth > limit:
                    raise _too_deep(path, lines + data[: token.start()].count(b"\n") + 1, what, limit)
            elif token.lastgroup == "close":
                depth = max(depth - 1, 0)
            elif token.lastgroup == "cut" and not last and len(data) - token.start() <= _CARRIED:
                return token.start()  # a block may end inside it: read again with the next one
        return None

    for block, last in _blocks(path, whole=whole):
        data = carry + block if carry else block
        cut = None
        if carry or marks is None or any(data.find(mark) >= 0 for mark in marks):
            cut = read(data, last)
        carry = b"" if cut is None else bytes(data[cut:])
        if isinstance(data, bytes):  # read in blocks: the next block's lines come after these
            lines += data.count(b"\n", 0, len(data) - len(carry))
    if carry:  # the file ends inside it: the parser stops there, and the scan reads on
        read(carry, True)


def _scan_xml(path: Path) -> None:
    """Refuse an RDF/XML file whose triple terms (`parseType="Triple"` inside each other) nest
    deeper than `MAX_TRIPLE_TERM_DEPTH`, or that is not well-formed XML (pyoxigraph's
    reader could find other elements in it than expat, so the count would not hold)."""
    parser = expat.ParserCreate()
    triples: list[bool] = []  # for each element open, whether it holds a triple term
    depth = 0

    def start(name: str, attributes: dict[str, str]) -> None:
        nonlocal depth
        triple = any(key.rpartition(":")[2] == "parseType" and value not in ("Resource", "Literal", "Collection")
                     for key, value in attributes.items())
        triples.append(triple)
        depth += triple
        if depth > MAX_TRIPLE_TERM_DEPTH:
            raise _too_deep(path, parser.CurrentLineNumber, "triple terms", MAX_TRIPLE_TERM_DEPTH)

    def end(name: str) -> None:
        nonlocal depth
        depth -= triples.pop()

    parser.StartElementHandler, parser.EndElementHandler = start, end
    with gzip.open(path, "rb") if path.suffix.lower() == ".gz" else open(path, "rb") as handle:
        try:
            parser.ParseFile(handle)
        except expat.ExpatError as error:
            raise InvalidInput(f"{path.name}: line {error.lineno}: not well-formed XML "
                               f"({expat.ErrorString(error.code)})", field="path") from None


def _blocks(path: Path, *, whole: bool) -> Iterator[tuple[bytes | mmap.mmap, bool]]:
    """The file's bytes, and whether they are its last: its lines in blocks of about 16 MiB,
    or, where `whole` (a JSON-LD or RDF/XML document may be one line) and not gzipped,
    mapped whole (a regex over it runs in C). Lines are read, not mapped, where they can
    be: a search over a mapped file makes every page of it resident in the process (a
    50M-triple N-Triples file put `bfsql load` at 3.8 GiB for its first seconds); but a
    plain file's line longer than `_CARRIED` is not read whole (`_LongLine` is raised):
    mapped pages go back to the file when memory runs short, a line read does not."""
    packed = path.suffix.lower() == ".gz"
    if packed or not whole:
        with gzip.open(path, "rb") if packed else open(path, "rb") as handle:
            block = handle.read(_BLOCK)
            while block:
                rest = handle.readline() if packed else handle.readline(_CARRIED)
                if len(rest) == _CARRIED and rest[-1:] != b"\n" and not packed:
                    raise _LongLine
                block += rest
                following = handle.read(_BLOCK)
                yield block, not following
                block = following
        return
    if path.stat().st_size == 0:
        return
    with open(path, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        yield mapped, True
