"""RDF files as the gateway reads them: the syntax each is in (its extension, or one named
with `--rdf-format`), the files of a folder, and a parser's error at its real position."""

from __future__ import annotations

import difflib
import gzip
import io
import mimetypes
import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from shlex import quote
from xml.parsers import expat

import pyoxigraph as ox

from gateway.errors import InvalidInput

FORMATS: dict[str, ox.RdfFormat] = {
    ".ttl": ox.RdfFormat.TURTLE,
    ".turtle": ox.RdfFormat.TURTLE,
    ".trig": ox.RdfFormat.TRIG,
    ".nt": ox.RdfFormat.N_TRIPLES,
    ".ntriples": ox.RdfFormat.N_TRIPLES,
    ".nq": ox.RdfFormat.N_QUADS,
    ".nquads": ox.RdfFormat.N_QUADS,
    ".n3": ox.RdfFormat.N3,
    ".rdf": ox.RdfFormat.RDF_XML,
    ".owl": ox.RdfFormat.RDF_XML,
    ".jsonld": ox.RdfFormat.JSON_LD,
}
SYNTAXES: dict[str, ox.RdfFormat] = {
    "turtle": ox.RdfFormat.TURTLE, "trig": ox.RdfFormat.TRIG, "ntriples": ox.RdfFormat.N_TRIPLES,
    "nquads": ox.RdfFormat.N_QUADS, "n3": ox.RdfFormat.N3, "rdfxml": ox.RdfFormat.RDF_XML,
    "jsonld": ox.RdfFormat.JSON_LD,
}
"""The names `--rdf-format` takes (an extension such as `ttl` or a media type names one too)."""


def rdf_format(path: Path, given: ox.RdfFormat | None = None) -> ox.RdfFormat:
    """The syntax `given`, else the one the file's extension names (before any `.gz`)."""
    fmt = given or _extension_format(path)
    if fmt is None:
        known = ", ".join(sorted(FORMATS))
        raise InvalidInput(f"{path.name}: no RDF syntax has this extension (known: {known}); name the file's "
                           f"syntax with --rdf-format ({', '.join(SYNTAXES)})", field="path")
    return fmt


def named_rdf(path: Path) -> bool:
    """Whether the file's extension names an RDF syntax."""
    return _extension_format(path) is not None


def _extension_format(path: Path) -> ox.RdfFormat | None:
    suffixes = [s.lower() for s in path.suffixes if s.lower() != ".gz"]
    return FORMATS.get(suffixes[-1]) if suffixes else None


def syntax_named(name: str) -> ox.RdfFormat:
    """The RDF syntax a name (`turtle`, `n-triples`), an extension (`ttl`) or a media type names."""
    key = name.strip().lower()
    squeezed = key.replace("-", "").replace("/", "").replace("_", "")
    fmt = SYNTAXES.get(squeezed) or FORMATS.get("." + key.lstrip("."))
    if fmt is None and "/" in key:
        fmt = ox.RdfFormat.from_media_type(key)
    if fmt is None:
        near = difflib.get_close_matches(squeezed, list(SYNTAXES), n=1)
        hint = f" (did you mean {near[0]}?)" if near else ""
        raise InvalidInput(f"rdf_format: {name[:40]!r} names no RDF syntax{hint}; one of {', '.join(SYNTAXES)}",
                           field="rdf_format")
    return fmt



def rdf_sources(paths: Sequence[Path], given: ox.RdfFormat | None = None) -> list[tuple[Path, ox.RdfFormat]]:
    """Each file with its syntax: a file named is read as `given`, else as its extension
    says; a folder's files (not those in its subfolders, nor hidden ones) are those whose
    extension names a syntax, and with `given`, also those whose extension names none and
    that are not known to be something else (`FolderContents`)."""
    found: list[tuple[Path, ox.RdfFormat]] = []
    for path in paths:
        if path.is_dir():
            found += _folder_files(path, given)
        elif path.is_file():
            found.append((path, rdf_format(path, given)))
        else:
            raise InvalidInput(f"{path}: no such file or folder", field="path")
    return found


# A file of these media types may hold RDF under another name (`notes.txt` of N-Triples,
# `graph.json` of JSON-LD): `--rdf-format` reads it. A file of any other type the system
# knows (`.py`, `.csv`, `.png`) holds no RDF, and is passed over even with `--rdf-format`.
_MAYBE_RDF_TYPES = frozenset({"text/plain", "application/json", "application/xml", "text/xml",
                              "application/octet-stream"})
_LISTED = 4
"""Names a line lists of each kind before it counts the rest."""


@dataclass(frozen=True)
class FolderContents:
    """What reading a folder makes of each thing in it."""

    read: list[tuple[Path, ox.RdfFormat]]
    unnamed: list[Path]
    """Files whose extension names no RDF syntax, left out (`--rdf-format` reads them)."""
    foreign: list[Path]
    """Files of a type that is not RDF (`mimetypes` knows their extension), left out."""
    folders: list[Path]
    """Subfolders, not read."""

    @classmethod
    def of(cls, folder: Path, given: ox.RdfFormat | None) -> FolderContents:
        entries = sorted(p for p in folder.iterdir() if not p.name.startswith("."))
        read: list[tuple[Path, ox.RdfFormat]] = []
        unnamed: list[Path] = []
        foreign: list[Path] = []
        for path in (p for p in entries if p.is_file()):
            named = _extension_format(path)
            if named is not None:
                read.append((path, named))
            elif not _may_hold_rdf(path):
                foreign.append(path)
            elif given is not None:
                read.append((path, given))
            else:
                unnamed.append(path)
        return cls(read, unnamed, foreign, [p for p in entries if p.is_dir()])

    def left_out(self) -> str | None:
        """What was not read, in one line; None when everything was."""
        parts = []
        if len(self.unnamed) == 1:
            parts.append(f"{_names(self.unnamed)}: no RDF syntax has its extension; name it with --rdf-format "
                         f"({', '.join(SYNTAXES)})")
        elif self.unnamed:  # --rdf-format would read them all: one of them may be no RDF at all
            folder, first = self.unnamed[0].parent, self.unnamed[0]
            parts.append(f"{_names(self.unnamed)}: no RDF syntax has their extension; --rdf-format NAME reads them all "
                         f"as that syntax ({', '.join(SYNTAXES)}); to read only some, add them to a store by turns: "
                         f"`bfsql load {quote(str(folder))} --store DIR`, then `bfsql load {quote(str(first))} "
                         "--rdf-format NAME --store DIR` and so on")
        if self.foreign:
            parts.append(f"{_names(self.foreign)}: not RDF")
        if self.folders:
            parts.append(f"{_names(self.folders, '/')}: subfolders are not read; give each as well")
        return "; ".join(parts) or None


def _may_hold_rdf(path: Path) -> bool:
    media_type, _ = mimetypes.guess_type(path.name)
    return media_type is None or media_type in _MAYBE_RDF_TYPES


def _names(paths: Sequence[Path], mark: str = "") -> str:
    shown = ", ".join(p.name + mark for p in paths[:_LISTED])
    return shown + (f" and {len(paths) - _LISTED} more" if len(paths) > _LISTED else "")


def left_out(paths: Sequence[Path], given: ox.RdfFormat | None = None) -> list[str]:
    """For each folder among `paths`, the line saying what in it is not read (`FolderContents`)."""
    lines = []
    for path in paths:
        if path.is_dir() and (line := FolderContents.of(path, given).left_out()):
            lines.append(f"{path}: left out {line}")
    return lines


def _folder_files(folder: Path, given: ox.RdfFormat | None) -> list[tuple[Path, ox.RdfFormat]]:
    contents = FolderContents.of(folder, given)
    if not contents.read:
        what = contents.left_out()
        raise InvalidInput(
            f"{folder}: neither a store directory (`bfsql load FILE... --store DIR` makes one) nor a folder of RDF "
            f"files ({', '.join(sorted(FORMATS))}, optionally .gz); " + (f"it holds {what}" if what else "it is empty"),
            field="path")
    return contents.read


_PARSER_PREFIX = re.compile(r"^Parser error (?:at|between) [^:]*: ")
_LENIENT_ACCEPTS = re.compile(r"Invalid IRI|IRI code point|subtag|language tag", re.I)
"""What a lenient parse lets through (pyoxigraph 0.5): IRIs it does not check, language tags."""
_BAD_IRI = re.compile(r"Invalid IRI|IRI code point", re.I)
_SHOWN = 80
_REASON = 240
"""Characters of the parser's own words a message keeps (it may quote a whole file)."""
"""Characters of an offending IRI a message quotes."""


def syntax_error_text(path: Path, error: SyntaxError, *, lenient: bool, fmt: ox.RdfFormat | None = None) -> str:
    """The parser's error at its real position: `file: line L column C: what`, with the
    IRI it refused, the hint of a lenient load only where a lenient load takes what was
    refused, and the syntax the file was read as where `--rdf-format` chose it (`fmt`
    other than its extension's).

    pyoxigraph's lenient parse takes a line break inside a "short" string, but does not
    count it: the column of a later error then runs on from the string's line (line 3000
    column 850 on a line of 40 characters). Its column counts characters from that line's
    start, line breaks included, so the real position is found by reading that far. Its
    RDF/XML reader gives no position: where the file is not well-formed XML, expat's is."""
    reason = _PARSER_PREFIX.sub("", str(error.args[0]) if error.args else str(error))
    reason = " ".join(reason.split())  # one line: a reader may quote a file's text, line breaks and all
    if len(reason) > _REASON:
        reason = reason[: _REASON - 1] + "…"
    where = ""
    if isinstance(error.lineno, int) and isinstance(error.offset, int) and error.lineno > 0 and error.offset > 0:
        line, column = _real_position(path, error.lineno, error.offset)
        where = f"line {line} column {column}: "
        if line != error.lineno:
            reason += (f" (a lenient load reads a string on across line breaks: one opened on line {error.lineno} "
                       "may lack its closing quote)")
        elif _BAD_IRI.search(reason) and (iri := _span(path, error)):
            reason += f" in {iri}"
    elif fmt == ox.RdfFormat.RDF_XML and (place := _xml_error(path)):
        where = place
    hint = " (a lenient load, --lenient, may accept it)" if not lenient and _LENIENT_ACCEPTS.search(reason) else ""
    if fmt is not None and fmt != _extension_format(path):
        hint += f" (read as {_syntax_name(fmt)}, as --rdf-format says: is the file in that syntax?)"
    return f"{path.name}: {where}{reason}{hint}"


def _syntax_name(fmt: ox.RdfFormat) -> str:
    return next((name for name, known in SYNTAXES.items() if known == fmt), fmt.name)


def _span(path: Path, error: SyntaxError) -> str | None:
    """The text between the error's start and end on one line (the IRI a parser refused)."""
    end = getattr(error, "end_offset", None)
    if (getattr(error, "end_lineno", None) != error.lineno or not isinstance(end, int) or error.offset is None
            or error.lineno is None):
        return None
    text = _line(path, error.lineno)
    if text is None:
        return None
    span = text[error.offset - 1: end - 1]
    return span if len(span) <= _SHOWN else span[: _SHOWN - 1] + "…"


def _line(path: Path, number: int) -> str | None:
    try:
        with gzip.open(path, "rb") if path.suffix.lower() == ".gz" else open(path, "rb") as handle:
            for _ in range(number - 1):
                if not handle.readline():
                    return None
            return handle.readline().decode("utf-8", errors="replace")
    except (OSError, EOFError, zlib.error):
        return None


def _xml_error(path: Path) -> str | None:
    """`line L column C: ` where expat finds the file is not well-formed XML; None if it is."""
    parser = expat.ParserCreate()
    try:
        with gzip.open(path, "rb") if path.suffix.lower() == ".gz" else open(path, "rb") as handle:
            parser.ParseFile(handle)
    except expat.ExpatError as failed:
        what = re.sub(r"^not well-formed \((.*)\)$", r"\1", expat.ErrorString(failed.code) or "")
        return f"line {failed.lineno} column {failed.offset + 1}: not well-formed XML ({what}); "
    except (OSError, EOFError, zlib.error):
        return None
    return None


def _real_position(path: Path, line: int, column: int) -> tuple[int, int]:
    """(line, column), both from 1, of the character `column - 1` characters after the start
    of line `line`, line breaks counted as characters (what pyoxigraph's position means)."""
    try:
        with gzip.open(path, "rb") if path.suffix.lower() == ".gz" else open(path, "rb") as handle:
            for _ in range(line - 1):  # lines end at "\n" alone, as the parser's do
                if not handle.readline():
                    return line, column  # the file changed: keep the parser's word
            ahead = io.TextIOWrapper(handle, encoding="utf-8", errors="replace", newline="").read(column - 1)
    except (OSError, EOFError, zlib.error):
        return line, column
    breaks = ahead.count("\n")
    return (line, column) if not breaks else (line + breaks, len(ahead) - ahead.rfind("\n"))


def first_places(paths: Sequence[Path], iris: Sequence[str]) -> dict[str, str]:
    """Where each IRI is first written as `<IRI>` in `paths` (`file line L column C`): the
    place of an IRI a lenient load kept. An IRI written otherwise (relative, prefixed,
    escaped, in RDF/XML or JSON-LD) has none."""
    places: dict[str, str] = {}
    wanted = {f"<{iri}>".encode(): iri for iri in iris}
    for path in paths:
        try:
            with gzip.open(path, "rb") if path.suffix.lower() == ".gz" else open(path, "rb") as handle:
                for number, line in enumerate(handle, 1):
                    for written, iri in list(wanted.items()):
                        if (at := line.find(written)) >= 0:
                            column = len(line[:at].decode("utf-8", errors="replace")) + 1
                            places[iri] = f"{path.name} line {number} column {column}"
                            del wanted[written]
                    if not wanted:
                        return places
        except (OSError, EOFError, zlib.error):
            continue
    return places
