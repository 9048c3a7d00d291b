"""Hostile IDs in every ID field: a typed error or an unresolved ID, never query text.

Every ID below carries the marker PWNED; a recording backend proves the marker never
appears in any SPARQL text the gateway sends to the store, but inside one IRI written
`<...>` that is a valid IRI (an ID of its own scheme, `javascript:PWNED(1)`, or with a
zero-width character: the store may hold such IRIs, and asking for one is no injection).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from gateway import Gateway, InvalidInput
from gateway.models import SearchResult, Subgraph
from tests.conftest import DEMO

HOSTILE = [
    "http://example.org/PWNED>",
    "http://example.org/PWNED> . ?s ?p ?o",
    "<http://example.org/PWNED> } UNION { ?s ?p ?o }",
    "<http://example.org/PWNED>> ",
    "http://example.org/PWNED x",
    "http://example.org/{PWNED}",
    "http://example.org/PWNED\nDROP ALL",
    "http://example.org/PWNED\r\nx",
    'http://example.org/PWNED"',
    "http://example.org/PWNED\\u003E",
    "http://example.org/PWNED\\U0000003E",
    "http://example.org/PWNED\x00",
    "http://example.org/PWNED\x7f",
    "http://example.org/PWNED|x",
    "http://example.org/PWNED^x",
    "http://example.org/PWNED`x",
    "http://example.org/PWNED\u202e",
    "http://example.org/PWNED\u200b",
    "http://example.org/" + "PWNED" * 20_000,
    "wiki:PWNED> } ; DROP ALL ; #",
    "wiki:PWNED Holmes",
    "wiki:PWNED{}",
    "wiki:PWNED\\>",
    'wiki:PWNED"} #',
    "nosuchprefix:PWNED",
    "PWNED:Sherlock_Holmes",
    "javascript:PWNED(1)",
    "?PWNED",
    "$PWNED",
    "PWNED",
    "_:PWNED",
    "\"PWNED\"@en",
    "<<( wiki:a wiki:b wiki:PWNED )>>",
    "http://[PWNED",
    "wiki:Sherlock_Holmes\tPWNED",
]


class Recorder:
    def __init__(self) -> None:
        self.queries: list[str] = []

    def __call__(self, query: str, rows: int) -> None:
        self.queries.append(query)


@pytest.fixture()
def recorded() -> Iterator[tuple[Gateway, Recorder]]:
    gateway = Gateway.open(DEMO)
    recorder = Recorder()
    gateway.backend.query_log = recorder  # type: ignore[attr-defined]
    yield gateway, recorder
    assert not [q for q in recorder.queries if spliced(q)]


def spliced(query: str) -> bool:
    """Whether PWNED appears anywhere but inside one valid IRI token `<...>`."""
    from gateway.ids import check_iri

    for at in [m.start() for m in re.finditer("PWNED", query)]:
        start, end = query.rfind("<", 0, at), query.find(">", at)
        if start < 0 or end < 0 or ">" in query[start:at]:
            return True
        try:
            check_iri(query[start + 1 : end], "probe")
        except InvalidInput:
            return True
    return False


def calls(hostile: str) -> list[tuple[str, dict[str, object]]]:
    return [
        ("bfs_query", {"seeds": [hostile]}),
        ("bfs_query", {"seeds": ["wiki:Sherlock_Holmes", hostile], "max_hops": 1}),
        ("bfs_query", {"seeds": ["wiki:Sherlock_Holmes"], "node_filter": {"entity_types": [hostile]}}),
        ("bfs_query", {"seeds": ["wiki:Sherlock_Holmes"], "edge_filter": {"predicates": [hostile]}}),
        ("describe_entity", {"id": hostile}),
        ("describe_entities", {"ids": [hostile, "wiki:Irene_Adler"]}),
        ("search_entities", {"query": "Irene", "entity_types": [hostile]}),
    ]


def test_the_corpus_is_large_enough() -> None:
    assert len(HOSTILE) >= 30 and all("PWNED" in h for h in HOSTILE)


@pytest.mark.parametrize("hostile", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_id_is_refused_or_unresolved(recorded: tuple[Gateway, Recorder], hostile: str) -> None:
    gateway, _ = recorded
    for tool, arguments in calls(hostile):
        try:
            result = gateway.call(tool, arguments)
        except InvalidInput as error:
            assert error.field, (tool, hostile)
            continue
        except Exception as error:
            if tool == "describe_entity" and type(error).__name__ == "NotFound":
                continue
            raise AssertionError(f"{tool} raised {error!r} for {hostile!r}") from error
        if isinstance(result, Subgraph) and hostile in arguments.get("seeds", []):  # type: ignore[operator]
            assert result.unresolved_seeds and "PWNED" in " ".join(result.unresolved_seeds)
        elif isinstance(result, (Subgraph, SearchResult)):
            assert any("PWNED" in w for w in result.warnings), (tool, hostile, result.warnings)
        else:
            assert "PWNED" in " ".join(result.unresolved)  # type: ignore[attr-defined]


def test_ordinary_ids_do_reach_the_store(recorded: tuple[Gateway, Recorder]) -> None:
    """The recorder sees real queries, so its silence about PWNED means something."""
    gateway, recorder = recorded
    gateway.bfs_query(seeds=["wiki:Sherlock_Holmes"], max_hops=1)
    assert any("https://example.org/wiki/Sherlock_Holmes" in q for q in recorder.queries)
