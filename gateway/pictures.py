"""Answers as pictures: DOT (Graphviz), GraphML (Gephi, yEd, Cytoscape), Mermaid (GitHub
Markdown) and SVG drawn here, for the walking tools' answers (bfs_query,
intersect_subgraphs, shortest_path, communities).

An answer is read as its JSON (`model_dump`), so this module needs no model class and
any layer can call it. Nodes carry their label where the answer (or the caller, with
`labels`) has one; edges their predicate. A statement that is not `asserted_true` is
drawn dashed and coloured by its truth status, a trait-derived mirror dotted; the SVG
carries a legend. The SVG layout is the answer's own: rings by hop around the seeds (a
path on a line, communities side by side), nodes on a ring in ID order, so the same
answer always draws the same picture.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

FORMATS = ("dot", "graphml", "mermaid", "svg")
MEDIA_TYPES = {"dot": "text/vnd.graphviz", "graphml": "application/graphml+xml", "mermaid": "text/vnd.mermaid",
               "svg": "image/svg+xml"}
STATUS_COLOURS = {"asserted_true": "#444444", "asserted_false": "#c0392b", "hypothetical": "#2e86c1",
                  "disputed": "#d68910", "retracted": "#7f8c8d"}
DERIVED_COLOUR = "#8e44ad"


@dataclass
class Picture:
    title: str
    nodes: dict[str, tuple[str | None, str, int]] = field(default_factory=dict)
    """ID -> (label, entity type, group: the hop, distance or community it is drawn in)."""
    edges: list[tuple[str, str, str, str, str | None, str | None]] = field(default_factory=list)
    """(subject, predicate, object, truth status, derived_via, statement ID)."""


def picture_of(tool: str, answer: Mapping[str, Any], labels: Mapping[str, str] | None = None) -> Picture:
    """The nodes and edges of a walking `tool`'s answer (its JSON), labelled where known."""
    if tool not in _READERS:
        raise ValueError(f"{tool} answers are not drawn; {', '.join(_READERS)} are")
    return _READERS[tool](tool, answer, dict(labels or {}))


def _communities(tool: str, answer: Mapping[str, Any], labels: dict[str, str]) -> Picture:
    """The listed members, grouped by community, no edges."""
    picture = Picture(tool)
    for level in answer["levels"]:
        for community in level.get("communities", []):
            for member in community["members"]:
                picture.nodes[member["id"]] = (member.get("label") or labels.get(member["id"]), "member",
                                               community["id"])
    return picture


def _path(tool: str, answer: Mapping[str, Any], labels: dict[str, str]) -> Picture:
    """The path, its nodes in order."""
    picture = Picture(tool)
    for position, node in enumerate(answer.get("nodes", [])):
        picture.nodes[node] = (labels.get(node), "", position)
    picture.edges = [_edge(e) for e in answer.get("edges", [])]
    return picture


def _subgraph(tool: str, answer: Mapping[str, Any], labels: dict[str, str]) -> Picture:
    """A walk's or an intersection's nodes and edges, in either layout; a walk's nodes
    grouped by hop from its seeds."""
    picture = Picture(tool, _listed_nodes(answer, labels), _listed_edges(answer))
    for s, _, o, *_ in picture.edges:  # an end the answer lists nowhere else still gets drawn
        for end in (s, o):
            picture.nodes.setdefault(end, (labels.get(end), "", 0))
    if tool == "bfs_query":
        _hops(picture, answer.get("seeds", []))
    return picture


def _listed_nodes(answer: Mapping[str, Any], labels: dict[str, str]) -> dict[str, tuple[str | None, str, int]]:
    """The nodes an answer lists, in either layout, an intersection's at its least distance."""
    found: dict[str, tuple[str | None, str, int]] = {}
    nodes = answer["nodes"]
    if isinstance(nodes, dict):  # compact layout: type -> ID -> label
        for kind, members in nodes.items():
            for node, label in members.items():  # one in another language than the reader's: {text, language}
                found[node] = ((label["text"] if isinstance(label, dict) else label) or labels.get(node), kind, 0)
    for node in answer.get("node_details") or (nodes if isinstance(nodes, list) else []):
        distances = node.get("distances") or {}
        group = min(distances.values()) if distances else 0
        found[node["id"]] = (node.get("label") or labels.get(node["id"]), node.get("entity_type", ""), group)
    return found


def _listed_edges(answer: Mapping[str, Any]) -> list[tuple[str, str, str, str, str | None, str | None]]:
    edges = answer["edges"]
    if not isinstance(edges, dict):
        return [_edge(e) for e in edges]
    # compact: subject -> predicate -> objects, then the derived and the detailed edges
    listed = [(s, p, o, "asserted_true", None, None) for s, by in edges.items() for p, objects in by.items()
              for o in objects]
    listed += [(s, p, o, "asserted_true", d, None) for s, p, o, d in answer.get("derived_edges") or []]
    return listed + [_edge(e) for e in answer.get("edge_details") or []]


_READERS: dict[str, Callable[[str, Mapping[str, Any], dict[str, str]], Picture]] = {
    "bfs_query": _subgraph, "intersect_subgraphs": _subgraph, "shortest_path": _path, "communities": _communities,
}
PICTURED = tuple(_READERS)
"""The tools whose answers are drawn."""


def _edge(edge: Mapping[str, Any]) -> tuple[str, str, str, str, str | None, str | None]:
    return (edge["subject"], edge["predicate"], edge["object"], edge.get("truth_status") or "asserted_true",
            edge.get("derived_via"), edge.get("id"))


def _hops(picture: Picture, seeds: list[str]) -> None:
    """Each node's hop from the seeds along the answer's edges (its ring in the drawing)."""
    neighbours: dict[str, set[str]] = {}
    for s, _, o, *_ in picture.edges:
        neighbours.setdefault(s, set()).add(o)
        neighbours.setdefault(o, set()).add(s)
    hop = {seed: 0 for seed in seeds if seed in picture.nodes}
    frontier = sorted(hop)
    while frontier:
        following = []
        for node in frontier:
            for other in sorted(neighbours.get(node, ())):
                if other not in hop:
                    hop[other] = hop[node] + 1
                    following.append(other)
        frontier = following
    for node, (label, kind, _) in picture.nodes.items():
        picture.nodes[node] = (label, kind, hop.get(node, max(hop.values(), default=0) + 1))


class Drawable:
    """An answer that can be drawn (`gateway.pictures`): labels come from the answer, or
    `labels` (ID -> label); `Gateway.picture` fills in the ones the answer lacks."""

    tool: ClassVar[str]
    """The tool whose answer this is (how its JSON is read)."""

    def picture(self, fmt: str, labels: dict[str, str] | None = None) -> str:
        answer = self.model_dump(mode="json", exclude_none=True)  # type: ignore[attr-defined]
        return render(picture_of(self.tool, answer, labels), fmt)

    def to_dot(self, labels: dict[str, str] | None = None) -> str:
        return self.picture("dot", labels)

    def to_graphml(self, labels: dict[str, str] | None = None) -> str:
        return self.picture("graphml", labels)

    def to_mermaid(self, labels: dict[str, str] | None = None) -> str:
        return self.picture("mermaid", labels)

    def to_svg(self, labels: dict[str, str] | None = None) -> str:
        return self.picture("svg", labels)


def render(picture: Picture, fmt: str) -> str:
    return {"dot": to_dot, "graphml": to_graphml, "mermaid": to_mermaid, "svg": to_svg}[fmt](picture)


# -- what data may put in a picture ----------------------------------------------------------------
# One rule per format, applied to every text an answer brings (IDs, labels, types,
# predicates): a label is data, so it can never break the file, run as markup or restyle it.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\ufffe\uffff]")
_MERMAID_PLAIN = re.compile("[A-Za-z0-9 _.,:;/()+=?!@'-]")


def _visible(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04X}"


def _xml_text(text: str) -> str:
    """Text XML 1.0 can hold: a character it cannot (a control character, U+FFFE) written `\\uXXXX`."""
    return _NOT_XML.sub(_visible, text)


def _dot_text(text: str) -> str:
    """Text for a DOT string: control characters (a NUL ends Graphviz's input) written `\\uXXXX`."""
    return _CONTROL.sub(_visible, text.replace("\n", " "))


def _mermaid_text(text: str) -> str:
    """Text for a Mermaid label: every character but letters, digits, spaces and plain
    punctuation as an entity code (`#60;`), so no HTML tag, link, directive (`%%{init}%%`)
    or Markdown string in a label is read as one."""
    return "".join(c if _MERMAID_PLAIN.fullmatch(c) else f"#{ord(c)};" for c in text.replace("\n", " "))


def _cleaned(picture: Picture, clean: Callable[[str], str]) -> Picture:
    """The picture with `clean` applied to every text in it."""

    def maybe(text: str | None) -> str | None:
        return None if text is None else clean(text)

    return Picture(
        clean(picture.title),
        {clean(node): (maybe(label), clean(kind), group) for node, (label, kind, group) in picture.nodes.items()},
        [(clean(s), clean(p), clean(o), clean(status), maybe(derived), maybe(statement))
         for s, p, o, status, derived, statement in picture.edges],
    )


# -- DOT --------------------------------------------------------------------------------------
def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def to_dot(picture: Picture) -> str:
    picture = _cleaned(picture, _dot_text)
    lines = [f"digraph {_quoted(picture.title)} {{", "  node [shape=box, style=rounded, fontname=Helvetica];",
             "  edge [fontname=Helvetica, fontsize=10];"]
    for node, (label, kind, _) in sorted(picture.nodes.items()):
        shown = f"{label}\n{node}" if label and label != node else node
        lines.append(f"  {_quoted(node)} [label={_quoted(shown)}, tooltip={_quoted(kind)}];")
    for s, p, o, status, derived, _ in picture.edges:
        style = "dotted" if derived else "solid" if status == "asserted_true" else "dashed"
        colour = DERIVED_COLOUR if derived else STATUS_COLOURS.get(status, "#000000")
        label = p if status == "asserted_true" else f"{p} ({status})"
        lines.append(f"  {_quoted(s)} -> {_quoted(o)} [label={_quoted(label)}, style={style}, color={_quoted(colour)}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


# -- Mermaid ------------------------------------------------------------------------------------
def to_mermaid(picture: Picture) -> str:
    number = {node: f"n{i}" for i, node in enumerate(sorted(picture.nodes))}
    lines = ["graph LR"]
    for node, (label, _, _) in sorted(picture.nodes.items()):
        shown = f"{_mermaid_text(label)}<br/>{_mermaid_text(node)}" if label and label != node else _mermaid_text(node)
        lines.append(f'  {number[node]}["{shown}"]')
    for s, p, o, status, derived, _ in picture.edges:
        arrow = "-.->" if derived or status != "asserted_true" else "-->"
        label = p if status == "asserted_true" else f"{p} ({status})"
        lines.append(f'  {number[s]} {arrow}|"{_mermaid_text(label)}"| {number[o]}')
    return "\n".join(lines) + "\n"


# -- GraphML ------------------------------------------------------------------------------------
GRAPHML = "http://graphml.graphdrawing.org/xmlns"
_KEYS = (("id", "node", "entity_id"), ("label", "node", "label"), ("type", "node", "entity_type"),
         ("predicate", "edge", "predicate"), ("status", "edge", "truth_status"), ("derived", "edge", "derived_via"),
         ("statement", "edge", "statement"))


def to_graphml(picture: Picture) -> str:
    picture = _cleaned(picture, _xml_text)
    ET.register_namespace("", GRAPHML)
    root = ET.Element(f"{{{GRAPHML}}}graphml")
    for key, target, name in _KEYS:
        ET.SubElement(root, f"{{{GRAPHML}}}key", {"id": key, "for": target, "attr.name": name, "attr.type": "string"})
    graph = ET.SubElement(root, f"{{{GRAPHML}}}graph", {"id": picture.title, "edgedefault": "directed"})
    number = {node: f"n{i}" for i, node in enumerate(sorted(picture.nodes))}

    def data(parent: ET.Element, key: str, value: str | None) -> None:
        if value:
            ET.SubElement(parent, f"{{{GRAPHML}}}data", {"key": key}).text = value

    for node, (label, kind, _) in sorted(picture.nodes.items()):
        element = ET.SubElement(graph, f"{{{GRAPHML}}}node", {"id": number[node]})
        data(element, "id", node)
        data(element, "label", label)
        data(element, "type", kind)
    for i, (s, p, o, status, derived, statement) in enumerate(picture.edges):
        element = ET.SubElement(graph, f"{{{GRAPHML}}}edge", {"id": f"e{i}", "source": number[s], "target": number[o]})
        data(element, "predicate", p)
        data(element, "status", status)
        data(element, "derived", derived)
        data(element, "statement", statement)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


# -- SVG ------------------------------------------------------------------------------------------
SVG = "http://www.w3.org/2000/svg"
RING, NODE_RADIUS, MARGIN = 170.0, 7.0, 60.0


def layout(picture: Picture) -> dict[str, tuple[float, float]]:
    """Positions: a ring per group around the centre (group 0 there), nodes on a ring in ID
    order; a path's nodes on a line; communities side by side, each its own rings."""
    if picture.title == "shortest_path":
        return {node: (group * RING, 0.0) for node, (_, _, group) in picture.nodes.items()}
    groups: dict[int, list[str]] = {}
    for node, (_, _, group) in sorted(picture.nodes.items()):
        groups.setdefault(group, []).append(node)
    if picture.title == "communities":
        return {node: (group * 2.2 * RING + RING * math.cos(2 * math.pi * i / len(members)),
                       RING * math.sin(2 * math.pi * i / len(members)))
                for group, members in groups.items() for i, node in enumerate(members)}
    found = {}
    for group, members in groups.items():
        radius = group * RING if group else (0.0 if len(members) == 1 else RING / 3)
        for i, node in enumerate(members):
            angle = 2 * math.pi * i / len(members) + group * 0.35  # rings turned a little: fewer straight overlaps
            found[node] = (radius * math.cos(angle), radius * math.sin(angle))
    return found


def to_svg(picture: Picture) -> str:
    picture = _cleaned(picture, _xml_text)
    places = layout(picture)
    xs = [x for x, _ in places.values()] or [0.0]
    ys = [y for _, y in places.values()] or [0.0]
    left, top = min(xs) - MARGIN - 120, min(ys) - MARGIN
    width, height = max(xs) - left + MARGIN + 200, max(ys) - top + MARGIN + 110
    ET.register_namespace("", SVG)
    root = ET.Element(f"{{{SVG}}}svg", {"viewBox": f"{left:.1f} {top:.1f} {width:.1f} {height:.1f}",
                                         "width": f"{width:.0f}", "height": f"{height:.0f}",
                                         "font-family": "Helvetica, Arial, sans-serif", "font-size": "11"})
    ET.SubElement(root, f"{{{SVG}}}title").text = picture.title
    _svg_edges(ET.SubElement(root, f"{{{SVG}}}g", {"class": "edges"}), picture, places)
    _svg_nodes(ET.SubElement(root, f"{{{SVG}}}g", {"class": "nodes"}), picture, places)
    _svg_legend(ET.SubElement(root, f"{{{SVG}}}g", {"class": "legend"}), left, top)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def _svg_edges(edges: ET.Element, picture: Picture, places: dict[str, tuple[float, float]]) -> None:
    for s, p, o, status, derived, statement in picture.edges:
        (x1, y1), (x2, y2) = places[s], places[o]
        colour = DERIVED_COLOUR if derived else STATUS_COLOURS.get(status, "#000000")
        line = ET.SubElement(edges, f"{{{SVG}}}line", {
            "class": "edge", "x1": f"{x1:.1f}", "y1": f"{y1:.1f}", "x2": f"{x2:.1f}", "y2": f"{y2:.1f}",
            "stroke": colour, "stroke-width": "1.2", "data-subject": s, "data-predicate": p, "data-object": o,
            **({"data-statement": statement} if statement else {}),
            **({"stroke-dasharray": "2 3" if derived else "6 4"} if derived or status != "asserted_true" else {}),
        })
        ET.SubElement(line, f"{{{SVG}}}title").text = f"{s} {p} {o}" + ("" if status == "asserted_true" else f" ({status})")


def _svg_nodes(nodes: ET.Element, picture: Picture, places: dict[str, tuple[float, float]]) -> None:
    for node, (label, kind, ring) in sorted(picture.nodes.items()):
        x, y = places[node]
        seed = ring == 0 and picture.title == "bfs_query"  # the walk's centre stands out
        group = ET.SubElement(nodes, f"{{{SVG}}}g", {"class": "node", "data-id": node})
        ET.SubElement(group, f"{{{SVG}}}title").text = f"{node} ({kind})" if kind else node
        ET.SubElement(group, f"{{{SVG}}}circle", {"cx": f"{x:.1f}", "cy": f"{y:.1f}",
                                                   "r": f"{NODE_RADIUS * (1.5 if seed else 1)}",
                                                   "fill": "#f5b041" if seed else "#ffffff", "stroke": "#222222"})
        text = ET.SubElement(group, f"{{{SVG}}}text", {"x": f"{x + NODE_RADIUS + 4:.1f}", "y": f"{y + 4:.1f}",
                                                        **({"font-weight": "bold"} if seed else {})})
        text.text = (label or node)[:40]


def _svg_legend(legend: ET.Element, left: float, top: float) -> None:
    for i, (name, colour) in enumerate([*STATUS_COLOURS.items(), ("derived (trait)", DERIVED_COLOUR)]):
        y = top + 16 + 15 * i
        ET.SubElement(legend, f"{{{SVG}}}line", {"x1": f"{left + 10:.1f}", "y1": f"{y:.1f}", "x2": f"{left + 40:.1f}",
                                                 "y2": f"{y:.1f}", "stroke": colour, "stroke-width": "2",
                                                 **({} if name == "asserted_true" else {"stroke-dasharray": "6 4"})})
        ET.SubElement(legend, f"{{{SVG}}}text", {"x": f"{left + 46:.1f}", "y": f"{y + 4:.1f}"}).text = name
