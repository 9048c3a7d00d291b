"""Writing a `Bundle` as RDF 1.2 TriG, all or nothing."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pyoxigraph as ox

from gateway.errors import InvalidInput
from gateway.importers.bundle_model import (
    BOOKKEEPING,
    PASSAGE_PREFIX,
    STANDARD_PREFIXES,
    STATEMENT_PREFIX,
    SYMMETRIC,
    TRANSITIVE,
    BadRow,
    Bundle,
    Iri,
    Node,
    Statement,
    Terms,
    bundle_field,
    literals,
    passage_iri,
    turtle_string,
)


# -- writing ----------------------------------------------------------------------------------
def prefixes_of(bundle: Bundle) -> dict[str, str]:
    schemes = {*bundle.ids.used, *bundle.ids.local}
    if bundle.domain in schemes:
        raise InvalidInput(f"the bundle's domain {bundle.domain!r} is also one of its ID schemes", field="manifest.json")
    prefixes = dict(STANDARD_PREFIXES)
    # The empty prefix marks the bundle's vocabulary: the gateway writes its types and
    # predicates as bare names ("drug", "TREATS"), as the bundle spells them.
    prefixes[""] = bundle.base
    prefixes[bundle.domain] = bundle.base
    prefixes[STATEMENT_PREFIX] = f"{bundle.base}{STATEMENT_PREFIX}/"
    prefixes[PASSAGE_PREFIX] = f"{bundle.base}{PASSAGE_PREFIX}/"
    prefixes.update(sorted(bundle.ids.used.items()))
    prefixes.update(sorted(bundle.ids.local.items()))
    return prefixes


def render_trig(bundle: Bundle, description: str) -> Iterator[str]:
    terms = Terms(prefixes_of(bundle))
    graph = f"{bundle.base}graph"
    yield f"# {bundle.domain} bundle imported by gateway.importers.bundle from {bundle.directory.name}/ (see data/README.md).\n"
    for prefix, namespace in terms.prefixes.items():
        yield f"@prefix {prefix}: <{namespace}> .\n"
    yield f"\n{terms.iri(graph)} {{\n"
    yield from _block(_dataset(bundle, graph, description), terms)
    yield from _schema(bundle, terms)
    for node in bundle.entities.values():
        yield from _block(node, terms)
    for statement in bundle.statements.values():
        yield from _statement(statement, terms)
    for node in _passages(bundle):
        yield from _block(node, terms)
    yield "}\n"


def _dataset(bundle: Bundle, graph: str, description: str) -> Node:
    node = Node(graph)
    node.add("rdf:type", ["void:Dataset"])
    # Only dcterms:description: the gateway shows the first (sorted) of several texts.
    node.add("dcterms:description", [turtle_string(description)])
    for name, value in bundle.manifest.items():
        if not isinstance(value, (dict, list)):
            node.add(bundle_field(name), literals(value))
    metadata = bundle.manifest.get("metadata")
    for name, value in (metadata.items() if isinstance(metadata, dict) else ()):
        if name != "papers":
            node.add(bundle_field(name), literals(value))
    return node


def _schema(bundle: Bundle, terms: Terms) -> Iterator[str]:
    for name, iri in sorted(bundle.types.items()):
        yield f"  {terms.iri(iri)} a rdfs:Class ; rdfs:label {turtle_string(name)} .\n"
    for name, iri in sorted(bundle.predicates.items()):
        kinds = ["owl:ObjectProperty"]
        kinds += ["owl:SymmetricProperty"] if name in SYMMETRIC else []
        kinds += ["owl:TransitiveProperty"] if name in TRANSITIVE else []
        label = name.replace("_", " ").lower()
        yield f"  {terms.iri(iri)} a {', '.join(kinds)} ; rdfs:label {turtle_string(label)} .\n"
    for name in sorted(BOOKKEEPING):
        yield f"  {bundle_field(name)} rdfs:subPropertyOf bfs:bookkeeping .\n"
    if bundle.passages:
        yield "  bfs:passageOf rdfs:subPropertyOf bfs:walkedWhenNamed .\n"


def _passages(bundle: Bundle) -> Iterator[Node]:
    """Each distinct evidence text of a document as a passage of it, in bundle order:
    `bfs:passageOf` is a relationship (a walk from a paper reaches its passages), and
    fetch_slice reads them in order."""
    for document, spans in bundle.passages.items():
        paper = bundle.ids.iri(document, "document_id")
        for text, index in spans.items():
            node = Node(passage_iri(bundle.base, document, index))
            node.add("rdf:type", ["bfs:Passage"])
            node.add("bfs:passageOf", [paper])
            node.add("bfs:passageIndex", [str(index)])
            node.add("bfs:passageText", [turtle_string(text)])
            yield node


def _block(node: Node, terms: Terms) -> Iterator[str]:
    if node.pairs:  # an item whose every field is null is only linked to, with no data
        yield f"  {terms.iri(node.subject)} {_pairs(node.pairs, terms)} .\n"


def _pairs(pairs: list[tuple[str, str]], terms: Terms, indent: str = "\n      ") -> str:
    def term(text: str) -> str:
        return terms.iri(text) if isinstance(text, Iri) else text

    grouped: dict[str, list[str]] = {}
    for predicate, value in pairs:
        grouped.setdefault(predicate, []).append(term(value))
    return f" ;{indent}".join(f"{term(p)} {' , '.join(vs)}" for p, vs in grouped.items())


def _statement(statement: Statement, terms: Terms) -> Iterator[str]:
    s, p, o = (terms.iri(t) for t in statement.triple)
    reifier = terms.iri(statement.reifier)
    data = _pairs(statement.data.pairs, terms, "\n        ")
    if statement.asserted:
        yield f"  {s} {p} {o} ~ {reifier} {{|\n        {data} |}} .\n"
    else:
        yield f"  << {s} {p} {o} ~ {reifier} >>\n        {data} .\n"
    for part in statement.parts:
        yield from _block(part, terms)


def _umask() -> int:
    """The process's umask (reading it means setting it: set back at once)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_atomically(out: Path, lines: Iterator[str]) -> int:
    """Write to a temporary file beside `out`, parse it back, and only then rename it:
    a failure never leaves a half graph where the graph should be."""
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent)
    except OSError as error:
        raise InvalidInput(f"{out}: cannot write there ({error.strerror})", field="out") from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.writelines(lines)
        quads = sum(1 for _ in ox.parse(path=temporary, format=ox.RdfFormat.TRIG))
        os.chmod(temporary, 0o666 & ~_umask())  # mkstemp makes it 0600: give it the mode open() would
        os.replace(temporary, out)
        return quads
    except BadRow as problem:  # only the manifest's text is checked this late
        raise InvalidInput(f"manifest.json: {problem}", field="manifest.json") from None
    except SyntaxError as error:
        raise InvalidInput(f"{out.name}: the TriG written does not parse back ({error})", field="out") from None
    except OSError as error:
        raise InvalidInput(f"{out}: cannot write there ({error.strerror})", field="out") from None
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
