"""as_of and valid_at against integer, date and date-time values (an integer point is a year for dates)."""

from __future__ import annotations

import pyoxigraph as ox
import pytest

from gateway import Gateway
from tests.conftest import listed_nodes

DATA = """
@prefix bfs: <https://w3id.org/bfsql#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix ex: <http://ex.example/> .
ex:adams ex:educatedAt ex:brentwood ~ ex:s1 {| bfs:validFrom "1959-01-01T00:00:00Z"^^xsd:dateTime ;
                                               bfs:validUntil "1970-01-01T00:00:00Z"^^xsd:dateTime |} .
ex:adams ex:educatedAt ex:stjohns ~ ex:s2 {| bfs:validFrom "1971-01-01"^^xsd:date ; bfs:validUntil "1974-01-01"^^xsd:date |} .
ex:adams ex:knows ex:lloyd ~ ex:s3 {| bfs:assertedAt "1978-03-08"^^xsd:date |} .
<< ex:adams ex:livesIn ex:london ~ ex:s4 >> bfs:truthStatus bfs:asserted_true ;
    bfs:validFrom "1980-01-01T00:00:00Z"^^xsd:dateTime .
"""


@pytest.fixture(scope="module")
def gateway() -> Gateway:
    store = ox.Store()
    store.load(DATA.encode(), format=ox.RdfFormat.TURTLE)
    return Gateway.open(store, prefixes={"ex": "http://ex.example/"})


def reached(gateway: Gateway, **filters: object) -> set[str]:
    result = gateway.bfs_query(seeds=["ex:adams"], max_hops=1, topology_only=True, **filters)
    return {n.id for n in listed_nodes(result)} - {"ex:adams"}  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("valid_at", "expected"),
    [
        (1960, {"ex:brentwood", "ex:lloyd"}),
        (1970, {"ex:brentwood", "ex:lloyd"}),
        (1972, {"ex:stjohns", "ex:lloyd"}),
        (1985, {"ex:lloyd", "ex:london"}),
        ("1972-06-01", {"ex:stjohns", "ex:lloyd"}),
        ("1960-06-01T00:00:00Z", {"ex:brentwood", "ex:lloyd"}),
        ("1972-06-01", {"ex:stjohns", "ex:lloyd"}),
    ],
)
def test_valid_at(gateway: Gateway, valid_at: object, expected: set[str]) -> None:
    assert reached(gateway, valid_at=valid_at) == expected


def test_as_of_year_and_date(gateway: Gateway) -> None:
    everything = {"ex:brentwood", "ex:stjohns", "ex:lloyd", "ex:london"}
    assert reached(gateway) == everything
    assert reached(gateway, as_of=1977) == everything - {"ex:lloyd"}
    assert reached(gateway, as_of=1978) == everything
    assert reached(gateway, as_of="1978-03-07") == everything - {"ex:lloyd"}
