"""What a parse error or a lenient load says about a real file: the position pyoxigraph
itself reports, the IRI it refused as the file writes it, the syntax `--rdf-format` chose,
and, for IRIs a lenient load kept, which and where. Wikidata's Q42 export, with spaces
put into some of its IRIs as a careless export would."""

from __future__ import annotations

import re
from pathlib import Path

import pyoxigraph as ox
import pytest

from gateway import Gateway, InvalidInput
from gateway.backends.embedded import EmbeddedBackend
from tests.conftest import shared_data

BROKEN_LINES = (51, 59)
"""Lines of Q42.ttl that start with a Wikipedia article's IRI, given a space here."""


def spaced(tmp_path: Path, lines: tuple[int, ...] = BROKEN_LINES) -> Path:
    """Q42.ttl with a space put into the IRI that starts each of `lines`."""
    text = shared_data("wikidata", "Q42.ttl").read_text(encoding="utf-8").split("\n")
    for number in lines:
        assert text[number - 1].startswith("<https://")
        text[number - 1] = text[number - 1].replace("/wiki/", "/wiki/A B", 1)
    path = tmp_path / "q42.ttl"
    path.write_text("\n".join(text), encoding="utf-8")
    return path


def refusal(path: Path, fmt: ox.RdfFormat) -> SyntaxError:
    """pyoxigraph's own error on the file: the oracle of every position said."""
    with pytest.raises(SyntaxError) as caught:
        list(ox.parse(path=str(path), format=fmt))
    return caught.value


def test_a_strict_iri_error_points_at_the_iri_and_quotes_it(tmp_path: Path) -> None:
    path = spaced(tmp_path)
    oracle = refusal(path, ox.RdfFormat.TURTLE)
    with pytest.raises(InvalidInput) as caught:
        Gateway.open(path)
    text = caught.value.message
    assert f"line {oracle.lineno} column {oracle.offset}:" in text
    line = path.read_text(encoding="utf-8").split("\n")[oracle.lineno - 1]  # type: ignore[operator]
    iri = re.match(r"<[^>]*>", line[oracle.offset - 1:])  # type: ignore[operator]
    assert iri and f"in {iri.group(0)}" in text and "--lenient" in text


def test_a_lenient_load_names_the_iris_it_kept_and_where(tmp_path: Path) -> None:
    path = spaced(tmp_path)
    backend = EmbeddedBackend.open(path, lenient=True)
    lines = path.read_text(encoding="utf-8").split("\n")
    [warning] = [w for w in backend.load_warnings() if "IRI" in w]
    assert warning.startswith(f"kept {len(BROKEN_LINES)} IRI(s)")
    named = re.findall(r"<([^>]*)> \(q42\.ttl line (\d+) column (\d+)\)", warning)
    assert sorted(int(line) for _, line, _ in named) == list(BROKEN_LINES)
    for iri, line, column in named:
        written = lines[int(line) - 1][int(column) - 1:]
        assert written.startswith("<" + iri.replace("\\u0020", " ") + ">")


def test_a_lenient_load_counts_past_the_iris_it_names(tmp_path: Path) -> None:
    starts = [n + 1 for n, line in enumerate(shared_data("wikidata", "Q42.ttl").read_text().split("\n"))
              if line.startswith("<https://") and "/wiki/" in line][:8]
    backend = EmbeddedBackend.open(spaced(tmp_path, tuple(starts)), lenient=True)
    [warning] = [w for w in backend.load_warnings() if "IRI" in w]
    assert warning.startswith("kept 8 IRI(s)") and warning.endswith(" and 3 more")
    assert len(re.findall(r"\(q42\.ttl line \d+ column \d+\)", warning)) == 5


@pytest.mark.parametrize(("given", "fmt"), [("ntriples", ox.RdfFormat.N_TRIPLES), ("jsonld", ox.RdfFormat.JSON_LD)])
def test_a_wrong_rdf_format_is_said_with_the_position(tmp_path: Path, given: str, fmt: ox.RdfFormat) -> None:
    path = tmp_path / "q42.data"
    path.write_bytes(shared_data("wikidata", "Q42.ttl").read_bytes())
    oracle = refusal(path, fmt)
    from gateway.surfaces.sources import open_data

    with pytest.raises(InvalidInput) as caught:
        open_data([path], rdf_format=given)
    text = caught.value.message
    assert f"line {oracle.lineno} column {oracle.offset}:" in text
    assert f"read as {given}, as --rdf-format says" in text and "--lenient" not in text


def test_rdf_xml_that_is_not_xml_is_said_where_expat_stops(tmp_path: Path) -> None:
    """pyoxigraph's RDF/XML reader gives no position: expat's is the one said."""
    from xml.parsers import expat

    path = tmp_path / "q42.data"
    path.write_bytes(shared_data("wikidata", "Q42.ttl").read_bytes())
    parser = expat.ParserCreate()
    with pytest.raises(expat.ExpatError) as oracle:
        parser.Parse(path.read_bytes(), True)
    from gateway.surfaces.sources import open_data

    with pytest.raises(InvalidInput) as caught:
        open_data([path], rdf_format="rdfxml")
    assert f"line {oracle.value.lineno} column {oracle.value.offset + 1}: not well-formed XML" in caught.value.message
    assert "\n" not in caught.value.message
