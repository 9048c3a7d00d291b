"""A profile changes how the tools read a graph through `Profile`'s strategies alone: one that
reads nothing whole (as the wikidata profile on a remote endpoint) is a subclass, and the
engine and tools show what it says without knowing it."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from gateway import Gateway
from gateway.backends.embedded import EmbeddedBackend
from gateway.profiles.graph import Graph, TermResolver
from gateway.profiles.native import NativeProfile
from gateway.profiles.statistics import Estimates, Statistics
from tests.conftest import DEMO

T = TypeVar("T")
REL = "https://example.org/rel/"
CANON = "https://example.org/graph/canon"


class ReadInPart(NativeProfile):
    """Probes a few terms, reads nothing whole, resolves names by a list of its own."""

    name = "read_in_part"

    def whole_graph(self, read: Callable[[], T]) -> T | None:
        return None

    def statistics(self, graph: Graph, count: Callable[[], Statistics]) -> Statistics:
        return Statistics(
            predicates={REL + "AppearsIn": 1000, REL + "Consults": 3}, types={}, statuses={"asserted_true": 1000},
            total=1000, reified=1000, plain=0, unasserted=0, without_asserted_at=1000, connects={}, schema_predicates={},
            term_types={}, unused_terms={}, blank_values={}, type_literals={},
        )

    def estimates(self) -> Estimates | None:
        return Estimates({"predicates": "probed, up to 1,000"}, {REL + "Consults": "asks the advice of"}, "a graph read in part")

    def named_graphs(self, graph: Graph) -> Iterable[str]:
        return (CANON,)

    def resolve_terms(
        self, graph: Graph, names: Sequence[str], field: str, *, kind: str, warnings: list[str], counted: TermResolver,
    ) -> set[str]:
        warnings.append(f"{field}: resolved by the profile")
        return {REL + name for name in names}


def gateway() -> Gateway:
    return Gateway(EmbeddedBackend.open(DEMO), profile=ReadInPart)


def test_describe_schema_shows_what_the_profile_probed() -> None:
    schema = gateway().describe_schema()
    # The profile's own label where the data has none (rel:Consults is in no triple of the demo).
    assert [(p.id, p.count, p.label) for p in schema.predicates] == [("rel:AppearsIn", 1000, "appears in"),
                                                                      ("rel:Consults", 3, "asks the advice of")]
    assert schema.estimates == {"predicates": "probed, up to 1,000"}
    assert schema.statements.total == 1000 and schema.truth_statuses == {"asserted_true": 1000}
    assert schema.valid_at_range is None and schema.as_of_range is None  # time ranges take the whole graph
    assert schema.named_graphs == [CANON]


def test_names_are_the_profiles_to_resolve() -> None:
    found = gateway().bfs_query(seeds=["wiki:Sherlock_Holmes"], max_hops=1, predicates=["AppearsIn"])
    assert "predicates: resolved by the profile" in found.warnings
    assert found.edges and {e.predicate for e in found.edges} == {"rel:AppearsIn"}
