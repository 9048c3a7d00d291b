"""`bfsql demo medlit`: the BFS-QL book's two questions on the medlit bundle, answered
with the tools as an agent would call them (search first, a predicate walk, the evidence)."""

from __future__ import annotations

from typing import Any

from gateway.api import Gateway
from gateway.demos import print_next_steps, show_step

CUSHING = "DBPedia:Cushing's_disease"
DESMOPRESSIN = "RxNorm:3251"


def run_medlit_demo(gateway: Gateway, *, data: str | None = None) -> None:
    """The book's session: orient, resolve the question's own words, walk TREATS in, read
    the evidence, and connect desmopressin to the disease. `data` is the bundle directory
    the printed commands name."""

    def step(title: str, tool: str, arguments: dict[str, Any], lesson: Any) -> Any:
        return show_step(gateway, title, tool, arguments, lesson, data=data, width=2400)

    step("1. Orient", "describe_schema", {},
         lambda schema: "Types and predicates come from the graph, and each predicate says what it connects: "
         f"TREATS goes {_treats(schema)}, so 'what treats X' walks TREATS in.")
    step("2. Resolve the question's words", "search_entities", {"query": "Cushing's disease", "limit": 3},
         _trap)
    step("3. What treats Cushing's disease? Walk TREATS in, names included", "bfs_query",
         {"seeds": [CUSHING], "predicates": ["TREATS"], "direction": "in", "max_hops": 1,
          "topology_only": True, "layout": "compact"},
         lambda walk: f"{walk.edge_count} treatments, with their labels, in one call. " + (
             f"hidden_by_filter {walk.hidden_by_filter} counts TREATS claims the default truth_status did not cross."
             if walk.hidden_by_filter else "hidden_by_filter is empty: no TREATS claim here is hypothetical or disputed."))
    step("4. ... and what is the evidence? The same walk with full edges", "bfs_query",
         {"seeds": [CUSHING], "predicates": ["TREATS"], "direction": "in", "max_hops": 1, "layout": "compact",
          "node_filter": {"entity_types": []}},
         "Each edge carries its confidence, its source paper and the strongest evidence quote; "
         "bookkeeping (creation times, counters) is left out (describe_entity shows it).")
    step("5. How is desmopressin connected to Cushing's disease?", "shortest_path",
         {"source": DESMOPRESSIN, "target": CUSHING},
         lambda path: f"{path.hops} hop: a stated TREATS, with its evidence; weakest_edge points into the path.")
    step("6. Its neighbourhood, as the book surveys it (every truth status)", "bfs_query",
         {"seeds": [DESMOPRESSIN], "max_hops": 2, "topology_only": True, "layout": "compact",
          "truth_status": ["asserted_true", "asserted_false", "hypothetical", "disputed", "retracted"]},
         lambda walk: f"{walk.node_count} nodes, {walk.edge_count} edges, labelled, in "
         f"{len(walk.model_dump_json(exclude_none=True)):,} characters.")
    print_next_steps(data)


def _trap(found: Any) -> str:
    first = found.results[0]
    others = [f"{h.id} ({h.label!r}, {h.degree} relationships)" for h in found.results[1:] if h.entity_type == "disease"]
    trap = f"; {', '.join(others)} also matches, and a walk from it finds no treatment" if others else ""
    return (f"First: {first.id} ({first.label!r}, {first.degree} relationships){trap}. Names are compared without "
            "possessives or punctuation, and equal matches rank by degree, so the question's own words find the disease.")


def _treats(schema: Any) -> str:
    treats = next((p for p in schema.predicates if p.id == "TREATS"), None)
    if treats is None or not treats.connects:
        return "between entities"
    return ", ".join(treats.connects)
