"""`bfsql demo`: a short guided session on the demo graph, each step with what it shows."""

from __future__ import annotations

from typing import Any

from gateway.api import Gateway
from gateway.demos import print_next_steps, show_step


def run_demo(gateway: Gateway) -> None:
    def step(title: str, tool: str, arguments: dict[str, Any], lesson: Any) -> Any:
        return show_step(gateway, title, tool, arguments, lesson)

    step("1. Orient", "describe_schema", {},
         "The vocabulary comes from the graph itself: no predicate has to be guessed.")
    step("2. Resolve a name", "search_entities", {"query": "The Woman", "limit": 3},
         "A synonym resolves to the canonical ID; the ID is what every other tool takes.")
    survey = step("3. Survey the topology", "bfs_query",
                  {"seeds": ["wiki:Irene_Adler"], "max_hops": 2, "topology_only": True, "layout": "compact"},
                  lambda walk: f"{walk.node_count} nodes, {walk.edge_count} edges as stubs. hidden_by_filter counts "
                  "the statements the default truth_status kept the walk from crossing.")
    step("4. Widen the truth status", "bfs_query",
         {"seeds": ["wiki:Irene_Adler"], "max_hops": 2, "topology_only": True, "layout": "compact",
          "truth_status": ["asserted_true", "disputed", "hypothetical", "retracted"]},
         lambda wide: f"Uncertain claims are opt-in: {wide.edge_count - survey.edge_count} more edges once "
         "the traversal filter is widened.")
    step("5. Go back in time", "bfs_query",
         {"seeds": ["wiki:Irene_Adler"], "max_hops": 1, "as_of": 485, "topology_only": True, "layout": "compact"},
         "Statements asserted after sentence 485 are not reachable: the photograph is not yet hers.")
    step("6. Expand one stub", "describe_entity", {"id": "https://example.org/wiki/Irene_Adler"},
         "A URL is canonicalized to its CURIE; full data is paid for only where it is wanted.")
    step("7. Traits", "bfs_query",
         {"seeds": ["wiki:Nonconformist_Clergyman"], "max_hops": 1, "expand_traits": ["Inverse"], "topology_only": True},
         "HasTrueIdentity was never asserted; it is derived at query time from DisguisedAs and marked derived_via.")
    step("8. Statements about statements", "bfs_query",
         {"seeds": ["stmt:s12"], "max_hops": 1, "edge_filter": {"predicates": ["Doubts"]}},
         "A statement is a node too: Watson doubts that Holmes possesses the cigar case.")
    print_next_steps()
