"""Profiles over local data: a store's name index is its load's profile's, and the
wikidata profile is neither chosen nor used silently on data mostly of other RDF."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyoxigraph as ox
import pytest

from gateway import Gateway, InvalidInput, api
from gateway.loading import load_store
from gateway.profiles.wikibase_share import WIKIBASE_NAMESPACE, WIKIBASE_SHARE_MIN
from tests.conftest import shared_data

WD = "http://www.wikidata.org/entity/"


def _instance_of(path: Path, entity: str) -> set[str]:
    """Oracle: the item's `wdt:P31` values, read with SPARQL over the file itself."""
    store = ox.Store()
    store.load(path=str(path), format=ox.RdfFormat.TURTLE)
    rows = store.query(f"SELECT ?t WHERE {{ <{WD}{entity}> <http://www.wikidata.org/prop/direct/P31> ?t }}")
    return {"wd:" + row["t"].value.removeprefix(WD) for row in rows}  # type: ignore[index, union-attr]


def _wikibase_share(files: list[Path]) -> float:
    """Oracle: the share of IRI occurrences in Wikibase namespaces, parsed from the files."""
    wikibase = total = 0
    for path in files:
        for quad in ox.parse(path=str(path), format=ox.RdfFormat.TURTLE):
            for term in (quad.subject, quad.predicate, quad.object):
                if isinstance(term, ox.NamedNode):
                    total += 1
                    wikibase += bool(WIKIBASE_NAMESPACE.match(term.value))
    return wikibase / total


def _shapes() -> tuple[Path, Path]:
    """SHACL's and DASH's own shape graphs, as pyshacl ships them (RDF the project did not write)."""
    pyshacl = pytest.importorskip("pyshacl")
    assets = Path(pyshacl.__file__).parent / "assets"
    return assets / "shacl.ttl", assets / "dash.ttl"


def test_a_store_loaded_natively_searches_as_the_profile_it_is_served_with(tmp_path: Path) -> None:
    q42 = shared_data("wikidata", "Q42.ttl")
    load_store([q42], tmp_path / "s", show_progress=False)  # no --profile: native's index
    served = Gateway.open(tmp_path / "s", profile="wikidata")
    in_memory = Gateway.open(q42, profile="wikidata")
    kinds = _instance_of(q42, "Q42")
    hits = served.search_entities(query="Douglas Adams", limit=3).results
    assert hits[0].id == "wd:Q42" and hits[0].entity_type in kinds
    assert [(h.id, h.entity_type) for h in hits] == [
        (h.id, h.entity_type) for h in in_memory.search_entities(query="Douglas Adams", limit=3).results]
    for kind in kinds:
        assert "wd:Q42" in [h.id for h in served.search_entities(query="Douglas Adams", entity_types=[kind]).results]


def test_load_with_a_profile_records_it_and_the_store_opens_with_it(tmp_path: Path) -> None:
    q42 = shared_data("wikidata", "Q42.ttl")
    load_store([q42], tmp_path / "s", show_progress=False, profile="wikidata")
    assert json.loads((tmp_path / "s" / "meta.json").read_text())["profile"] == "wikidata"
    assert (tmp_path / "s" / "statistics-wikidata.json").is_file()
    gateway = Gateway.open(tmp_path / "s")
    assert gateway.profile.name == "wikidata"
    assert gateway.search_entities(query="Douglas Adams", limit=1).results[0].entity_type in _instance_of(q42, "Q42")
    # A later load into the store keeps its profile unless told otherwise.
    load_store([shared_data("wikidata", "Q37599471.ttl")], tmp_path / "s", show_progress=False)
    assert json.loads((tmp_path / "s" / "meta.json").read_text())["profile"] == "wikidata"


def test_load_with_auto_detects_the_profile(tmp_path: Path) -> None:
    load_store([shared_data("wikidata", "Q42.ttl")], tmp_path / "s", show_progress=False, profile="auto")
    assert json.loads((tmp_path / "s" / "meta.json").read_text())["profile"] == "wikidata"


def test_an_unknown_profile_is_refused_before_the_store_is_made(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput) as caught:
        load_store([shared_data("wikidata", "Q42.ttl")], tmp_path / "s", show_progress=False, profile="wikibase")
    assert caught.value.field == "profile" and not (tmp_path / "s").exists()


def test_a_large_store_served_with_another_profile_is_refused_naming_both(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    load_store([shared_data("wikidata", "Q42.ttl")], tmp_path / "s", show_progress=False)
    monkeypatch.setattr(api, "REBUILT_QUADS", 100)  # Q42.ttl's 4,455 quads stand for a large store
    with pytest.raises(InvalidInput) as caught:
        Gateway.open(tmp_path / "s", profile="wikidata")
    message = caught.value.message
    assert caught.value.field == "profile"
    assert "native" in message and "wikidata" in message and "bfsql load" in message and "--profile wikidata" in message
    assert Gateway.open(tmp_path / "s", profile="native").profile.name == "native"


def test_auto_keeps_wikidata_for_real_wikibase_exports() -> None:
    for name in ("Q42.ttl", "Q37599471.ttl", "Q_INTERSECTION.ttl", "lexeme_dump.ttl"):
        path = shared_data("wikidata", name)
        assert _wikibase_share([path]) >= WIKIBASE_SHARE_MIN
        assert Gateway.open(path, profile="auto").profile.name == "wikidata", name


@pytest.mark.parametrize("profile", ["native", "plain"])
def test_a_wikidata_export_read_by_another_profile_is_said_to_be_one(profile: str) -> None:
    """Its statement nodes, entities of their own there (a walk from wd:Q42 passes through
    them), counted as pyoxigraph counts them; under wikidata, or on other data, nothing said."""
    for name in ("Q42.ttl", "Q37599471.ttl"):
        path = shared_data("wikidata", name)
        store = ox.Store()
        store.load(path=str(path), format=ox.RdfFormat.TURTLE)
        [[count]] = store.query("SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s a <http://wikiba.se/ontology#Statement> }")
        warned = [w for w in Gateway.open(path, profile=profile).describe_schema().warnings if "wikibase:Statement" in w]
        assert warned == [f"profile: {profile} reads this graph's {int(count.value):,} Wikidata statement nodes "
                          "(wikibase:Statement) as entities of their own: open it with profile wikidata (or auto) to "
                          "walk them as statements, their ranks as truth status"], name
        assert not any("wikibase:Statement" in w for w in Gateway.open(path, profile="wikidata").describe_schema().warnings)
    assert not any("wikibase:Statement" in w for w in Gateway.open(_shapes()[0], profile=profile).describe_schema().warnings)


@pytest.mark.parametrize("item", ["Q_INTERSECTION.ttl", "Q37599471.ttl"])
def test_auto_picks_native_on_a_folder_mostly_of_other_rdf(tmp_path: Path, item: str) -> None:
    files = [shared_data("wikidata", item), *_shapes()]
    for path in files:
        shutil.copy(path, tmp_path / path.name)
    assert _wikibase_share(files) < WIKIBASE_SHARE_MIN
    assert Gateway.open(tmp_path, profile="auto").profile.name == "native"
    assert not any("wikibase:Statement" in w for w in Gateway.open(tmp_path, profile="native").describe_schema().warnings)
    schema = Gateway.open(tmp_path, profile="wikidata").describe_schema()  # named: kept, and said
    assert any(w.startswith("profile: wikidata") and "native" in w for w in schema.warnings)


def test_describe_schema_warns_when_the_wikidata_profile_reads_other_rdf() -> None:
    shacl, _ = _shapes()
    warned = Gateway.open(shacl, profile="wikidata").describe_schema().warnings
    assert any(w.startswith("profile: wikidata") for w in warned)
    native = Gateway.open(shacl, profile="native").describe_schema()
    assert native.statements.total > 0 and not any(w.startswith("profile:") for w in native.warnings)
    q42 = Gateway.open(shared_data("wikidata", "Q42.ttl"), profile="wikidata").describe_schema()
    assert not any(w.startswith("profile:") for w in q42.warnings)


@pytest.mark.parametrize("items", [["Q42.ttl"], ["Q42.ttl", "Q37599471.ttl"]], ids=["Q42", "Q42+Q37599471"])
def test_wikidata_beside_other_rdf_is_said_to_leave_it_out(tmp_path: Path, items: list[str]) -> None:
    """Wikidata items the larger part, SHACL and DASH beside them: auto reads Wikidata, and
    says that the shapes are left out (they were, without a word: "Node shape" found nothing).
    The oracle for what is left out: the shapes' own triples, counted by pyoxigraph."""
    import pyoxigraph as ox

    files = [*(shared_data("wikidata", item) for item in items), *_shapes()]
    for path in files:
        shutil.copy(path, tmp_path / path.name)
    shapes = sum(len(list(ox.parse(path=str(path), format=ox.RdfFormat.TURTLE))) for path in _shapes())
    auto = Gateway.open(tmp_path, profile="auto")
    assert auto.profile.name == "wikidata" and shapes > 1_000
    [warning] = [w for w in auto.describe_schema().warnings if w.startswith("profile: wikidata")]
    assert "shacl#" in warning and "native" in warning, warning
    missed = auto.search_entities(query="Node shape")
    assert missed.results == [] and warning in missed.warnings  # an empty search says what the profile leaves out
    assert Gateway.open(tmp_path, profile="native").search_entities(query="Node shape").results
    for item in items:  # each export alone: nothing said
        alone = Gateway.open(shared_data("wikidata", item), profile="wikidata").describe_schema()
        assert not any(w.startswith("profile:") for w in alone.warnings), item
