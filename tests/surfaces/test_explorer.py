"""The explorer page of `bfsql serve`, driven in a real headless Chromium (Debian's
`chromium`) through the DevTools protocol (tests/surfaces/browser.py). On the demo: search
"Irene", open her neighbourhood and check the drawing holds exactly the API's nodes and
statements; click every edge where it is drawn (the two between Irene Adler and Godfrey
Norton included) and see each open its own statement; change the truth statuses and the
predicates walked and see the drawing follow the API's count; reload the address and get the
same view; expand a node in place; open the schema view. On medlit (where the shared data is
beside the checkout): Cushing's disease at 2 hops, labels at several zooms and with "All
labels", a predicate filter, a statement's evidence; the schema view of its twenty types.
Colours are fixed per type (the same by a search and by the bookmarked address; a palette
whose colours are all told apart), labels never sit under a node, cards never list
bookkeeping, the search box suggests the graph's best connected entity. Hostile labels run
nothing; a 1,000-node walk is drawn within the budget. Screenshots go to .artifacts/
(explorer.png, explorer-2hops.png, explorer-medlit.png, explorer-medlit-all-labels.png,
explorer-medlit-schema.png, explorer-schema.png) and, with
BFSQL_DOCS_SCREENSHOTS=1, to docs/ at 1,000 px across (the pictures of docs/explorer.md); the
time to first drawing to .artifacts/explorer-timing.json. No request leaves 127.0.0.1.
Skipped where Chromium is not installed (but for the palette's and the files' checks)."""

from __future__ import annotations

import itertools
import json
import math
import os
import re
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import pyoxigraph as ox
import pytest
from lxml import html

from gateway import Gateway
from gateway.importers.bundle_model import BOOKKEEPING
from gateway.surfaces.http import EXPLORER, EXPLORER_POLICY, EXPLORER_VENDOR
from tests.conftest import ROOT, shared_data
from tests.surfaces.browser import Browser, chromium, not_blank
from tests.surfaces.conftest import Served, start_server
from tests.test_hostile_pictures import EX, hostile_store

ARTIFACTS = ROOT / ".artifacts"
IRENE = "wiki:Irene_Adler"
CUSHING = "DBPedia:Cushing's_disease"
DISTINCT = 18.5  # the least CIEDE2000 difference between two type colours: plainly two colours side by side


def shot(page: Browser, artifact: str, doc: str) -> None:
    """A screenshot for CI's artefacts; with BFSQL_DOCS_SCREENSHOTS=1, docs/'s picture as well."""
    assert not_blank(page.screenshot(ARTIFACTS / artifact))
    if os.environ.get("BFSQL_DOCS_SCREENSHOTS") == "1":
        page.screenshot(ROOT / "docs" / doc, width=1000)


def lab(colour: str) -> tuple[float, float, float]:
    """CIELAB (D65) of an sRGB colour `#rrggbb` or `rgb(r,g,b)`."""
    if colour.startswith("#"):
        channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    else:
        channels = [int(c) / 255 for c in re.findall(r"\d+", colour)[:3]]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
    y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
    z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883
    fx, fy, fz = (t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116 for t in (x, y, z))
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def ciede2000(one: tuple[float, float, float], two: tuple[float, float, float]) -> float:
    """The CIEDE2000 colour difference (Sharma, Wu and Dalal's formulation)."""
    (l1, a1, b1), (l2, a2, b2) = one, two
    mean_c = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(mean_c ** 7 / (mean_c ** 7 + 25 ** 7)))
    c1, c2 = math.hypot((1 + g) * a1, b1), math.hypot((1 + g) * a2, b2)
    h1, h2 = (math.degrees(math.atan2(b, (1 + g) * a)) % 360 for a, b in ((a1, b1), (a2, b2)))
    dh = 0.0 if c1 * c2 == 0 else h2 - h1 if abs(h2 - h1) <= 180 else h2 - h1 - 360 if h2 > h1 else h2 - h1 + 360
    big_dh = 2 * math.sqrt(c1 * c2) * math.sin(math.radians(dh / 2))
    mean_l, mean_cp = (l1 + l2) / 2, (c1 + c2) / 2
    mean_h = (h1 + h2 if c1 * c2 == 0 else (h1 + h2) / 2 if abs(h1 - h2) <= 180
              else (h1 + h2 + 360) / 2 if h1 + h2 < 360 else (h1 + h2 - 360) / 2)
    t = (1 - 0.17 * math.cos(math.radians(mean_h - 30)) + 0.24 * math.cos(math.radians(2 * mean_h))
         + 0.32 * math.cos(math.radians(3 * mean_h + 6)) - 0.20 * math.cos(math.radians(4 * mean_h - 63)))
    rc = 2 * math.sqrt(mean_cp ** 7 / (mean_cp ** 7 + 25 ** 7))
    rt = -math.sin(math.radians(60 * math.exp(-(((mean_h - 275) / 25) ** 2)))) * rc
    sl = 1 + 0.015 * (mean_l - 50) ** 2 / math.sqrt(20 + (mean_l - 50) ** 2)
    sc, sh = 1 + 0.045 * mean_cp, 1 + 0.015 * mean_cp * t
    return math.sqrt(((l2 - l1) / sl) ** 2 + ((c2 - c1) / sc) ** 2 + (big_dh / sh) ** 2
                     + rt * ((c2 - c1) / sc) * (big_dh / sh))


def closest(colours: list[str]) -> tuple[float, str, str]:
    return min((ciede2000(lab(a), lab(b)), a, b) for a, b in itertools.combinations(colours, 2))


@pytest.fixture(scope="module")
def page() -> Iterator[Browser]:
    opened = Browser(chromium())
    yield opened
    opened.close()


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    served = start_server(tmp_path_factory.mktemp("explorer"))
    yield served
    served.stop()


def drawn(page: Browser) -> tuple[set[str], Counter[tuple[str, str, str]], list[dict[str, Any]]]:
    """The entity IDs drawn, the statements drawn (subject, predicate, object) and the edges."""
    found = page.evaluate("window.bfsqlExplorer.drawn()")
    return set(found["nodes"]), Counter((e["subject"], e["predicate"], e["object"]) for e in found["edges"]), found["edges"]


def answered(gateway: Gateway, arguments: dict[str, Any]) -> tuple[set[str], Counter[tuple[str, str, str]]]:
    walk = gateway.bfs_query(**arguments).model_dump(exclude_none=True)
    return {n["id"] for n in walk["nodes"]}, Counter((e["subject"], e["predicate"], e["object"]) for e in walk["edges"])


def the_call(page: Browser) -> dict[str, Any]:
    call = json.loads(page.evaluate("document.getElementById('call').textContent"))
    assert call["tool"] == "bfs_query"
    return dict(call["arguments"])


def assert_drawn_is_answered(page: Browser, gateway: Gateway) -> dict[str, Any]:
    arguments = the_call(page)
    nodes, edges, _ = drawn(page)
    assert (nodes, edges) == answered(gateway, arguments)
    assert page.evaluate("document.body.dataset.nodes") == str(len(nodes))
    assert page.evaluate("document.body.dataset.edges") == str(sum(edges.values()))
    return arguments


def act(page: Browser, script: str) -> int:
    """Run `script` (which starts a walk) and wait for its drawing; the drawing's number."""
    before = page.rendered()
    page.evaluate("{ " + script + "; } true")
    return page.drawn(before)


def click(page: Browser, x: float, y: float) -> None:
    for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
        page.send("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)


def click_edge(page: Browser, edge_id: str, closer: bool = False) -> None:
    """A real mouse click on the edge where it is drawn: its middle (where parallel edges are
    furthest apart), or another point along its curve if a node happens to cover the middle.
    `closer`: first zoom to the edge and its parallels, as one would in a crowded drawing."""
    if closer:
        before = page.rendered()
        page.evaluate(f"{{ const edge = window.bfsqlExplorer.cy.getElementById({json.dumps(edge_id)}); "
                      "window.bfsqlExplorer.cy.fit(edge.parallelEdges().union(edge.connectedNodes()), 120); } true")
        page.wait("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))")
        assert page.rendered() == before  # a zoom, not a new drawing
    x, y = page.evaluate(f"""(() => {{
        const cy = window.bfsqlExplorer.cy, edge = cy.getElementById({json.dumps(edge_id)});
        const box = document.getElementById('graph').getBoundingClientRect();
        const [a, b] = [edge.sourceEndpoint(), edge.targetEndpoint()];
        const c = (edge.controlPoints() || [])[0] || {{ x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 }};
        const along = (t) => ({{ x: (1 - t) ** 2 * a.x + 2 * (1 - t) * t * c.x + t ** 2 * b.x,
                                 y: (1 - t) ** 2 * a.y + 2 * (1 - t) * t * c.y + t ** 2 * b.y }});
        const pan = cy.pan(), zoom = cy.zoom();
        // The browser clicks at whole pixels: a point is taken where the edge is the one hit within 2 px.
        const client = (p) => [Math.round(box.left + pan.x + zoom * p.x), Math.round(box.top + pan.y + zoom * p.y)];
        const hit = ([x, y]) => cy.renderer().findNearestElement(
            (x - box.left - pan.x) / zoom, (y - box.top - pan.y) / zoom, true, false);
        const near = ([x, y]) => [[0, 0], [2, 0], [-2, 0], [0, 2], [0, -2]].every(([dx, dy]) => hit([x + dx, y + dy]) === edge);
        const points = [0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8, 0.45, 0.55, 0.35, 0.65].map(along).map(client);
        return points.find(near) || points.find(p => hit(p) === edge) || points[0]; }})()""")
    click(page, x, y)
    time.sleep(0.35)  # two clicks in a row are not a double click


def label_clashes(page: Browser, selector: str) -> tuple[int, list[tuple[dict[str, Any], dict[str, Any]]]]:
    """How many of the elements `selector` finds have a label drawn, and the pairs of those labels
    that overlap by more than a unit each way (Cytoscape's own label boxes, with the label, its
    side and size on screen to say which)."""
    boxes = page.evaluate(f"""(() => {{ const cy = window.bfsqlExplorer.cy;
        return cy.$({json.dumps(selector)}).filter(e => e.visible() && e.pstyle('label').strValue !== '').map(e => ({{
            ...e.boundingBox({{ includeNodes: false, includeEdges: false, includeLabels: true }}),
            label: e.pstyle('label').strValue, side: e.pstyle('text-valign').strValue + ' ' + e.pstyle('text-halign').strValue,
            px: e.numericStyle('font-size') * cy.zoom() }})); }})()""")
    clashes = [(a, b) for a, b in itertools.combinations(boxes, 2)
               if min(a["x2"], b["x2"]) - max(a["x1"], b["x1"]) > 1 and min(a["y2"], b["y2"]) - max(a["y1"], b["y1"]) > 1]
    return len(boxes), clashes


def labels_drawn(page: Browser) -> int:
    """How many node labels are drawn; none overlaps another (Cytoscape's own label boxes)."""
    found, clashes = label_clashes(page, "node")
    assert not clashes, clashes
    return found


def labels_under_nodes(page: Browser) -> list[list[str]]:
    """Labels a node's body is drawn over: a node label overlapped by another node drawn after it
    (as high or higher a z-index), an edge label overlapped by any node (edges are drawn below)."""
    return list(page.evaluate("""(() => {
        const cy = window.bfsqlExplorer.cy, found = [];
        const nodes = cy.nodes().filter(n => n.visible()), z = (n) => n.pstyle('z-index').value;
        const cut = (a, b) => Math.min(a.x2, b.x2) - Math.max(a.x1, b.x1) > 1 && Math.min(a.y2, b.y2) - Math.max(a.y1, b.y1) > 1;
        const label = { includeNodes: false, includeEdges: false, includeLabels: true };
        const bodies = nodes.map(n => [n, n.boundingBox({ includeLabels: false, includeOverlays: false })]);
        // An edge's label is turned along it: the nodes' round bodies are held against the turned box
        // (Cytoscape's own centre, moved by the label's margins, angle and size of the label, its
        // background's padding added).
        const under = (e, n, body) => {
            if (e.isNode()) return z(n) >= z(e) && cut(e.boundingBox(label), body);
            const r = e._private.rscratch, size = e._private.rstyle, angle = r.labelAngle || 0;
            const x = r.labelX + e.pstyle('text-margin-x').pfValue, y = r.labelY + e.pstyle('text-margin-y').pfValue;
            const dx = n.position('x') - x, dy = n.position('y') - y;
            const u = dx * Math.cos(angle) + dy * Math.sin(angle), v = -dx * Math.sin(angle) + dy * Math.cos(angle);
            const [w, h] = [size.labelWidth / 2 + 2, size.labelHeight / 2 + 2];
            return Math.hypot(u - Math.max(-w, Math.min(w, u)), v - Math.max(-h, Math.min(h, v))) < body.w / 2 - 1;
        };
        cy.elements().filter(e => e.visible() && e.pstyle('label').strValue !== '').forEach(e => {
            for (const [n, body] of bodies) {
                if (!n.same(e) && under(e, n, body)) {
                    found.push([e.pstyle('label').strValue, n.data('label'), e.classes().join(' '), n.classes().join(' '),
                                cy.zoom(), e.isNode() ? e.pstyle('text-valign').strValue : 'edge']);
                }
            }
        });
        return found; })()"""))


def labels_clear(page: Browser) -> int:
    """How many node labels are drawn, none over another nor under a node."""
    found = labels_drawn(page)
    under = labels_under_nodes(page)
    assert not under, under
    return found


# The share of the nodes in view that are labelled.
LABELLED_IN_VIEW = """(() => {
    const cy = window.bfsqlExplorer.cy, view = cy.extent();
    const inside = cy.nodes('.entity').filter(n => { const p = n.position();
        return p.x > view.x1 && p.x < view.x2 && p.y > view.y1 && p.y < view.y2; });
    return inside.filter(n => n.pstyle('label').strValue !== '').length / inside.length; })()"""


def shown_colours(page: Browser) -> dict[str, str]:
    """Entity ID -> the colour its node is drawn in."""
    return dict(page.evaluate("Object.fromEntries(window.bfsqlExplorer.cy.nodes('.entity')"
                              ".map(n => [n.data('iri'), n.style('background-color')]))"))


def only_local(page: Browser, served: Served) -> None:
    outside = page.outside()
    assert not outside, outside
    ports = {urlsplit(url).port for url in page.requests if urlsplit(url).scheme in ("http", "https")}
    assert ports <= {served.port}, ports  # nothing to 127.0.0.1:9 (the hostile labels' beacon) either
    assert not page.errors, page.errors
    assert not page.dialogs, page.dialogs
    assert not page.violations(), page.violations()  # the page needs nothing its policy refuses


def test_the_page_loads_only_files_of_its_own(demo: Served) -> None:
    """Every script and style the page names is one of the server's files, served with its
    type and the page's policy; the vendored library ships with its licences (the wheel
    carries gateway/surfaces/explorer whole)."""
    page = html.fromstring((EXPLORER / "index.html").read_bytes())
    named = page.xpath("//script/@src | //link/@href | //a/@href")
    assert named and all(url.startswith("/") and not url.startswith("//") for url in named), named
    assert not page.xpath("//script[not(@src)] | //*[@*[starts-with(name(), 'on')]]")  # no inline script
    with demo.client() as client:
        for url in [*named, "/", *(f"/vendor/{name}" for name in EXPLORER_VENDOR)]:
            answer = client.get(url)
            assert answer.status_code == 200, url
            assert answer.headers["content-security-policy"] == EXPLORER_POLICY
            assert answer.headers["x-content-type-options"] == "nosniff"
            kind = answer.headers["content-type"]
            assert kind.startswith({"js": "text/javascript", "css": "text/css", "md": "text/plain", "txt": "text/plain"}
                                   .get(url.rsplit(".", 1)[-1], "text/html")), (url, kind)
    licences = {name for name in EXPLORER_VENDOR if name.startswith("LICENSE-")}
    assert {f"LICENSE-{name.removesuffix('.js').removesuffix('.min')}.txt" for name in EXPLORER_VENDOR
            if name.endswith(".js")} == licences
    assert sorted(path.name for path in (EXPLORER / "vendor").iterdir()) == sorted(EXPLORER_VENDOR)


def test_the_explorer_draws_what_the_api_answers(demo: Served, page: Browser, demo_gateway: Gateway) -> None:
    page.open(f"{demo.url}/", forget=True)
    page.evaluate("document.getElementById('search').value = 'Irene'; "
                  "document.getElementById('search-form').requestSubmit(); true")
    page.wait(f"!!document.querySelector('#results button[data-id=\"{IRENE}\"]')")
    act(page, f"document.querySelector('#results button[data-id=\"{IRENE}\"]').click()")
    arguments = assert_drawn_is_answered(page, demo_gateway)
    assert arguments == {"seeds": [IRENE], "max_hops": 1, "direction": "both", "truth_status": ["asserted_true"],
                         "max_nodes": 500}

    # Every edge, parallel ones included, is clicked where it is drawn and opens its own statement.
    _, _, edges = drawn(page)
    pairs = Counter(frozenset((e["subject"], e["object"])) for e in edges)
    assert pairs[frozenset((IRENE, "wiki:Godfrey_Norton"))] == 2  # Knows and MarriedTo
    for edge in edges:
        click_edge(page, edge["id"])
        page.wait(f"document.querySelector('#details .card')?.dataset.edge === {json.dumps(edge['id'])}")
        assert page.evaluate("document.querySelector('#details .card').dataset.statement") == edge["statement"]
        triple = page.evaluate("document.querySelector('#details .triple').textContent")
        assert edge["predicate"] in triple
    page.wait("!!document.querySelector('#details details pre')")  # all data, one click away
    labels_clear(page)
    shot(page, "explorer.png", "explorer-demo-1hop.png")

    # A truth status widens the walk: the drawing follows the API.
    act(page, "document.getElementById('status-disputed').click()")
    wider = assert_drawn_is_answered(page, demo_gateway)
    assert wider["truth_status"] == ["asserted_true", "disputed"]
    assert sum(drawn(page)[1].values()) != len(edges)

    # Predicates: "only" one (the walk's `predicates`), then every one but it (`exclude_predicates`).
    act(page, "document.querySelector('#predicates button[data-predicate=\"rel:Knows\"]').click()")
    assert assert_drawn_is_answered(page, demo_gateway)["predicates"] == ["rel:Knows"]
    assert {p for _, p, _ in drawn(page)[1]} == {"rel:Knows"}
    act(page, "document.getElementById('all-predicates').click()")
    act(page, "document.querySelector('#predicates input[data-predicate=\"rel:Knows\"]').click()")
    assert assert_drawn_is_answered(page, demo_gateway)["exclude_predicates"] == ["rel:Knows"]
    assert "rel:Knows" not in {p for _, p, _ in drawn(page)[1]}
    act(page, "document.getElementById('all-predicates').click()")

    # Implied edges: the walk's expand_traits; a derived edge is drawn apart and says so on its card.
    act(page, "document.getElementById('trait-Symmetric').click()")
    traits = assert_drawn_is_answered(page, demo_gateway)
    assert traits["expand_traits"] == ["Symmetric"]
    derived = [e for e in demo_gateway.bfs_query(**traits).edges if getattr(e, "derived_via", None)]
    assert derived and page.evaluate("window.bfsqlExplorer.cy.edges('.derived').length") == len(derived)
    page.evaluate("window.bfsqlExplorer.cy.edges('.derived')[0].emit('tap'); true")
    page.wait("document.querySelector('#details .card')?.textContent.includes('derived via')")
    act(page, "document.getElementById('trait-Symmetric').click()")

    # Types hidden from the drawing (not from the walk): the status line and the address say so.
    everything = int(page.evaluate("document.body.dataset.nodes"))
    page.evaluate("document.querySelector('#legend input[data-type=\"sh:Location\"]').click(); true")
    locations = sum(1 for n in demo_gateway.bfs_query(**the_call(page)).nodes if n.entity_type == "sh:Location")  # type: ignore[union-attr]
    assert int(page.evaluate("document.body.dataset.nodes")) == everything - locations
    assert "hide=sh%3ALocation" in page.evaluate("location.hash")
    assert "types hidden: sh:Location" in page.evaluate("document.getElementById('status').textContent")
    page.evaluate("document.querySelector('#legend input[data-type=\"sh:Location\"]').click(); true")
    assert int(page.evaluate("document.body.dataset.nodes")) == everything

    # Two hops; the address holds the view (never the reader's token): a reload draws it again.
    act(page, "const hops = document.getElementById('hops'); hops.value = '2'; hops.dispatchEvent(new Event('change'))")
    two = assert_drawn_is_answered(page, demo_gateway)
    assert labels_clear(page) >= 10  # most of the 21, none over another nor under a node
    disputed = next(e["id"] for e in drawn(page)[2] if e["status"] == "disputed")
    page.evaluate(f"window.bfsqlExplorer.cy.getElementById({json.dumps(disputed)}).select().emit('tap'); true")
    page.wait(f"document.querySelector('#details .card')?.dataset.edge === {json.dumps(disputed)}")
    page.wait("!!document.querySelector('#details details pre')")
    shot(page, "explorer-2hops.png", "explorer-demo-2hops.png")
    act(page, "const token = document.getElementById('token'); token.value = 'reader-secret'; "
              "token.dispatchEvent(new Event('change'))")
    address = page.evaluate("location.href")
    assert "reader-secret" not in address
    before = drawn(page)[:2]
    page.open(address)
    page.drawn(0)
    assert the_call(page) == two
    assert drawn(page)[:2] == before
    assert page.evaluate("document.getElementById('hops').value") == "2"
    assert page.evaluate("document.getElementById('status-disputed').checked") is True
    page.evaluate("sessionStorage.clear(); true")

    # Expand a node in place: it joins the seeds, the nodes drawn before stay where they were.
    act(page, "const hops = document.getElementById('hops'); hops.value = '1'; hops.dispatchEvent(new Event('change'))")
    godfrey = "wiki:Godfrey_Norton"
    page.evaluate(f"window.bfsqlExplorer.cy.nodes().filter(n => n.data('iri') === {json.dumps(godfrey)})[0].emit('tap'); true")
    page.wait("[...document.querySelectorAll('#details button')].some(b => b.textContent === 'Expand in place')")
    where = "Object.fromEntries(window.bfsqlExplorer.cy.nodes('.entity').map(n => [n.data('iri'), n.position()]))"
    before_expanding = page.evaluate(where)
    act(page, "[...document.querySelectorAll('#details button')].find(b => b.textContent === 'Expand in place').click()")
    assert assert_drawn_is_answered(page, demo_gateway)["seeds"] == [IRENE, godfrey]
    after_expanding = page.evaluate(where)
    assert set(after_expanding) > set(before_expanding)
    for iri, at in before_expanding.items():  # the nodes drawn before stay where they were (the expanded one may move)
        if iri != godfrey:
            assert abs(after_expanding[iri]["x"] - at["x"]) < 1 and abs(after_expanding[iri]["y"] - at["y"]) < 1, iri
    only_local(page, demo)


def schema_is_readable(page: Browser, gateway: Gateway) -> int:
    """The schema view at the zoom that fits it: a legend of the types drawn, each in its colour (the
    walk's, as the schema gives both), the colours told apart; every label readable (10.5 px or
    more on screen), none over another nor under a node. How many labels are drawn."""
    schema = gateway.describe_schema().model_dump(exclude_none=True)
    legend = page.evaluate("[...document.querySelectorAll('#legend .swatch')].map(s => [s.parentNode.textContent, "
                           "s.style.backgroundColor])")
    colours = dict(page.evaluate("window.bfsqlExplorer.cy.nodes().map(n => [n.data('iri'), n.style('background-color')])"))
    counted = {t["id"]: t["count"] for t in schema["entity_types"]}
    # Every type drawn is in the legend: a type only an edge names (a statement's) too, uncounted.
    assert sorted(text for text, _ in legend) == sorted(f"{t} {counted[t]}" if t in counted else t for t in colours)
    assert all(lab(colours[text.rsplit(" ", 1)[0]]) == lab(colour) for text, colour in legend)
    assert closest(list(colours.values()))[0] >= DISTINCT, closest(list(colours.values()))
    sizes = page.evaluate("(() => { const cy = window.bfsqlExplorer.cy; "
                          "return cy.elements().map(e => e.numericStyle('font-size') * cy.zoom()); })()")
    assert min(sizes) >= 10.5, sizes
    found, clashes = label_clashes(page, "*")
    assert not clashes, clashes
    assert not labels_under_nodes(page), labels_under_nodes(page)
    return found


def test_the_schema_view_scans_what_it_shows(demo: Served, page: Browser, demo_gateway: Gateway) -> None:
    page.open(f"{demo.url}/#view=schema", forget=True)
    page.drawn(0)
    schema = demo_gateway.describe_schema().model_dump(exclude_none=True)
    links = [link for p in schema["predicates"] for link in p.get("connects", [])]
    types = {t["id"] for t in schema["entity_types"]} | {end for link in links for end in link.rsplit(" (", 1)[0].split(" -> ")}
    assert page.evaluate("document.body.dataset.nodes") == str(len(types))
    assert page.evaluate("document.body.dataset.edges") == str(len(links))
    schema_is_readable(page, demo_gateway)
    shot(page, "explorer-schema.png", "explorer-schema.png")
    page.evaluate("window.bfsqlExplorer.cy.nodes().filter(n => n.data('iri') === 'sh:Person')[0].emit('tap'); true")
    people = demo_gateway.scan_query(node_types=["sh:Person"], limit=50).nodes
    page.wait(f"document.querySelectorAll('#details .linkish').length === {len(people)}")
    act(page, "document.querySelector('#details .linkish').click()")  # into a walk from the first
    assert the_call(page)["seeds"] == [people[0].id]  # type: ignore[union-attr]
    assert "view=schema" not in page.evaluate("location.href")
    only_local(page, demo)


def test_the_schema_view_on_medlit(tmp_path: Path, page: Browser, medlit_gateway: Gateway) -> None:
    """medlit's twenty types and their predicates: the legend, every type named, the labels
    readable and none over another nor under a node; a predicate list left out for room is
    drawn on hover, readable."""
    served = start_server(tmp_path, str(shared_data("medlit")))
    try:
        page.open(f"{served.url}/#view=schema", forget=True)
        page.drawn(0)
        types = len(medlit_gateway.describe_schema().entity_types)
        assert page.evaluate("document.body.dataset.nodes") == str(types)
        schema_is_readable(page, medlit_gateway)
        named, _ = label_clashes(page, "node")
        listed, _ = label_clashes(page, "edge")
        edges = page.evaluate("window.bfsqlExplorer.cy.edges().length")
        assert named == types, named  # every type named beside its node
        assert listed * 2 >= edges, (listed, edges)  # most predicate lists drawn, the others on hover
        shot(page, "explorer-medlit-schema.png", "explorer-medlit-schema.png")
        left = page.evaluate("window.bfsqlExplorer.cy.edges('.unlabelled').map(e => e.id())")
        if left:
            page.evaluate(f"window.bfsqlExplorer.cy.getElementById({json.dumps(left[0])}).emit('mouseover'); true")
            size = page.evaluate(f"(() => {{ const cy = window.bfsqlExplorer.cy, e = cy.getElementById({json.dumps(left[0])}); "
                                 "return e.pstyle('label').strValue !== '' && e.numericStyle('font-size') * cy.zoom(); })()")
            assert size >= 10.5, size
        only_local(page, served)
    finally:
        served.stop()


def test_the_explorer_on_medlit(tmp_path: Path, page: Browser, medlit_gateway: Gateway) -> None:
    served = start_server(tmp_path, str(shared_data("medlit")))
    try:
        page.open(f"{served.url}/#seed={quote(CUSHING)}&hops=2", forget=True)
        page.drawn(0)
        arguments = assert_drawn_is_answered(page, medlit_gateway)
        nodes, edges, drawn_edges = drawn(page)
        assert (len(nodes), sum(edges.values())) == (165, 194)
        # The statements drawn apart (medlit has two between one pair) are each clicked where drawn.
        parallel = page.evaluate("window.bfsqlExplorer.cy.edges('.parallel').map(e => [e.id(), e.data('statement')])")
        assert len(parallel) >= 2
        for element, statement in parallel:
            click_edge(page, element, closer=True)
            page.wait(f"document.querySelector('#details .card')?.dataset.edge === {json.dumps(element)}")
            assert page.evaluate("document.querySelector('#details .card').dataset.statement") == statement
        # Labels do not collide: none of the node labels drawn overlaps another, at the zoom that fits
        # the drawing (where the seed's and the hubs' show) and zoomed in on the seed (where more do).
        page.send("Input.dispatchMouseEvent", type="mouseMoved", x=5, y=5)  # off the edge last clicked: no hover
        page.evaluate("window.bfsqlExplorer.cy.elements().unselect(); document.getElementById('fit').click(); true")
        page.wait("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))")
        fitted = labels_clear(page)
        assert fitted >= 30, fitted  # of 165: the seed's, the hubs' and every other that fits
        # Zoomed in on the seed, at zooms a fitted view of another walk may have: labels are placed
        # in the drawing's units, right at every zoom (an estimate right at one zoom alone let two
        # labels overlap by a few pixels where the force layout's random start fitted closer).
        for level in (0.8, 1.2, 2.2):
            page.evaluate("{ const cy = window.bfsqlExplorer.cy; "
                          f"cy.zoom({{ level: {level}, position: cy.nodes('.seed')[0].position() }}); }} true")
            page.wait("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))")  # placed again
            labels_clear(page)
        page.wait(f"{LABELLED_IN_VIEW} > {fitted / 165}")  # of the nodes in view, more are labelled
        # The check sees a real overlap: a labelled node moved onto another, its label on the same side.
        moved = page.evaluate("(() => { const ns = window.bfsqlExplorer.cy.nodes('.entity').filter(n => n.visible() && "
                              "n.pstyle('label').strValue !== ''); const was = { ...ns[1].position() }; "
                              "ns[1].position({ ...ns[0].position() }); ns[1].style({ 'text-valign': "
                              "ns[0].pstyle('text-valign').strValue, 'text-halign': ns[0].pstyle('text-halign').strValue }); "
                              "return [ns[1].id(), was]; })()")
        assert label_clashes(page, "node")[1]
        page.evaluate(f"window.bfsqlExplorer.cy.getElementById({json.dumps(moved[0])}).position({json.dumps(moved[1])}); "
                      "document.getElementById('fit').click(); true")

        # A statement with evidence: its passages, read with fetch_slice, as text.
        walk = medlit_gateway.bfs_query(**arguments).model_dump(exclude_none=True)
        cited = next(e for e in walk["edges"] if e.get("provenance", {}).get("bfs:evidencePassage"))
        element = next(e["id"] for e in drawn_edges if e["statement"] == cited["id"])
        page.evaluate(f"window.bfsqlExplorer.cy.getElementById({json.dumps(element)}).select().emit('tap'); true")
        first = cited["provenance"]["bfs:evidencePassage"][0]
        passage = next(p for p in medlit_gateway.fetch_slice(entity_id=first, window=1).passages if p.id == first)
        focus = "[...document.querySelectorAll('#details .passage.focus')]"
        page.wait(f"{focus}.some(p => p.textContent === {json.dumps(passage.content)})")
        page.wait("!!document.querySelector('#details details pre')")
        assert "created_at" not in page.evaluate("document.querySelector('#details .card > table').textContent")
        shot(page, "explorer-medlit.png", "explorer-medlit-cushing-2hops.png")

        # Hubs fold into "N more" nodes and unfold again.
        page.evaluate("document.getElementById('fold-hubs').click(); true")
        folded = page.evaluate("window.bfsqlExplorer.cy.nodes('.more').map(n => n.data('short'))")
        assert folded and all(text.startswith("+") and text.endswith(" more") for text in folded)
        hidden = sum(int(text.split()[0]) for text in folded)
        assert page.evaluate("document.body.dataset.nodes") == str(165 - hidden)
        page.evaluate("document.getElementById('fold-hubs').click(); true")
        assert page.evaluate("document.body.dataset.nodes") == "165"

        # "All labels" lays the drawing out again with room for labels: more are drawn than at the
        # plain fitted view, still none over another nor under a node, around the hubs too; one
        # left out for room is drawn on hover, readable.
        before = page.rendered()
        page.evaluate("document.getElementById('labels').click(); true")
        page.drawn(before)
        page.wait("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))")
        every = labels_clear(page)
        assert every > fitted, (every, fitted)
        # Closer, around the most connected hub: its leaves' labels at a size one reads, none over another.
        page.evaluate("{ const cy = window.bfsqlExplorer.cy, hub = cy.nodes('.hub').max(n => n.degree()).ele; "
                      "cy.zoom({ level: 1.6, position: hub.position() }); } true")
        page.wait("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))")
        labels_clear(page)
        shot(page, "explorer-medlit-all-labels.png", "explorer-medlit-all-labels.png")
        page.evaluate("document.getElementById('fit').click(); true")
        left = page.evaluate("window.bfsqlExplorer.cy.nodes('.entity.unlabelled').map(n => n.id())")
        assert left  # 165 labels do not all fit at the zoom that shows the whole drawing
        page.evaluate(f"window.bfsqlExplorer.cy.getElementById({json.dumps(left[0])}).emit('mouseover'); true")
        size = page.evaluate(f"(() => {{ const cy = window.bfsqlExplorer.cy, n = cy.getElementById({json.dumps(left[0])}); "
                             "return n.pstyle('label').strValue !== '' && n.numericStyle('font-size') * cy.zoom(); })()")
        assert size >= 10.5, size
        page.evaluate(f"window.bfsqlExplorer.cy.getElementById({json.dumps(left[0])}).emit('mouseout'); "
                      "document.getElementById('labels').click(); true")

        # A node limit: the walk's max_nodes, and how many more it left out.
        act(page, "const limit = document.getElementById('limit'); limit.value = '50'; limit.dispatchEvent(new Event('change'))")
        assert assert_drawn_is_answered(page, medlit_gateway)["max_nodes"] == 50
        page.wait("document.getElementById('status').textContent.includes('node limit 50: 115 more beyond it')")

        act(page, "document.querySelector('#predicates button[data-predicate=\"TREATS\"]').click()")
        assert assert_drawn_is_answered(page, medlit_gateway)["predicates"] == ["TREATS"]
        only_local(page, served)
    finally:
        served.stop()


def test_hostile_labels_are_text(tmp_path: Path, page: Browser) -> None:
    store = hostile_store("hub <img src='http://127.0.0.1:9/hub'> \u0002", comments=True)
    data = tmp_path / "hostile.nt"
    store.dump(str(data), ox.RdfFormat.N_TRIPLES, from_graph=ox.DefaultGraph())
    served = start_server(tmp_path, str(data))
    gateway = Gateway.open(data)
    try:
        page.open(f"{served.url}/#seed={quote(EX + 'hub')}", forget=True)
        page.drawn(0)
        assert_drawn_is_answered(page, gateway)
        labels = page.evaluate("window.bfsqlExplorer.cy.nodes('.entity').map(n => [n.id(), n.data('label')])")
        walk = gateway.bfs_query(seeds=[EX + "hub"]).model_dump(exclude_none=True)
        assert sorted(text for _, text in labels) == sorted(n["label"] for n in walk["nodes"])  # as the API says them
        for element, text in labels:
            page.evaluate(f"{{ const n = window.bfsqlExplorer.cy.getElementById({json.dumps(element)}); n.emit('mouseover'); "
                          "n.emit('tap'); } true")
            page.wait(f"document.querySelector('#details .card h2')?.textContent === {json.dumps(text)}")
            assert page.evaluate("document.getElementById('tooltip').firstChild.textContent") == text
        for edge in page.evaluate("window.bfsqlExplorer.drawn().edges.map(e => e.id)"):
            page.evaluate(f"window.bfsqlExplorer.cy.getElementById({json.dumps(edge)}).emit('tap'); true")
            page.wait(f"document.querySelector('#details .card')?.dataset.edge === {json.dumps(edge)}")
        page.evaluate("document.getElementById('search').value = 'alert'; "
                      "document.getElementById('search-form').requestSubmit(); true")
        page.wait("document.querySelectorAll('#results button').length > 0")
        assert "<script>alert(1)</script>" in page.evaluate("document.getElementById('results').textContent")
        # Nothing the data says became an element: the page's own scripts and no image, link or bold.
        assert page.evaluate("document.scripts.length") == 5
        assert page.evaluate("document.querySelectorAll('img, b, iframe, object, embed').length") == 0
        assert page.evaluate("[...document.querySelectorAll('a')].map(a => a.getAttribute('href'))") == ["/vendor/README.md"]
        assert page.evaluate("document.title") == "BFS-QL explorer"
        only_local(page, served)
    finally:
        served.stop()


def thousand_nodes(path: Path) -> Path:
    """A graph whose 2-hop walk from ex:hub holds 993 nodes and 1,240 statements."""
    lines = ["@prefix ex: <http://example.org/big/> .", "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .",
             'ex:hub a ex:Hub ; rdfs:label "the hub" .']
    for i in range(31):
        lines.append(f'ex:c{i} a ex:Group ; rdfs:label "group {i}" . ex:hub ex:has ex:c{i} .')
        for j in range(31):
            lines.append(f'ex:l{i}_{j} a ex:{("Leaf", "Item", "Part")[j % 3]} ; rdfs:label "leaf {i}.{j} with a longer name" . '
                         f"ex:c{i} ex:holds ex:l{i}_{j} .")
            if j % 4 == 0:
                lines.append(f"ex:l{i}_{j} ex:links ex:c{(i + 1) % 31} .")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_thousand_nodes_are_drawn_in_time(tmp_path: Path, page: Browser) -> None:
    """Time to first drawing: from the walk's request to the first frame drawn after the layout
    (`document.body.dataset.drawMs`, the page's own performance.now())."""
    data = thousand_nodes(tmp_path / "thousand.ttl")
    served = start_server(tmp_path, str(data))
    try:
        page.open(f"{served.url}/#seed={quote('http://example.org/big/hub')}&hops=2&limit=1000", forget=True)
        page.drawn(0)
        timing = {k: int(v) for k, v in page.evaluate("({...document.body.dataset})").items() if k.endswith("Ms")}
        nodes, edges, _ = drawn(page)
        assert (len(nodes), sum(edges.values())) == (993, 1240)
        with served.client() as client:
            answer = client.post("/v1/tools/bfs_query", json=the_call(page)).json()
        assert (answer["node_count"], answer["edge_count"]) == (993, 1240)
        page.wait("!!document.body.dataset.settledMs", 60)
        timing["settledMs"] = int(page.evaluate("document.body.dataset.settledMs"))
        ARTIFACTS.mkdir(exist_ok=True)
        (ARTIFACTS / "explorer-timing.json").write_text(json.dumps({"nodes": 993, "edges": 1240, **timing}, indent=1))
        print(f"\nfirst drawing of 993 nodes, 1,240 edges: {timing}")
        # The figures are recorded, not asserted (a shared machine's load decides them;
        # docs/explorer.md gives runs on an idle one): the hop rings come first, the
        # force layout after.
        assert 0 < timing["drawMs"] < timing["settledMs"], timing
        assert not_blank(page.screenshot(tmp_path / "thousand.png"))
        only_local(page, served)
    finally:
        served.stop()


# Sharma, Wu and Dalal, "The CIEDE2000 color-difference formula" (2005), Table 1: pairs and differences.
SHARMA = [((50, 2.6772, -79.7751), (50, 0, -82.7485), 2.0425), ((50, 0, 0), (50, -1, 2), 2.3669),
          ((50, 2.5, 0), (73, 25, -18), 27.1492), ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
          ((50, 2.5, 0), (50, 0, -2.5), 4.3065), ((2.0776, 0.0795, -1.135), (0.9033, -0.0636, -0.5514), 0.9082)]


def palette() -> list[str]:
    script = (EXPLORER / "explorer.js").read_text(encoding="utf-8")
    found = re.search(r"const PALETTE = \[(.*?)\];", script, re.DOTALL)
    assert found
    return re.findall(r'"(#[0-9a-f]{6})"', found.group(1))


def test_every_two_type_colours_are_told_apart() -> None:
    """The palette the types are coloured from: every two of its colours at least DISTINCT apart
    (CIEDE2000, checked against the formula's published test pairs first), none lost on the
    white page."""
    for one, two, expected in SHARMA:
        assert abs(ciede2000(one, two) - expected) < 1e-3, (one, two)
    colours = palette()
    assert len(colours) >= 16 and len(set(colours)) == len(colours)
    assert closest(colours)[0] >= DISTINCT, closest(colours)
    assert min(ciede2000(lab(c), lab("#ffffff")) for c in colours) >= DISTINCT


def test_colours_and_cards_are_the_same_by_every_route(tmp_path: Path, page: Browser, medlit_gateway: Gateway) -> None:
    """Cushing's disease at 2 hops on medlit, reached by a search then two hops, and from the
    bookmarked address: every node in the same colour, the types all told apart; the seed's card,
    opened before its walk is drawn, lists none of the bundle's bookkeeping."""
    served = start_server(tmp_path, str(shared_data("medlit")))
    try:
        page.open(f"{served.url}/", forget=True)
        page.evaluate("document.getElementById('search').value = 'Cushing'; "
                      "document.getElementById('search-form').requestSubmit(); true")
        hit = f"#results button[data-id={json.dumps(CUSHING)}]"
        page.wait(f"!!document.querySelector({json.dumps(hit)})")
        act(page, f"document.querySelector({json.dumps(hit)}).click()")
        page.wait(f"document.querySelector('#details .card')?.dataset.entity === {json.dumps(CUSHING)} && "
                  "!!document.querySelector('#details details pre')")
        listed = set(page.evaluate("[...document.querySelectorAll('#details .card > table')][0]?.querySelectorAll('th')"
                                   ".length ? [...document.querySelectorAll('#details .card > table')[0]"
                                   ".querySelectorAll('th')].map(th => th.textContent) : []"))
        described = medlit_gateway.describe_entity(id=CUSHING).model_dump(exclude_none=True)["properties"]
        kept = {key.rsplit(":", 1)[-1] for key in described} & BOOKKEEPING
        assert kept, described  # the entity has bookkeeping for the card to leave out
        assert listed and not listed & BOOKKEEPING, listed
        assert set(page.evaluate("document.querySelector('#details .card').textContent").split()).isdisjoint(
            {f"{name}" for name in kept} - {"status", "source", "provenance"})  # no row, no word of them
        act(page, "const hops = document.getElementById('hops'); hops.value = '2'; hops.dispatchEvent(new Event('change'))")
        searched = shown_colours(page)
        assert len(searched) == 165
        page.open(f"{served.url}/#seed={quote(CUSHING)}&hops=2")
        page.drawn(0)
        assert shown_colours(page) == searched
        walk = medlit_gateway.bfs_query(**the_call(page)).model_dump(exclude_none=True)
        types = {n["id"]: n.get("entity_type", "") for n in walk["nodes"]}
        by_type = {types[iri]: colour for iri, colour in searched.items()}
        assert all(by_type[types[iri]] == colour for iri, colour in searched.items())  # one colour a type
        assert len(set(by_type.values())) == len(by_type) >= 10
        assert closest(list(by_type.values()))[0] >= DISTINCT, closest(list(by_type.values()))
        # A predicate label on hover, wherever it was left out for room.
        edge = page.evaluate("window.bfsqlExplorer.cy.edges('.unlabelled').map(e => e.id())[0]")
        page.evaluate(f"window.bfsqlExplorer.cy.getElementById({json.dumps(edge)}).emit('mouseover'); true")
        assert page.evaluate(f"window.bfsqlExplorer.cy.getElementById({json.dumps(edge)}).pstyle('label').strValue") != ""
        only_local(page, served)
    finally:
        served.stop()


def test_the_search_suggests_the_best_connected_entity(demo: Served, page: Browser, demo_gateway: Gateway) -> None:
    """The search box's example is the graph's own entity with the most relationships
    (describe_entities' counts, over every entity scan_query lists) of those with a short name:
    not a name written in the page."""
    page.open(f"{demo.url}/", forget=True)
    types = [t.id for t in demo_gateway.describe_schema().entity_types]
    ids = [n if isinstance(n, str) else n.id for n in demo_gateway.scan_query(node_types=types, limit=1000).nodes]
    entities = demo_gateway.describe_entities(ids=ids).entities
    named = [e for e in entities if e.label and len(e.label) <= 32]  # a name one would type
    best = max(named, key=lambda e: sum(r.count for r in e.relationships or []))
    page.wait("document.getElementById('search').placeholder.includes('e.g.')")
    assert page.evaluate("document.getElementById('search').placeholder") == f"a name, e.g. {best.label}"
    assert "Irene" not in (EXPLORER / "index.html").read_text(encoding="utf-8")
    only_local(page, demo)
