"""describe_schema's prefixes cover every CURIE any answer holds, on every backend.

The expectation is read from the answers themselves: every `prefix:local` in a key or a
value of a tool's JSON answer whose prefix is one the gateway's ID mapper writes (so a
literal such as "tardis:Douglas_Adams" is not taken for one). Statement IDs, qualifiers,
references, ranks and the structural edges of statement nodes are all in the answers
asked for here, on real Wikidata RDF (embedded, `oxigraph serve`, Virtuoso) and on the
demo graph (native, and Virtuoso's reification twin).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

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
    answers use; given the file's own prefixes, exactly what the embedded graph lists."""
    listed, used = answers(wikidata(name), WIKIDATA_CALLS)
    assert {"wds", "pq", "pr", "wdref", "prov"} <= used
    assert used <= set(listed), used - set(listed)
    if name.endswith("+prefixes"):
        assert listed == wikidata_embedded[0]


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
