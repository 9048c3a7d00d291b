"""describe_schema's prefixes cover every CURIE any answer holds, on every backend.

The expectation is read from the answers themselves: every `prefix:local` in a key or a
value of a tool's JSON answer whose prefix is one the gateway's ID mapper writes (so a
literal such as "tardis:Douglas_Adams" is not taken for one). Statement IDs, qualifiers,
references, ranks and the structural edges of statement nodes are all in the answers
asked for here, on real Wikidata RDF (embedded, `oxigraph serve`, Virtuoso) and on the
demo graph (native, and Virtuoso's reification twin).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator
from typing import Any

import pyoxigraph as ox
import pytest

from gateway import Gateway
from gateway.backends.embedded import EmbeddedBackend, scan_prefixes
from gateway.backends.endpoint_config import EndpointConfig
from gateway.backends.remote import RemoteBackend
from gateway.profiles.reification import ReificationProfile
from gateway.profiles.wikidata import WikidataProfile
from tests.conftest import DEMO, DEMO_GRAPHS, shared_data

CURIE = re.compile(r"(?<![\w/#:.%-])([A-Za-z_][\w.-]*):(?=[^\s/])")
"""A prefix and its colon, where a CURIE can start (not inside a word or a URL, not "x://")."""
ALL = ["asserted_true", "asserted_false", "hypothetical", "disputed", "retracted"]
ST_JOHNS = "wds:q42-0E9C4724-C954-4698-84A7-5CE0D296A6F2"  # qualifiers and two references
BRENTWOOD = "wd:Q4961791"
WIKIDATA_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("describe_schema", {}),
    ("bfs_query", {"seeds": ["wd:Q42"], "max_hops": 1, "truth_status": ALL}),
    ("bfs_query", {"seeds": [BRENTWOOD], "max_hops": 2, "direction": "in"}),
    ("bfs_query", {"seeds": [ST_JOHNS], "max_hops": 1}),
    ("describe_entities", {"ids": ["wd:Q42", ST_JOHNS, "wds:Q42-bf7e1294-4f0f-3511-ab5f-81f47f5c98cb",
                                   "wdref:355b56329b78db22be549dec34f2570ca61ca056"]}),
    ("search_entities", {"query": "Douglas Adams"}),
    ("scan_query", {"edge_predicates": ["P69"], "truth_status": ALL}),
    ("shortest_path", {"source": BRENTWOOD, "target": "wd:Q691283"}),
]
DEMO_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("describe_schema", {}),
    ("bfs_query", {"seeds": ["wiki:Irene_Adler"], "max_hops": 2, "truth_status": ALL, "expand_traits": ["Inverse"]}),
    ("bfs_query", {"seeds": ["stmt:s12"], "max_hops": 2}),
    ("describe_entities", {"ids": ["stmt:s13", "stmt:s40", "wiki:Sherlock_Holmes", "rel:Knows"]}),
    ("search_entities", {"query": "the woman"}),
    ("scan_query", {"truth_status": ALL, "limit": 50}),
]


def strings(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)
    elif isinstance(value, str):
        yield value


def answers(gateway: Gateway, calls: list[tuple[str, dict[str, Any]]]) -> tuple[dict[str, str], set[str]]:
    """(describe_schema's prefixes, the prefixes of the CURIEs in every answer)."""
    writable = {record.prefix for record in gateway.context.ids.converter.records}
    used: set[str] = set()
    listed: dict[str, str] = {}
    for tool, arguments in calls:
        dump = gateway.call(tool, arguments).model_dump(mode="json")
        if tool == "describe_schema":
            listed = dump["prefixes"]
        used |= {m.group(1) for text in strings(dump) for m in CURIE.finditer(text) if m.group(1) in writable}
    return listed, used


@pytest.fixture(scope="module")
def wikidata(wikidata_endpoints: Callable[[str], tuple[str, list[str] | None]]) -> Iterator[Callable[[str], Gateway]]:
    """Q42 on a backend: "embedded", or a server with ("+prefixes") or without the file's prefixes."""
    opened: list[Gateway] = []
    path = shared_data("wikidata", "Q42.ttl")

    def open_(name: str) -> Gateway:
        if name == "embedded":
            gateway = Gateway(EmbeddedBackend.open(path), profile=WikidataProfile)
        else:
            server, _, declared = name.partition("+")
            url, graphs = wikidata_endpoints(server)
            prefixes = scan_prefixes(path) if declared else None
            gateway = Gateway(RemoteBackend(EndpointConfig(url, graphs=graphs, prefixes=prefixes)), profile=WikidataProfile)
        opened.append(gateway)
        return gateway

    yield open_
    for gateway in opened:
        gateway.close()


@pytest.fixture(scope="module")
def wikidata_embedded(wikidata: Callable[[str], Gateway]) -> tuple[dict[str, str], set[str]]:
    return answers(wikidata("embedded"), WIKIDATA_CALLS)


def test_every_curie_of_wikidata_answers_is_listed_embedded(wikidata_embedded: tuple[dict[str, str], set[str]]) -> None:
    listed, used = wikidata_embedded
    # The answers hold what the issue measured missing: statements, qualifiers, references.
    assert {"wd", "wdt", "wds", "pq", "pr", "wdref", "prov", "wikibase", "rdf", "bfs"} <= used
    assert used <= set(listed), used - set(listed)


@pytest.mark.parametrize("name", ["oxigraph+prefixes", "virtuoso+prefixes", "oxigraph", "virtuoso"])
def test_every_curie_of_wikidata_answers_is_listed_remote(
    wikidata: Callable[[str], Gateway], wikidata_embedded: tuple[dict[str, str], set[str]], name: str
) -> None:
    """A remote wikidata endpoint (bounded: describe_schema probes) lists every prefix its
    answers use; given the file's own prefixes, each as the embedded graph lists it (which
    also lists those of every namespace the data holds: it reads the data whole)."""
    listed, used = answers(wikidata(name), WIKIDATA_CALLS)
    assert {"wds", "pq", "pr", "wdref", "prov"} <= used
    assert used <= set(listed), used - set(listed)
    if name.endswith("+prefixes"):
        assert listed.items() <= wikidata_embedded[0].items()


def test_servers_without_declared_prefixes_list_the_same(wikidata: Callable[[str], Gateway]) -> None:
    oxigraph = wikidata("oxigraph").describe_schema().prefixes
    assert oxigraph == wikidata("virtuoso").describe_schema().prefixes
    assert {"wds": "http://www.wikidata.org/entity/statement/", "pq": "http://www.wikidata.org/prop/qualifier/",
            "wdref": "http://www.wikidata.org/reference/"}.items() <= oxigraph.items()


@pytest.mark.parametrize("name", ["embedded", "oxigraph", "virtuoso"])
def test_every_curie_of_demo_answers_is_listed(name: str, request: pytest.FixtureRequest) -> None:
    """The native profile (and Virtuoso's reification twin of the demo) too: its answers
    hold common vocabularies (schema:birthDate) and the project's own terms."""
    prefixes = scan_prefixes(DEMO)
    if name == "embedded":
        gateway = Gateway.open(DEMO)
    elif name == "oxigraph":
        gateway = Gateway.connect(request.getfixturevalue("oxigraph_server").url, prefixes=prefixes)
    else:
        server = request.getfixturevalue("virtuoso_server")
        gateway = Gateway(RemoteBackend(EndpointConfig(server.url, graphs=DEMO_GRAPHS, prefixes=prefixes)),
                          profile=ReificationProfile)
    try:
        listed, used = answers(gateway, DEMO_CALLS)
    finally:
        gateway.close()
    assert {"wiki", "stmt", "rel", "schema", "rdf"} <= used
    assert used <= set(listed), used - set(listed)
    assert listed == answers(Gateway.open(DEMO), DEMO_CALLS[:1])[0]


# -- published vocabularies: every CURIE expands to an IRI the data holds -----------------------
WHOLE_CURIE = re.compile(r"^([A-Za-z_][\w.-]*):([^\s\\]*)$")
"""A string that is one CURIE, whole (an ID in an answer: a node, a key, a cell)."""
IN_TEXT = re.compile(r"(?<![\w/#:.%-])([A-Za-z_][\w.-]*):([^\s()\[\]\\,]+)")
"""CURIEs inside the text describe_schema and describe_entity compose (`a -> b (3)`, `( sh:class x )`)."""
COMPOSED = ("connects", "literal_predicates")


def held_iris(store: ox.Store) -> set[str]:
    """Every IRI the data holds: subjects, predicates, objects, datatypes, graph names."""
    found: set[str] = set()
    for q in store:
        for term in (q.subject, q.predicate, q.object, q.graph_name):
            if isinstance(term, ox.NamedNode):
                found.add(term.value)
            elif isinstance(term, ox.Literal):
                found.add(term.datatype.value)
    return found


def curies_in(dump: Any, composed: bool = False) -> Iterator[tuple[str, str]]:
    """(prefix, local) of every CURIE a JSON answer shows as an ID (whole strings and keys),
    and inside the composed text of `COMPOSED` fields and inline blank nodes."""
    if isinstance(dump, dict):
        for key, item in dump.items():
            yield from curies_in(str(key))
            yield from curies_in(item, composed or key in COMPOSED)
    elif isinstance(dump, list):
        for item in dump:
            yield from curies_in(item, composed)
    elif isinstance(dump, str):
        whole = WHOLE_CURIE.match(dump)
        if whole and "://" not in dump:
            yield whole.group(1), whole.group(2)
        elif composed or dump.startswith(("( ", "[ ")):
            yield from ((m.group(1), m.group(2)) for m in IN_TEXT.finditer(dump) if "://" not in m.group(0))


def generated_calls(store: ox.Store, rng: random.Random) -> list[tuple[str, dict[str, Any]]]:
    """describe_schema, then entities, walks, searches and tables over what the data holds."""
    subjects = sorted({q.subject.value for q in store if isinstance(q.subject, ox.NamedNode)})
    labels = sorted({q.object.value for q in store.quads_for_pattern(None, ox.NamedNode(RDFS_LABEL), None)
                     if isinstance(q.object, ox.Literal) and 3 < len(q.object.value) < 40})
    calls: list[tuple[str, dict[str, Any]]] = [("describe_schema", {})]
    calls += [("describe_entity", {"id": s}) for s in rng.sample(subjects, 8)]
    calls += [("bfs_query", {"seeds": rng.sample(subjects, 3), "max_hops": 1, "max_nodes": 60})]
    calls += [("bfs_query", {"seeds": rng.sample(subjects, 2), "max_hops": 2, "direction": "in", "max_nodes": 60})]
    calls += [("search_entities", {"query": text}) for text in rng.sample(labels, 4)]
    calls += [("tabulate", {"type": "rdfs:Class", "columns": {"label": "rdfs:label", "parent": "rdfs:subClassOf",
                                                             "by": "^rdfs:domain"}, "limit": 60, "offset": rng.randrange(50)}),
              ("tabulate", {"type": "rdf:Property", "columns": {"range": "rdfs:range", "domain": "rdfs:domain"},
                            "limit": 60, "offset": rng.randrange(50)})]
    return calls


RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"


@pytest.fixture(scope="module", params=["pyshacl", "vocabularies"])
def vocabularies(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[Gateway, ox.Store]:
    """SHACL, DASH and schema.org as pyshacl ships them (schema.org with `http://` IRIs);
    and the ~80 vocabularies of @zazuko/rdf-vocabularies with Brick, where npm can fetch them."""
    import shutil
    import subprocess

    from support.questions import pyshacl_file, vocabularies_file

    if request.param == "pyshacl":
        path = pyshacl_file(tmp_path_factory.mktemp("pyshacl"))
    elif not shutil.which("npm"):
        pytest.skip("npm fetches @zazuko/rdf-vocabularies")
    else:
        try:
            path = vocabularies_file()
        except subprocess.CalledProcessError as error:  # no registry to fetch from: as a missing server
            pytest.skip(f"@zazuko/rdf-vocabularies or Brick could not be fetched: {error}")
    store = ox.Store()
    store.bulk_load(path=str(path), format=ox.RdfFormat.N_QUADS)
    return Gateway.open(path), store


@pytest.mark.parametrize("seed", [1, 2])
def test_every_curie_expands_to_an_iri_the_data_holds(vocabularies: tuple[Gateway, ox.Store], seed: int) -> None:
    """Each CURIE of the answers, expanded with describe_schema's map, is an IRI the data
    holds: schema.org as these vocabularies spell it (`http://`), not as the project's map
    does; a namespace the data spells both ways is said so in warnings, either one held."""
    gateway, store = vocabularies
    held = held_iris(store)
    schema = gateway.describe_schema()
    listed = schema.prefixes
    both = {m.group(1) for w in schema.warnings if w.startswith("prefixes: ")
            for m in re.finditer(r"(?:also spells |; )([\w.-]+): ", w)}
    records = {r.prefix: (r.uri_prefix, *r.uri_prefix_synonyms) for r in gateway.ids.converter.records}
    checked: set[tuple[str, str]] = set()
    for tool, arguments in generated_calls(store, random.Random(seed)):
        checked |= set(curies_in(gateway.call(tool, arguments).model_dump(mode="json", exclude_none=True)))
    writable = set(records)
    wrong = []
    for prefix, local in sorted(checked):
        if prefix not in writable:
            continue  # a literal's text that looks like a CURIE ("tardis:Douglas_Adams")
        assert prefix in listed, (prefix, local)
        spellings = records[prefix] if prefix in both else (listed[prefix],)
        if not any(uri + local in held for uri in spellings):
            wrong.append(f"{prefix}:{local} -> {listed[prefix]}{local}")
    assert not wrong, wrong[:20]
    assert len(checked) > 200
    assert listed["schema"] == "http://schema.org/"
    assert ("schema" in both) == any(iri.startswith("https://schema.org/") for iri in held)  # said where both are


def test_namespace_keys_are_read_alike_in_process_and_in_sparql() -> None:
    """The key of an IRI in process is what namespace_keys.rq's REPLACE makes of it."""
    from gateway.engine.namespaces import KEY_PATTERN, namespace_key
    from gateway.sparql import literal

    rng = random.Random(5)
    parts = ["a", "GO_", "Air_Handling_Unit", "#", "b/c", ":", "taxonomy:9606", "_x", "1_2", "é", "/", "x_y_"]
    iris = {"urn:isbn:0451450523", "http://purl.obolibrary.org/obo/GO_0008150", "https://schema.org/",
            *(rng.choice(["http://x.org/", "urn:", "https://a.b/c#", "tag:"])
              + "".join(rng.choice(parts) for _ in range(rng.randint(0, 5))) for _ in range(300))}
    store = ox.Store()
    for iri in iris:
        try:
            store.add(ox.Quad(ox.NamedNode(iri), ox.NamedNode("http://x.org/p"), ox.Literal("v")))
        except ValueError:
            continue
    rows = store.query(f'SELECT ?s (REPLACE(STR(?s), {literal(KEY_PATTERN)}, "$1") AS ?k) WHERE {{ ?s ?p ?o }}')
    found = {row[0].value: row[1].value for row in rows}  # type: ignore[union-attr]
    assert len(found) > 100
    assert {iri: namespace_key(iri) for iri in found} == found
