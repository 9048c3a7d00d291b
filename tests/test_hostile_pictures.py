"""Data never breaks a picture: labels laden with control characters, noncharacters, bidi
overrides, HTML, script, CSS and Mermaid directives, drawn in every format and read back
by the real consumers (lxml, the GraphML schema, Graphviz), the Mermaid text checked for
anything a renderer would take as markup or a directive."""

from __future__ import annotations

import re
import shutil
import subprocess

import pyoxigraph as ox
import pytest
from lxml import etree

from gateway import Gateway
from tests.test_pictures import graphml_schema  # noqa: F401 - a fixture

PAYLOADS = [
    "x\u0001y", "nul\u0000here", "bell\u0007", "esc\u001b[31m", "del\u007f", "c1\u0085", "non\ufffe", "non\uffff",
    "vt\u000bff\u000c", "rtl\u202eevil", "zw\u200bsp", "<img src='http://127.0.0.1:9/beacon'>",
    "<a href='http://127.0.0.1:9/'>Verify your account</a>", "<script>alert(1)</script>",
    "%%{init: {'themeCSS': 'body{display:none}'}}%%", '" onmouseover="alert(1)', "`**md**`", "]];--> </svg>",
    "a\\b \\\\N \\l", "line\nbreak\rreturn",
]
EX = "http://hostile.example/"


def hostile_store(hub_label: str, *, comments: bool = False) -> ox.Store:
    """A hub whose neighbours are labelled with `PAYLOADS` (and described with them too, with
    `comments`), over three predicates."""
    store = ox.Store()
    hub = ox.NamedNode(EX + "hub")
    label = ox.NamedNode("http://www.w3.org/2000/01/rdf-schema#label")
    comment = ox.NamedNode("http://www.w3.org/2000/01/rdf-schema#comment")
    store.add(ox.Quad(hub, label, ox.Literal(hub_label)))
    for i, payload in enumerate(PAYLOADS):
        node = ox.NamedNode(f"{EX}n{i}")
        store.add(ox.Quad(hub, ox.NamedNode(f"{EX}p{i % 3}"), node))
        store.add(ox.Quad(node, label, ox.Literal(payload)))
        if comments:
            store.add(ox.Quad(node, comment, ox.Literal(payload)))
    return store


@pytest.fixture(scope="module")
def hostile() -> Gateway:
    return Gateway.open(hostile_store("hub <b>bold</b> \u0002"), prefixes={"h": EX})


WALK = {"seeds": ["h:hub"], "max_hops": 1}


@pytest.mark.parametrize("fmt", ["svg", "graphml"])
def test_xml_pictures_are_well_formed(hostile: Gateway, fmt: str) -> None:
    drawn = hostile.picture("bfs_query", WALK, fmt)
    root = etree.fromstring(drawn.encode())  # strict XML 1.0: raises on a control character
    assert root is not None and "\u0001" not in drawn and "\ufffe" not in drawn
    if fmt == "svg":
        assert not root.xpath("//*[local-name()='script' or local-name()='a' or local-name()='img']")
        assert not [a for e in root.iter() for a in e.attrib if a.lower().startswith("on")]
    assert "x\\u0001y" in drawn  # the character is shown, not dropped


def test_graphml_is_valid_against_its_schema(hostile: Gateway, graphml_schema: etree.XMLSchema) -> None:  # noqa: F811
    graphml_schema.assertValid(etree.fromstring(hostile.picture("bfs_query", WALK, "graphml").encode()))


def test_dot_is_read_by_graphviz(hostile: Gateway) -> None:
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot is not installed (scripts/install-test-deps installs it)")
    drawn = hostile.picture("bfs_query", WALK, "dot")
    done = subprocess.run(["dot", "-Tsvg"], input=drawn.encode(), capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    etree.fromstring(done.stdout)  # Graphviz's own SVG of it is well-formed XML too
    assert b"\x00" not in drawn.encode()


def test_mermaid_holds_no_markup_or_directive_from_data(hostile: Gateway) -> None:
    drawn = hostile.picture("bfs_query", WALK, "mermaid")
    # The labels, without the one tag the picture itself writes.
    labels = [node or edge for node, edge in re.findall(r'\["(.*?)"\]|\|"(.*?)"\|', drawn)]
    text = "\n".join(labels).replace("<br/>", "")
    for marker in ("<", ">", "%%", "{", "}", "`", "\u202e", "\u0001", "javascript"):
        assert marker not in text, marker
    assert drawn.count("\n") == len(hostile.bfs_query(**WALK).nodes) + len(hostile.bfs_query(**WALK).edges) + 1
    assert "#60;script#62;" in drawn  # shown, as text
