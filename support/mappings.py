"""A disease ontology whose terms link MeSH, built from two packages the project did not write.

- MONDO as `cellxgene_ontology_guide` ships it: each live term's label, exact synonyms and
  direct parents (`rdfs:subClassOf`). That release carries no cross-references.
- The curated mappings of `biomappings` (`positive.sssom.tsv`): `skos:exactMatch`,
  `skos:narrowMatch`, `skos:broadMatch` between MONDO and MeSH, DOID, EFO, HPO, ... each
  written as the triple the SSSOM row states, its IRIs expanded by the file's own
  `curie_map` (MeSH as `https://meshb.nlm.nih.gov/record/ui?ui=`, a URL form the medlit
  bundle does not use: the IDs meet only as canonical IDs).

biomappings is fetched as its wheel alone (`pip download --no-deps`): installed, it would
pull a curation web application and a hundred packages for one TSV file.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from support.datasets import LABEL, SUBCLASS_OF, _literal

BIOMAPPINGS = "biomappings==0.6.0"
EXACT_SYNONYM = "<http://www.geneontology.org/formats/oboInOwl#hasExactSynonym>"
SKOS = "http://www.w3.org/2004/02/skos/core#"


@dataclass(frozen=True)
class Mapping:
    subject: str
    """A CURIE as the file writes it (`mesh:D001007`)."""
    predicate: str
    """`skos:exactMatch`, `skos:narrowMatch`, ..."""
    object: str


def biomappings_wheel(cache_dir: Path) -> Path:
    """The biomappings wheel in `cache_dir`, downloaded once from the package index."""
    name, version = BIOMAPPINGS.split("==")
    wheel = cache_dir / f"{name}-{version}-py3-none-any.whl"
    if not wheel.exists():
        cache_dir.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
                        "--dest", str(cache_dir), BIOMAPPINGS], check=True, capture_output=True)
    return wheel


def curated_mappings(wheel: Path) -> tuple[dict[str, str], list[Mapping]]:
    """The positive mappings' `curie_map` (prefix -> namespace) and rows."""
    with zipfile.ZipFile(wheel) as archive:
        text = archive.read("biomappings/resources/positive.sssom.tsv").decode("utf-8")
    curie_map: dict[str, str] = {}
    rows: list[Mapping] = []
    header: list[str] | None = None
    for line in text.splitlines():
        if line.startswith("#"):
            key, colon, value = line[1:].strip().partition(": ")
            if colon and line.startswith("#  "):  # an entry of the YAML header's curie_map
                curie_map[key] = value.strip()
            continue
        cells = line.split("\t")
        if header is None:
            header = cells
            continue
        row = dict(zip(header, cells, strict=False))
        rows.append(Mapping(row["subject_id"], row["predicate_id"], row["object_id"]))
    return curie_map, rows


def expand(curie: str, curie_map: dict[str, str]) -> str | None:
    prefix, _, local = curie.partition(":")
    namespace = curie_map.get(prefix)
    return namespace + local if namespace else None


def mondo_json_path() -> Path:
    """The newest MONDO release the package ships (its files are named by ISO dates)."""
    import cellxgene_ontology_guide

    data = Path(os.path.dirname(cellxgene_ontology_guide.__file__)) / "data"
    return sorted(data.glob("MONDO-ontology-v*.json.zst"))[-1]


def mondo_terms() -> dict[str, dict[str, object]]:
    import json

    import zstandard

    with open(mondo_json_path(), "rb") as handle:
        return json.loads(zstandard.ZstdDecompressor().stream_reader(handle).read())  # type: ignore[no-any-return]


def mondo_ntriples(curie_map: dict[str, str], mappings: list[Mapping]) -> Iterator[str]:
    """MONDO's live terms, then every curated mapping with a MONDO term on either side."""
    mondo = curie_map["mondo"]
    for curie, term in mondo_terms().items():
        if term.get("deprecated"):
            continue
        node = f"<{mondo}{curie.split(':', 1)[1]}>"
        yield f"{node} {LABEL} {_literal(str(term['label']))} ."
        for synonym in term.get("synonyms", ()):  # type: ignore[attr-defined]
            yield f"{node} {EXACT_SYNONYM} {_literal(str(synonym))} ."
        for parent, distance in term.get("ancestors", {}).items():  # type: ignore[attr-defined]
            if distance == 1:
                yield f"{node} {SUBCLASS_OF} <{mondo}{parent.split(':', 1)[1]}> ."
    for row in mappings:
        if "mondo" not in (row.subject.split(":")[0], row.object.split(":")[0]):
            continue
        subject, obj = expand(row.subject, curie_map), expand(row.object, curie_map)
        predicate = expand(row.predicate, {"skos": SKOS})
        if subject and obj and predicate:
            yield f"<{subject}> <{predicate}> <{obj}> ."


def mondo_with_mappings(cache_dir: Path) -> tuple[Path, list[Mapping], dict[str, str]]:
    """The graph as an N-Triples file in `cache_dir` (written once per release of both
    sources), with the mappings and curie_map it was built from (the tests' oracle)."""
    curie_map, mappings = curated_mappings(biomappings_wheel(cache_dir))
    release = mondo_json_path().name.removeprefix("MONDO-ontology-").removesuffix(".json.zst")
    target = cache_dir / f"mondo-{release}-{BIOMAPPINGS.replace('==', '-')}.nt"
    if not target.exists():
        fd, temporary = tempfile.mkstemp(dir=cache_dir, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.writelines(f"{line}\n" for line in mondo_ntriples(curie_map, mappings))
        os.replace(temporary, target)
    return target, mappings, curie_map
