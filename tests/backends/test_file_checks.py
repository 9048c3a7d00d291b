"""Files nesting deeper than pyoxigraph can take are refused before anything parses them.

pyoxigraph's parser (and its queries) recurse over nested terms, so a file nested deep
enough kills the process with SIGSEGV. The load checked the file, but `reifiers.start`'s
thread had already begun parsing it: the clear error was said, then the process died,
in `bfsql load`, in `bfsql query --data` and in a program that caught the error. These
run in subprocesses, so such a death fails a test rather than the run.
"""

from __future__ import annotations

import gzip
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pyoxigraph as ox
import pytest

from gateway.backends.file_checks import MAX_TRIPLE_TERM_DEPTH
from gateway.errors import InvalidInput

X = "http://x.example/"
PREFIX = f"@prefix x: <{X}> .\n"
DEEP = 100_000


def _n_triples(depth: int, graph: str = "") -> str:
    return f"<{X}s> <{X}p> " + f"<<( <{X}a> <{X}b> " * depth + f"<{X}c>" + " )>>" * depth + f"{graph} .\n"


def _rdf_xml(depth: int) -> str:
    return ('<?xml version="1.0"?>\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" '
            f'xmlns:x="{X}" rdf:version="1.2">\n<rdf:Description rdf:about="{X}s">'
            + f'<x:p rdf:parseType="Triple"><rdf:Description rdf:about="{X}a">' * depth
            + f'<x:b rdf:resource="{X}c"/>' + "</rdf:Description></x:p>" * depth + "</rdf:Description></rdf:RDF>\n")


def _json_ld(depth: int) -> str:
    """`depth` objects inside each other, the outermost counted."""
    return '{"@context": {"x": "' + X + '"}, "@id": "x:s", ' + '"x:p": {"@id": "x:a", ' * (depth - 1) + '"x:b": 1' \
        + "}" * depth + "\n"


FORMS: dict[str, tuple[Callable[[int], str], int]] = {
    # name: (the file's text at a depth, the depth that killed the process)
    "deep.nt": (_n_triples, DEEP),
    "deep.nq": (lambda d: _n_triples(d, f" <{X}g>"), DEEP),
    "deep.ttl": (lambda d: PREFIX + "x:s x:p " + "<<( x:a x:b " * d + "x:c" + " )>>" * d + " .\n", DEEP),
    "deep.trig": (lambda d: PREFIX + "x:g { x:s x:p " + "<<( x:a x:b " * d + "x:c" + " )>>" * d + " . }\n", DEEP),
    "reified.ttl": (lambda d: PREFIX + "x:s x:p " + "<< x:a x:b " * d + "x:c" + " ~ x:r >>" * d + " .\n", DEEP),
    "deep.nt.gz": (_n_triples, DEEP),
    "deep.rdf": (_rdf_xml, 20_000),  # 100,000 deep takes pyoxigraph minutes to die on
    "deep.jsonld": (_json_ld, 10_000),  # from 65,536 deep its parser refuses it
}


def _write(directory: Path, name: str, depth: int) -> Path:
    path = directory / name
    text = FORMS[name][0](depth).encode()
    path.write_bytes(gzip.compress(text, 1) if name.endswith(".gz") else text)
    return path


def _run(*arguments: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *arguments], capture_output=True, text=True, timeout=300, cwd=cwd)


CATCHING = """
import sys
from gateway import Gateway, InvalidInput
try:
    Gateway.open(sys.argv[1])
except InvalidInput as error:
    print(error.message)
"""
ENTRIES = {
    "bfsql load": lambda path: ["-m", "gateway.surfaces.cli", "load", str(path), "--store", str(path.parent / "store")],
    "bfsql query --data": lambda path: ["-m", "gateway.surfaces.cli", "query", "describe_schema", "{}", "--data", str(path)],
    "Gateway.open, caught": lambda path: ["-c", CATCHING, str(path)],
}


@pytest.mark.parametrize("entry", ENTRIES)
def test_triple_terms_nested_100000_deep_are_refused_and_the_process_lives_on(tmp_path: Path, entry: str) -> None:
    ran = _run(*ENTRIES[entry](_write(tmp_path, "deep.nt", DEEP)), cwd=tmp_path)
    assert ran.returncode == (0 if entry.startswith("Gateway") else 2), (ran.returncode, ran.stderr[-2000:])
    assert f"deep.nt: line 1: triple terms nest deeper than {MAX_TRIPLE_TERM_DEPTH}" in ran.stdout + ran.stderr
    assert not (tmp_path / "store").exists()  # refused before the store was touched


@pytest.mark.parametrize("name", [name for name in FORMS if name != "deep.nt"])
def test_every_syntax_that_nests_is_refused_and_the_process_lives_on(tmp_path: Path, name: str) -> None:
    ran = _run(*ENTRIES["bfsql query --data"](_write(tmp_path, name, FORMS[name][1])), cwd=tmp_path)
    assert ran.returncode == 2, (ran.returncode, ran.stderr[-2000:])
    assert f"{name}: line " in ran.stderr and " nest deeper than " in ran.stderr


AT_THE_LIMIT = """
import sys
from pathlib import Path
from gateway import Gateway
from gateway.loading import load_store
for name in sys.argv[1:]:
    path = Path(name)
    store = path.with_name(path.name + ".store")
    load_store([path], store, show_progress=False)
    for gateway in (Gateway.open(path), Gateway.open(store)):
        statements = gateway.describe_schema().statements.total
        seed = gateway.context.ids.to_id("http://x.example/s")
        edges = len(gateway.bfs_query(seeds=[seed], max_hops=2).edges)
        quads = gateway.backend.select("SELECT ?p (COUNT(*) AS ?n) WHERE { ?s ?p ?o } GROUP BY ?p")
        terms = gateway.backend.select("SELECT ?o WHERE { ?s ?p ?o }")  # nested terms out to Python and dropped
        print(path.name, statements, edges, len(quads[1]), len(terms[1]))
"""


def test_nesting_at_the_limit_loads_answers_and_exits(tmp_path: Path) -> None:
    from gateway.backends.file_checks import MAX_JSON_DEPTH

    paths = [_write(tmp_path, name, MAX_JSON_DEPTH if name.endswith(".jsonld") else MAX_TRIPLE_TERM_DEPTH)
             for name in FORMS]
    ran = _run("-c", AT_THE_LIMIT, *map(str, paths), cwd=tmp_path)
    assert ran.returncode == 0, (ran.returncode, ran.stderr[-2000:])
    assert [line.split()[0] for line in ran.stdout.splitlines()] == [name for name in FORMS for _ in "12"]


# -- what the scan counts, in process (no parse) ------------------------------------------------
def _refused(path: Path, fmt: ox.RdfFormat) -> str | None:
    from gateway.backends.file_checks import check_files

    try:
        check_files([(path, fmt)])
    except InvalidInput as error:
        return error.message
    return None


def test_one_past_the_limit_is_refused_in_each_syntax(tmp_path: Path) -> None:
    from gateway.backends.embedded import rdf_format
    from gateway.backends.file_checks import MAX_JSON_DEPTH

    for name in FORMS:
        limit = MAX_JSON_DEPTH if name.endswith(".jsonld") else MAX_TRIPLE_TERM_DEPTH
        fmt = rdf_format(Path(name))
        assert _refused(_write(tmp_path, name, limit), fmt) is None, name
        assert f"nest deeper than {limit}" in (_refused(_write(tmp_path, name, limit + 1), fmt) or ""), name


def test_what_the_parser_reads_as_one_token_does_not_count(tmp_path: Path) -> None:
    deep = "<<( x:a x:b " * 70 + "x:c" + " )>>" * 70
    held = (PREFIX + f'x:s x:p "{deep}", \'{deep}\', """\n{deep}\n""", \'\'\'{deep}\'\'\', <{X}{"a" * 9}> .\n'
            f"# {deep}\n" + "x:s x:p " + "<<( x:a x:b " * 60 + "x:c" + " )>>" * 60 + " .\n")
    path = tmp_path / "held.ttl"
    path.write_text(held, encoding="utf-8")
    assert _refused(path, ox.RdfFormat.TURTLE) is None
    assert len(list(ox.parse(path=path, format=ox.RdfFormat.TURTLE))) == 6  # what was skipped is what the parser read


def test_an_escaped_hash_in_a_local_name_starts_no_comment(tmp_path: Path) -> None:
    """`x:p\\#` is a name: a scan taking the `#` for a comment missed the nesting after it."""
    path = tmp_path / "escaped.ttl"
    path.write_text(PREFIX + "x:s x:p\\# " + "<<( x:a x:b " * 65 + "x:c" + " )>>" * 65 + " .\n", encoding="utf-8")
    assert "line 2: triple terms nest deeper than 64" in (_refused(path, ox.RdfFormat.TURTLE) or "")


@pytest.mark.parametrize("name", ["strings.ttl", "strings.ttl.gz"])
def test_a_long_string_across_blocks_is_read_whole(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A block ending inside a long string: read from its start, the string's end opens nothing,
    and the nesting after it counts (read from the block's start, `\"\"\"` would open a string there)."""
    from gateway.backends import file_checks

    monkeypatch.setattr(file_checks, "_BLOCK", 64)
    monkeypatch.setattr(file_checks, "_CARRIED", 1 << 20)
    deep = "x:s x:p " + "<<( x:a x:b " * 65 + "x:c" + " )>>" * 65 + " .\n"
    string = 'x:s x:p """' + "<<( \n" * 200 + '""" .\n'
    for text, said in ((string + deep + 'x:s x:p """ """ .\n', "line 203: triple terms nest deeper"),
                       (string * 3, None)):
        path = tmp_path / name
        path.write_bytes(gzip.compress((PREFIX + text).encode()) if name.endswith(".gz") else (PREFIX + text).encode())
        message = _refused(path, ox.RdfFormat.TURTLE)
        if said is None:
            assert message is None, message
        else:
            assert message is not None and said in message, message


def test_n_triples_read_in_blocks_are_refused_at_their_line_and_held_in_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A plain file's lines are read in blocks (not mapped whole: every page of a mapped file
    searched stays resident), each line once: the nesting past many blocks is refused at
    its own line."""
    from gateway.backends import file_checks

    monkeypatch.setattr(file_checks, "_BLOCK", 100)
    shallow = f'<{X}s> <{X}p> <<( <{X}a> <{X}b> "\\"\\"\\" >> <<" )>> .\n'
    deep = f"<{X}s> <{X}p> " + f"<<( <{X}a> <{X}b> " * 65 + f"<{X}c>" + " )>>" * 65 + " .\n"
    path = tmp_path / "deep.nt"
    path.write_text(shallow * 300 + deep + shallow, encoding="utf-8")
    assert "line 301: triple terms nest deeper than 64" in (_refused(path, ox.RdfFormat.N_TRIPLES) or "")
    path.write_text(shallow * 300, encoding="utf-8")
    assert _refused(path, ox.RdfFormat.N_TRIPLES) is None
    assert len([block for block, _ in file_checks._blocks(path, whole=False) if isinstance(block, bytes)]) > 100
    assert len(list(ox.parse(path=path, format=ox.RdfFormat.N_TRIPLES))) == 300


@pytest.mark.parametrize("depth", [MAX_TRIPLE_TERM_DEPTH, MAX_TRIPLE_TERM_DEPTH + 1])
def test_a_line_longer_than_a_block_carries_is_mapped_not_read_whole(
    depth: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A Turtle file on one line (as a generator may write it): its line is not read into
    memory whole, the file is mapped instead, and its nesting counts all the same."""
    from gateway.backends import file_checks

    monkeypatch.setattr(file_checks, "_BLOCK", 64)
    monkeypatch.setattr(file_checks, "_CARRIED", 256)
    path = tmp_path / "one-line.ttl"
    path.write_text(f"@prefix x: <{X}> . " + "x:s x:p x:o . " * 100 + "x:s x:p "
                    + "<<( x:a x:b " * depth + "x:c" + " )>>" * depth + " .", encoding="utf-8")
    with pytest.raises(file_checks._LongLine):
        list(file_checks._blocks(path, whole=False))
    message = _refused(path, ox.RdfFormat.TURTLE)
    if depth > MAX_TRIPLE_TERM_DEPTH:
        assert message is not None and "line 1: triple terms nest deeper than 64" in message, message
    else:
        assert message is None, message


def test_xml_counts_every_parse_type_that_may_be_a_triple(tmp_path: Path) -> None:
    path = tmp_path / "spelled.rdf"
    path.write_text(_rdf_xml(65).replace('"Triple"', '"&#84;riple"'), encoding="utf-8")
    assert "triple terms nest deeper than 64" in (_refused(path, ox.RdfFormat.RDF_XML) or "")
    # Read by expat (one `Triple` is there), 199 `Resource`s inside each other are no triple terms.
    path.write_text(_rdf_xml(200).replace('rdf:parseType="Triple"', 'rdf:parseType="Resource"', 199), encoding="utf-8")
    assert _refused(path, ox.RdfFormat.RDF_XML) is None
    path.write_text(_rdf_xml(3).replace("</x:p>", "", 1), encoding="utf-8")
    assert "not well-formed XML" in (_refused(path, ox.RdfFormat.RDF_XML) or "")


def test_json_counts_brackets_outside_strings(tmp_path: Path) -> None:
    from gateway.backends.file_checks import MAX_JSON_DEPTH

    path = tmp_path / "strings.jsonld"
    path.write_text(_json_ld(MAX_JSON_DEPTH).replace('"x:b": 1', '"x:b": "{[\\"{[' + "[{" * 200 + '"'), encoding="utf-8")
    assert _refused(path, ox.RdfFormat.JSON_LD) is None
    assert sum(1 for _ in ox.parse(path=path, format=ox.RdfFormat.JSON_LD)) == MAX_JSON_DEPTH
