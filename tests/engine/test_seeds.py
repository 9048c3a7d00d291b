"""Seeds: told apart after canonicalization, capped per tool, and reported in bounds.

A seed repeated in any of its forms is one seed; a seed past a tool's cap is unresolved
as past the cap (never "not in this graph"); warnings and unresolved lists stay small
however many seeds a caller sends; and each cap is one number, stated alike in the
tool's schema, its description, docs/tools.md and the code.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pyoxigraph as ox
import pytest

from gateway import Gateway
from gateway.engine.seeds import TOLD, UNRESOLVED_LISTED
from gateway.models.tables import MAX_ROWS_IDS
from gateway.tools import TOOLS, bfs, community, describe, intersect, neighbors
from gateway.tools.json_schemas import tool_schemas
from tests.conftest import DEMO, ROOT

FORMS = ["wiki:Sherlock_Holmes", "WIKI:Sherlock_Holmes", "https://example.org/wiki/Sherlock_Holmes",
         "<https://example.org/wiki/Sherlock_Holmes>", " wiki:Sherlock_Holmes "]


@pytest.fixture(scope="module")
def demo() -> Gateway:
    return Gateway.open(DEMO)


@pytest.fixture(scope="module")
def many() -> Gateway:
    """400 entities in a ring: more distinct seeds than any cap."""
    store = ox.Store()
    knows = ox.NamedNode("http://many.example/knows")
    store.extend(ox.Quad(ox.NamedNode(f"http://many.example/e{i:03d}"), knows,
                         ox.NamedNode(f"http://many.example/e{(i + 1) % 400:03d}")) for i in range(400))
    return Gateway.open(store, prefixes={"m": "http://many.example/"})


def test_one_seed_in_300_copies_and_five_forms_is_one_seed(demo: Gateway) -> None:
    result = demo.bfs_query(seeds=FORMS * 60, max_hops=1, topology_only=True)
    assert result.seeds == ["wiki:Sherlock_Holmes"] and result.unresolved_seeds == [] and result.warnings == []
    assert result.model_dump() == demo.bfs_query(seeds=["wiki:Sherlock_Holmes"], max_hops=1, topology_only=True).model_dump()
    both = demo.intersect_subgraphs(seeds=[*FORMS, "wiki:Irene_Adler", "wiki:Irene_Adler"], k=1)
    assert both.seeds == ["wiki:Sherlock_Holmes", "wiki:Irene_Adler"] and both.unresolved_seeds == []


@pytest.mark.parametrize(("tool", "field", "cap", "arguments"), [
    ("bfs_query", "seeds", bfs.MAX_SEEDS, {"max_hops": 0}),
    ("intersect_subgraphs", "seeds", intersect.MAX_SEEDS, {"k": 1}),
    ("describe_entities", "ids", describe.MAX_IDS, {}),
    ("communities", "seeds", community.MAX_SEEDS, {"max_hops": 1}),
    ("expand_neighbors", "entity_ids", neighbors.MAX_SEEDS, {}),
])
def test_seeds_past_the_cap_are_unresolved_as_such(
    many: Gateway, tool: str, field: str, cap: int, arguments: dict[str, object]
) -> None:
    seeds = [f"m:e{i:03d}" for i in range(cap + 44)] + ["m:e000", "http://many.example/e001"]
    answer = many.call(tool, {field: seeds, **arguments}).model_dump()
    unresolved = answer.get("unresolved_seeds", answer.get("unresolved"))
    assert unresolved == [f"m:e{i:03d}" for i in range(cap, cap + 44)]
    assert not [w for w in answer["warnings"] if "not in this graph" in w]
    assert any(f"at most {cap} distinct seeds" in w and "44 more" in w for w in answer["warnings"])


def test_ten_thousand_bad_seeds_make_a_small_answer_quickly(demo: Gateway) -> None:
    seeds = [f"wiki:Nobody_{i}" for i in range(5_000)] + [f"nosuchprefix:x{i}" for i in range(5_000)]
    started = time.perf_counter()
    result = demo.bfs_query(seeds=["wiki:Irene_Adler", *seeds], max_hops=1, topology_only=True)
    assert time.perf_counter() - started < 60  # a bound that only a per-seed search would break
    assert result.seeds == ["wiki:Irene_Adler"] and result.node_count > 1
    assert len(result.unresolved_seeds) == UNRESOLVED_LISTED
    assert len(result.warnings) <= 2 * TOLD + 5
    assert any("seeds are unresolved; the first 1000 are listed" in w for w in result.warnings)
    assert len(result.model_dump_json()) < 100_000


def test_a_100000_word_seed_is_refused_before_any_work(demo: Gateway) -> None:
    from gateway import InvalidInput

    started = time.perf_counter()
    with pytest.raises(InvalidInput, match="4096"):
        demo.bfs_query(seeds=["Cushing " * 100_000])
    assert time.perf_counter() - started < 1


def test_a_long_unknown_id_is_suggested_from_its_first_words(demo: Gateway) -> None:
    started = time.perf_counter()
    result = demo.bfs_query(seeds=["wiki:" + "Irene_Adler_" * 300])  # 3,600 characters, 600 words
    assert time.perf_counter() - started < 5
    assert "wiki:Irene_Adler" in " ".join(result.warnings)


# -- one cap per tool, said alike everywhere ------------------------------------------------
CAPS = [
    ("bfs_query", "seeds", bfs.MAX_SEEDS),
    ("intersect_subgraphs", "seeds", intersect.MAX_SEEDS),
    ("describe_entities", "ids", describe.MAX_IDS),
    ("communities", "seeds", community.MAX_SEEDS),
    ("expand_neighbors", "entity_ids", neighbors.MAX_SEEDS),
    ("tabulate", "ids", MAX_ROWS_IDS),
]


def _numbers(text: str) -> set[int]:
    return {int(n.replace(",", "")) for n in re.findall(r"\d[\d,]*", text)}


@pytest.mark.parametrize(("tool", "field", "cap"), CAPS)
def test_each_cap_is_one_number_in_schema_description_docs_and_code(tool: str, field: str, cap: int) -> None:
    schemas = tool_schemas()
    component = schemas.inputs[tool]["$ref"].rsplit("/", 1)[-1]
    described = schemas.components[component]["properties"][field]["description"]
    assert cap in _numbers(described), described
    docs = (ROOT / "docs" / "tools.md").read_text(encoding="utf-8")
    section = docs[docs.index(f"`{tool}`", docs.index("## Caps")):]
    assert cap in _numbers(section.split("\n")[0]), section.split("\n")[0]
    if tool in ("intersect_subgraphs", "describe_entities"):  # their descriptions name the cap
        assert cap in _numbers(TOOLS[tool].description), TOOLS[tool].description


def test_the_docs_caps_table_names_every_capped_tool() -> None:
    docs = Path(ROOT / "docs" / "tools.md").read_text(encoding="utf-8")
    table = "\n".join(line for line in docs[docs.index("## Caps"):].split("\n") if line.startswith("|"))
    assert {tool for tool, _, _ in CAPS} <= set(re.findall(r"`(\w+)`", table))
