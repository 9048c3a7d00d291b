// The explorer page: the same /v1/tools API an agent calls, with the same reader token, drawn
// with Cytoscape.js (vendor/, served by this server). Text from the graph is only ever set as
// textContent or as a Cytoscape label (drawn on a canvas): never parsed as markup.
"use strict";
const STATUSES = ["asserted_true", "asserted_false", "hypothetical", "disputed", "retracted"];
const STATUS_COLOURS = { asserted_true: "#444444", asserted_false: "#c0392b", hypothetical: "#2e86c1",
                         disputed: "#d68910", retracted: "#7f8c8d" };
const DERIVED_COLOUR = "#8e44ad";
// Twenty colours, every two at least 18.5 apart in CIEDE2000 (tests/surfaces/test_explorer.py checks),
// as far apart as Tableau's first eight are from each other: those eight, then each the farthest from
// those before it among colours neither pale, dark nor grey (L* 35-82, chroma 25 or more).
const PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#9c755f",
                 "#8400c0", "#006048", "#b4c0fc", "#605400", "#903054", "#fcb4b4", "#a80c00", "#00b4fc",
                 "#e40cfc", "#78e400", "#9c8400", "#fca8fc"];
const LIMITS = ["50", "100", "250", "500", "1000"];
const TRAITS = ["Symmetric", "Inverse"];
const LABEL_CHARS = 28;
const FONT = "Helvetica, Arial, sans-serif";
const CROWDED = 300;  // past this many nodes, only the seeds' and the hubs' labels are drawn until one zooms in
const $ = (id) => document.getElementById(id);

const state = {
  view: "walk", seeds: [], only: null, excluded: [], hiddenTypes: new Set(), layout: "force", allLabels: false,
};
let cy = null;
let schema = null;
let walk = null;          // the last bfs_query answer drawn
let byIri = new Map();    // entity ID -> Cytoscape node id
let ticket = 0;           // the newest draw: older answers are dropped
let rendered = 0;
const collapsed = new Map();  // hub entity ID -> the leaves folded into its "N more" node

// -- the API -------------------------------------------------------------------------------

function headers() {
  const token = sessionStorage.getItem("bfsql-token");
  const found = { "Content-Type": "application/json" };
  if (token) found.Authorization = "Bearer " + token;
  return found;
}

async function tool(name, args) {
  const response = await fetch("/v1/tools/" + name, { method: "POST", headers: headers(), body: JSON.stringify(args) });
  if (!response.ok) {
    const problem = await response.json().catch(() => ({}));
    throw new Error(problem.detail || response.status + " " + response.statusText);
  }
  return response.json();
}

function point(text) {
  const value = text.trim();
  return /^-?\d+$/.test(value) ? Number(value) : value;
}

function checkedStatuses() {
  return STATUSES.filter((s) => $("status-" + s).checked);
}

function walkArguments() {
  const args = { seeds: state.seeds, max_hops: Number($("hops").value), direction: $("direction").value,
                 truth_status: checkedStatuses(), max_nodes: Number($("limit").value) };
  if (!args.truth_status.length) args.truth_status = ["asserted_true"];
  const traits = TRAITS.filter((t) => $("trait-" + t).checked);
  if (traits.length) args.expand_traits = traits;
  if (state.only && state.only.length) args.predicates = state.only;
  else if (state.excluded.length) args.exclude_predicates = state.excluded;
  if ($("as_of").value.trim()) args.as_of = point($("as_of").value);
  if ($("valid_at").value.trim()) args.valid_at = point($("valid_at").value);
  return args;
}

// -- the address: the view, never the token --------------------------------------------------

function writeAddress(push) {
  const params = new URLSearchParams();
  if (state.view === "schema") params.set("view", "schema");
  for (const seed of state.seeds) params.append("seed", seed);
  params.set("hops", $("hops").value);
  params.set("direction", $("direction").value);
  params.set("status", checkedStatuses().join(","));
  params.set("limit", $("limit").value);
  const traits = TRAITS.filter((t) => $("trait-" + t).checked);
  if (traits.length) params.set("traits", traits.join(","));
  if (state.only && state.only.length) for (const p of state.only) params.append("pred", p);
  else for (const p of state.excluded) params.append("xpred", p);
  for (const t of state.hiddenTypes) params.append("hide", t);
  if ($("as_of").value.trim()) params.set("as_of", $("as_of").value.trim());
  if ($("valid_at").value.trim()) params.set("valid_at", $("valid_at").value.trim());
  if (state.layout !== "force") params.set("layout", state.layout);
  const hash = "#" + params.toString();
  if (hash === location.hash) return;
  if (push) history.pushState(null, "", hash);
  else history.replaceState(null, "", hash);
}

function readAddress() {
  const params = new URLSearchParams(location.hash.slice(1));
  state.view = params.get("view") === "schema" ? "schema" : "walk";
  state.seeds = params.getAll("seed");
  const choose = (id, value, allowed) => { if (value !== null && allowed.includes(value)) $(id).value = value; };
  choose("hops", params.get("hops"), ["1", "2", "3", "4"]);
  choose("direction", params.get("direction"), ["both", "out", "in"]);
  choose("limit", params.get("limit"), LIMITS);
  const statuses = (params.get("status") || "asserted_true").split(",");
  for (const s of STATUSES) $("status-" + s).checked = statuses.includes(s);
  const traits = (params.get("traits") || "").split(",");
  for (const t of TRAITS) $("trait-" + t).checked = traits.includes(t);
  const only = params.getAll("pred");
  state.only = only.length ? only : null;
  state.excluded = only.length ? [] : params.getAll("xpred");
  state.hiddenTypes = new Set(params.getAll("hide"));
  $("as_of").value = params.get("as_of") || "";
  $("valid_at").value = params.get("valid_at") || "";
  state.layout = ["force", "rings", "layers"].includes(params.get("layout")) ? params.get("layout") : "force";
  $("layout").value = state.layout;
  syncPredicateBoxes();
}

// -- status line ---------------------------------------------------------------------------

function say(text, failed) {
  $("status").textContent = text;
  $("status").className = failed ? "error" : "";
}

function shortName(id) {
  const text = String(id);
  const cut = Math.max(text.lastIndexOf("#"), text.lastIndexOf("/"), text.lastIndexOf(":"));
  return cut >= 0 && cut < text.length - 1 ? text.slice(cut + 1) : text;
}

function clip(text, size) {
  const flat = String(text).replace(/\s+/g, " ");
  return flat.length > size ? flat.slice(0, size - 1) + "\u2026" : flat;
}

// A type's colour is a function of its ID and of the graph's types (describe_schema's), never of
// the order nodes arrive: the same in every view, by every route to it. Each type hashes to a slot
// of the palette; the graph's types, most common first, take the next free slot on a clash, so the
// twenty most common are all told apart. A type the schema does not list keeps its hashed slot.
let colours = new Map();

function fnv(text) {
  let hash = 2166136261;  // FNV-1a over the text's UTF-16 code units
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 16777619) >>> 0;
  return hash;
}

function slot(type) {
  return fnv(type) % PALETTE.length;
}

function assignColours(types) {
  const ranked = [...types].sort((a, b) => (b.count || 0) - (a.count || 0) || String(a.id).localeCompare(String(b.id)));
  const taken = new Set();
  colours = new Map();
  for (const { id } of ranked) {
    let at = slot(String(id));
    for (let tries = 0; taken.has(at) && tries < PALETTE.length; tries++) at = (at + 1) % PALETTE.length;
    if (taken.size < PALETTE.length) taken.add(at);
    colours.set(String(id), PALETTE[at]);
  }
}

function schemaTypes(found) {
  // The graph's types: describe_schema's entity types, and those its predicates connect (statements).
  const types = new Map((found.entity_types || []).map((t) => [String(t.id), t.count || 0]));
  for (const p of found.predicates || []) {
    for (const link of p.connects || []) {
      const parsed = /^(.*) -> (.*) \((\d+)\)$/.exec(link);
      if (parsed) for (const end of [parsed[1], parsed[2]]) if (!types.has(end)) types.set(end, 0);
    }
  }
  return [...types].map(([id, count]) => ({ id, count }));
}

function typeColour(type) {
  if (!type) return "#ffffff";
  return colours.get(type) || PALETTE[slot(type)];
}

// -- the drawing ---------------------------------------------------------------------------

const STYLE = [
  { selector: "node", style: {
    "background-color": "data(colour)", "border-width": 1, "border-color": "#555", width: 18, height: 18,
    label: "data(short)", "font-size": 11, "font-family": FONT, color: "#222", "text-valign": "bottom", "text-margin-y": 3,
    "text-background-color": "#ffffff", "text-background-opacity": 0.85, "text-background-shape": "round-rectangle",
    "text-background-padding": 1 } },
  // Drawn above the other nodes, and their labels with them: a hub's label never sits under a node.
  { selector: "node.hub", style: { width: 26, height: 26, "font-size": 15, "z-index": 10 } },
  { selector: "node.seed", style: { width: 32, height: 32, "border-width": 3, "border-color": "#222",
                                    "font-weight": "bold", "font-size": 17, "z-index": 11 } },
  { selector: "node.more", style: { shape: "round-rectangle", "background-color": "#eeeeee", width: 44, height: 20,
                                    label: "data(short)", "text-valign": "center", "text-margin-y": 0,
                                    "min-zoomed-font-size": 0, "border-style": "dashed" } },
  { selector: "node.type", style: { width: "data(size)", height: "data(size)", "font-size": 13, "min-zoomed-font-size": 0,
                                    "font-weight": "bold", "text-background-opacity": 0.9 } },
  { selector: "node.hover", style: { "z-index": 20, "border-width": 3 } },
  { selector: "node:selected", style: { "border-color": "#e67e22", "border-width": 4 } },
  { selector: ".hidden, .folded", style: { display: "none" } },
  { selector: "edge", style: {
    width: 1.6, "line-color": "data(colour)", "target-arrow-color": "data(colour)", "target-arrow-shape": "triangle",
    "arrow-scale": 0.9, "curve-style": "straight", "control-point-step-size": 28, label: "data(short)", "font-size": 9,
    "font-family": FONT, "text-rotation": "autorotate", color: "#333", "text-background-color": "#ffffff",
    "text-background-opacity": 0.8, "text-background-padding": 1 } },
  { selector: "edge.parallel", style: { "curve-style": "bezier" } },
  { selector: "edge.unasserted", style: { "line-style": "dashed", "line-dash-pattern": [6, 4] } },
  { selector: "edge.derived", style: { "line-style": "dotted", width: 2 } },
  { selector: "edge.schema-edge", style: {
    "curve-style": "bezier", "control-point-step-size": 60, "text-rotation": "none", "text-wrap": "wrap",
    "text-background-opacity": 0.92, "text-background-shape": "round-rectangle", "text-background-padding": 2,
    "text-border-width": 1, "text-border-color": "#cccccc", "text-border-opacity": 1, "font-size": 11,
    "min-zoomed-font-size": 0, "line-color": "#777777", "target-arrow-color": "#777777" } },
  { selector: "edge.schema-edge.loop", style: { "loop-direction": "-45deg", "loop-sweep": "-50deg",
                                                "control-point-step-size": 70 } },
  { selector: "edge.moreedge", style: { "line-style": "dashed", "target-arrow-shape": "none", label: "" } },
  { selector: "edge.hover", style: { width: 3.5, "z-index": 20 } },
  // After the rules that set labels: a quiet element has none until one zooms in, hovers or selects it.
  { selector: ".quiet, .unlabelled", style: { label: "" } },
  { selector: ".quiet.near, .quiet.loud, .quiet.hover, .quiet:selected, .unlabelled.hover, .unlabelled:selected",
    style: { label: "data(short)" } },
  { selector: "edge:selected", style: { width: 4, "line-color": "#e67e22", "target-arrow-color": "#e67e22", "z-index": 21 } },
];

function makeGraph() {
  cy = cytoscape({
    container: $("graph"), style: STYLE, wheelSensitivity: 0.3, minZoom: 0.05, maxZoom: 6,
    boxSelectionEnabled: false, textureOnViewport: false, hideEdgesOnViewport: false, pixelRatio: 1,
  });
  // Whatever moves or resizes the drawing (the legend, a longer status line) tells Cytoscape: its
  // clicks are mapped from where the canvas is now.
  new ResizeObserver(() => cy.resize()).observe($("graph"));
  cy.on("tap", "node", (event) => {
    const iri = event.target.data("iri");
    if (event.originalEvent && event.originalEvent.shiftKey && iri && state.view === "walk") expandHere(iri);
    else tapNode(event.target);
  });
  cy.on("dbltap", "node", (event) => {
    const iri = event.target.data("iri");
    if (state.view === "walk" && iri) recentre(iri);
  });
  cy.on("tap", "edge", (event) => tapEdge(event.target));
  cy.on("mouseover", "node, edge", (event) => hover(event.target, event.renderedPosition));
  cy.on("mouseout", "node, edge", (event) => { event.target.removeClass("hover"); $("tooltip").hidden = true; });
  cy.on("tap viewport", () => { $("tooltip").hidden = true; });
  // Cytoscape says nothing when the pointer leaves the drawing: a hovered label would stay.
  $("graph").addEventListener("mouseleave", () => { cy.elements(".hover").removeClass("hover"); $("tooltip").hidden = true; });
  cy.on("dragfree", "node", () => placeLabels());  // a node moved by hand: its label and its neighbours' again
  let pending = false;
  cy.on("zoom", () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => { pending = false; nearness(); placeLabels(); });
  });
  // For tests and the console: the graph, the view, and what is drawn (entity IDs; statements with their element).
  window.bfsqlExplorer = { cy, state, drawn: () => {
    const drawn = shown();
    return { nodes: drawn.nodes(".entity").map((n) => n.data("iri")),
             edges: drawn.edges(".statement").map((e) => ({ id: e.id(), subject: e.source().data("iri"), predicate: e.data("predicate"),
                              object: e.target().data("iri"), statement: e.data("statement"), status: e.data("status") })) };
  } };
}

function hover(element, at) {
  element.addClass("hover");
  // A label not placed (a crowded drawing seen from afar) shows on hover at a size one can read.
  if (element.hasClass("quiet") || (state.view === "walk" && element.hasClass("unlabelled"))) {
    element.style("font-size", (element.isNode() ? SCREEN.node : SCREEN.edge) / cy.zoom());
  }
  const tip = $("tooltip");
  const lines = [];
  if (element.isNode()) {
    lines.push([element.data("label") || element.data("iri") || "", "label"]);
    if (element.data("type")) lines.push([element.data("type"), "type"]);
    if (element.data("iri")) lines.push([element.data("iri"), "id"]);
    if (element.data("hop") !== undefined) lines.push(["hop " + element.data("hop"), "type"]);
  } else {
    const source = element.source().data("label") || element.source().data("iri") || "";
    const target = element.target().data("label") || element.target().data("iri") || "";
    lines.push([source + " \u2014 " + (element.data("predicate") || "") + " \u2192 " + target, "label"]);
    if (element.data("status")) lines.push([element.data("status") + (element.data("derived") ? ", derived: " + element.data("derived") : ""), "type"]);
  }
  tip.replaceChildren(...lines.map(([text, kind]) => {
    const line = document.createElement("div");
    line.className = kind;
    line.textContent = text;
    return line;
  }));
  tip.hidden = false;
  const box = $("stage").getBoundingClientRect();
  tip.style.left = Math.min((at ? at.x : 0) + 14, box.width - 260) + "px";
  tip.style.top = Math.min((at ? at.y : 0) + 14, box.height - 60) + "px";
}

function hops(nodes, edges, seeds, direction) {
  const next = new Map(nodes.map((n) => [n, []]));
  for (const e of edges) {
    if (direction !== "in") next.get(e.source)?.push(e.target);
    if (direction !== "out") next.get(e.target)?.push(e.source);
  }
  const found = new Map(seeds.filter((s) => next.has(s)).map((s) => [s, 0]));
  let frontier = [...found.keys()];
  while (frontier.length) {
    const after = [];
    for (const n of frontier) {
      for (const m of next.get(n)) {
        if (!found.has(m)) { found.set(m, found.get(n) + 1); after.push(m); }
      }
    }
    frontier = after;
  }
  return found;
}

function walkElements(answer) {
  byIri = new Map();
  const nodes = [];
  const add = (node) => {
    const id = "n" + nodes.length;
    byIri.set(node.id, id);
    const label = node.label || shortName(node.id);
    nodes.push({ group: "nodes", classes: "entity", data: {
      id, iri: node.id, label, short: clip(label, LABEL_CHARS), type: node.entity_type || "",
      colour: typeColour(node.entity_type || "") } });
  };
  for (const node of answer.nodes || []) add(typeof node === "string" ? { id: node } : node);
  const edges = [];
  for (const edge of answer.edges || []) {
    for (const end of [edge.subject, edge.object]) if (!byIri.has(end)) add({ id: end });
    const status = edge.truth_status || "asserted_true";
    const derived = edge.derived_via || "";
    const classes = ["statement"];
    if (derived) classes.push("derived");
    else if (status !== "asserted_true") classes.push("unasserted");
    edges.push({ group: "edges", classes: classes.join(" "), data: {
      id: "e" + edges.length, source: byIri.get(edge.subject), target: byIri.get(edge.object),
      predicate: edge.predicate, short: clip(shortName(edge.predicate), 24), status, derived,
      statement: edge.id || "", colour: derived ? DERIVED_COLOUR : STATUS_COLOURS[status] || "#000000" } });
  }
  // Statements between the same two nodes (either way) or from a node to itself are curved apart
  // (bezier), each its own line to click; the rest are straight, cheaper to draw by the thousand.
  const pairs = new Map();
  const pair = (e) => [e.data.source, e.data.target].sort().join(" ");
  for (const e of edges) pairs.set(pair(e), (pairs.get(pair(e)) || 0) + 1);
  for (const e of edges) if (pairs.get(pair(e)) > 1 || e.data.source === e.data.target) e.classes += " parallel";
  const seedIds = (answer.seeds || state.seeds).map((s) => byIri.get(s)).filter(Boolean);
  const distance = hops(nodes.map((n) => n.data.id), edges.map((e) => e.data), seedIds, answer.direction || $("direction").value);
  const degree = new Map();
  for (const e of edges) for (const end of [e.data.source, e.data.target]) degree.set(end, (degree.get(end) || 0) + 1);
  const ranked = [...degree.values()].sort((a, b) => b - a);
  const hubAt = Math.max(4, ranked[Math.min(ranked.length - 1, 9)] || 0);
  // Past CROWDED nodes the others' labels are not even set until one zooms in (past 1.5x: nearness()):
  // a label-less element costs no text measuring, which keeps a thousand-node first drawing fast.
  // Which labels are drawn is placeLabels()' choice.
  const crowded = nodes.length > CROWDED;
  const quiet = crowded ? " quiet" + (state.allLabels ? " loud" : "") + (near ? " near" : "") : "";
  for (const n of nodes) {
    n.data.hop = distance.has(n.data.id) ? distance.get(n.data.id) : 0;
    n.data.degree = degree.get(n.data.id) || 0;
    if (seedIds.includes(n.data.id)) n.classes += " seed";
    else if (n.data.degree >= hubAt) n.classes += " hub";
    else n.classes += quiet;
    if (state.hiddenTypes.has(n.data.type)) n.classes += " hidden";
  }
  for (const e of edges) e.classes += quiet;
  return [...nodes, ...edges];
}

const LARGE = 400;

function layoutOptions(kept, around, refine) {
  const size = shown().nodes().length;
  // The schema starts from a circle of its types, most common first: the same drawing every time.
  if (state.view === "schema") return { name: "fcose", animate: false, randomize: false, idealEdgeLength: () => 200 + 10 * size,
                                        nodeRepulsion: () => 90000, nodeSeparation: 160, nodeDimensionsIncludeLabels: true };
  const quick = state.layout === "force" && size > LARGE && !kept && !refine;
  if (state.layout === "rings" || quick) {
    return { name: "concentric", animate: false, concentric: (n) => 100 - (n.data("hop") || 0), levelWidth: () => 1,
             minNodeSpacing: size > 300 ? 4 : 14, spacingFactor: size > 300 ? 0.6 : 1, avoidOverlap: size <= 300, quick };
  }
  if (state.layout === "layers") {
    return { name: "breadthfirst", animate: false, roots: cy.nodes(".seed"), directed: false,
             spacingFactor: size > 300 ? 0.5 : 1, avoidOverlap: size <= 300 };
  }
  const large = size > LARGE;
  const options = { name: "fcose", animate: refine ? "end" : false, animationDuration: 500, randomize: !kept,
                    quality: "default",
                    nodeRepulsion: () => (size > 300 ? 9000 : size > 60 ? 16000 : 40000),
                    idealEdgeLength: () => (size > 300 ? 45 : size > 60 ? 75 : 120), edgeElasticity: () => 0.45,
                    nodeSeparation: 70, numIter: large ? 1000 : 2500, packComponents: !large, tile: !large, uniformNodeDimensions: large };
  if (kept && kept.size && kept.size < 400) {
    options.fixedNodeConstraint = [...kept].filter(([iri]) => iri !== around && byIri.has(iri))
      .map(([iri, position]) => ({ nodeId: byIri.get(iri), position }));
  }
  return options;
}

function runLayout(kept, around, started, refine) {
  const serial = ++rendered;
  cy.resize();
  // The layouts do not fit the view themselves (that would measure every label): fit() does, without
  // labels; but the force pass after hop rings fits as it animates (the quiet labels are empty then).
  const options = { ...layoutOptions(kept, around, refine), fit: Boolean(refine), padding: 50 };
  const layout = shown().layout(options);
  const laying = performance.now();
  layout.one("layoutstop", () => {
    if (!refine) document.body.dataset.layoutMs = String(Math.round(performance.now() - laying));
    if (!kept && !refine) fit();
    else placeLabels();
    cy.one("render", () => {
      const now = performance.now();
      if (started && !refine) document.body.dataset.drawMs = String(Math.round(now - started));
      if (started && refine) document.body.dataset.settledMs = String(Math.round(now - started));
      document.body.dataset.rendered = String(serial);
      if (options.quick) {
        // A large walk is drawn first in hop rings (fast); then the force layout, animated into place.
        setTimeout(() => { if (serial === rendered) runLayout(null, null, started, true); }, 30);
      }
    });
  });
  seeded(() => layout.run());
}

function seeded(run) {
  // The same walk is drawn the same way every time, and so are its labels: the force layout's
  // random start comes from a generator seeded by the nodes drawn (mulberry32), not Math.random.
  // The layouts run synchronously (an animation only moves the nodes to where they were computed).
  let state32 = fnv(shown().nodes().map((n) => n.data("iri")).join(" "));
  const random = Math.random;
  Math.random = () => {
    state32 = (state32 + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state32 ^ (state32 >>> 15), state32 | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  try { run(); } finally { Math.random = random; }
}

function shown() {
  // What is drawn: neither a hidden type's node nor a folded leaf, nor an edge to one.
  const gone = ".hidden, .folded";
  return cy.elements().not(gone).filter((e) => e.isNode() || !(e.source().is(gone) || e.target().is(gone)));
}

let near = false;

function nearness() {
  // Past 1.5x the quiet labels may be drawn (a class set once as one crosses, not a style per frame).
  const now = cy.zoom() >= 1.5;
  if (now === near) return;
  near = now;
  cy.batch(() => cy.elements(".quiet").toggleClass("near", near));
}

const measure = document.createElement("canvas").getContext("2d");
const widths = new Map();

function textWidth(text, size, bold) {
  // The width of a label at its font size in the drawing's units, measured as Cytoscape measures it.
  const key = (bold ? "b" : "n") + size.toFixed(2) + " " + text;
  if (!widths.has(key)) {
    if (widths.size > 50000) widths.clear();
    measure.font = (bold ? "bold " : "") + size.toFixed(2) + "px " + FONT;
    widths.set(key, measure.measureText(text).width);
  }
  return widths.get(key);
}

// The smallest a label is drawn on screen, in px: zoomed out, its font grows in the drawing's units.
const SCREEN = { seed: 15, hub: 12, node: 10.5, edge: 9.5 };
// Where a node's label may go, in turn: below it, above, to the right, to the left.
const SIDES = [["bottom", "center"], ["top", "center"], ["center", "right"], ["center", "left"]];

function labelBox(n, size, bold, [valign, halign], zoom) {
  // Cytoscape's own box of a label, against the node's side: the text and 3 units on each side
  // (its background's padding, 1, and Cytoscape's margin, 2), and a pixel more. The text starts
  // at the node's edge (its border aside), so the box reaches 3 units into the node: in the
  // drawing's units, not pixels, so that the estimate holds at every zoom.
  const at = n.renderedPosition();
  const reach = n.numericStyle("text-background-padding") + 2;
  const rw = (n.width() / 2 - reach) * zoom;
  const rh = (n.height() / 2 - reach) * zoom;
  const w = (Math.ceil(textWidth(n.data("short"), size, bold)) + 6) * zoom + 2;
  const h = (size + 6) * zoom + 2;
  let x1 = at.x - w / 2;
  let y1 = at.y - h / 2;
  if (valign === "bottom") y1 = at.y + rh - 1;
  else if (valign === "top") y1 = at.y - rh + 1 - h;
  else if (halign === "right") x1 = at.x + rw - 1;
  else x1 = at.x - rw + 1 - w;
  return { x1, x2: x1 + w, y1, y2: y1 + h, own: n.id() };
}

function labelAt(n, size, [valign, halign]) {
  n.style({ "font-size": size, "text-valign": valign, "text-halign": halign, "text-margin-y": 0, "text-margin-x": 0 });
}

function labelGrid(cell = 64) {
  // Boxes on screen, bucketed in 64 px cells: labels placed so far and the nodes' bodies (with
  // their rank: 0 a node, 1 a hub, 2 a seed).
  const grid = new Map();
  const cells = (b, visit) => {
    for (let x = Math.floor(b.x1 / cell); x <= Math.floor(b.x2 / cell); x++) {
      for (let y = Math.floor(b.y1 / cell); y <= Math.floor(b.y2 / cell); y++) if (visit(x + " " + y)) return true;
    }
    return false;
  };
  const overlaps = (a, b) => a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2;
  return {
    // How many boxes `b` would cover: labels, and the bodies of a rank from `rank` up.
    clashes: (b, own, rank) => {
      const seen = new Set();
      cells(b, (key) => { for (const o of grid.get(key) || []) {
        if (o.own !== own && !(o.body !== undefined && o.body < rank) && overlaps(o, b)) seen.add(o);
      } return false; });
      return seen.size;
    },
    take: (b) => cells(b, (key) => { if (!grid.has(key)) grid.set(key, []); grid.get(key).push(b); return false; }),
  };
}

function inView(b) {
  return b.x1 >= 0 && b.y1 >= 0 && b.x2 <= cy.width() && b.y2 <= cy.height();
}

function rankOf(n) {
  return n.hasClass("seed") ? 2 : n.hasClass("hub") ? 1 : 0;
}

function placeLabels() {
  // Labels that do not collide and never sit under a node: each is drawn where it covers no label
  // placed before it and no node's body, trying below, above, right and left of its node, in this
  // order: the seeds' (always), the hubs', the predicates on the seeds' edges, the other nodes' by
  // degree, then the other predicates. A hub's or a seed's label may cover an ordinary node where no
  // side is clear, as these are drawn above the others (z-index), their labels with them. Every
  // label stays readable (SCREEN px at any zoom); zooming in makes room: this runs again after
  // every zoom. Hover or a click shows any label; "All labels" draws every one, each on its least
  // crowded side.
  if (state.view !== "walk") return;
  const drawn = shown();
  const grid = labelGrid();
  const nodes = drawn.nodes();
  const silent = (e) => e.hasClass("quiet") && !e.hasClass("near") && !e.hasClass("loud");
  // The bodies of ordinary nodes matter only where an ordinary label or an edge's is placed: in a
  // crowded drawing seen from afar there are none, and the thousand bodies are not looked at.
  const everyBody = nodes.some((n) => rankOf(n) === 0 && !silent(n)) || drawn.edges().some((e) => !silent(e));
  nodes.forEach((n) => {
    if (!everyBody && rankOf(n) === 0 && !n.hasClass("more")) return;
    const at = n.renderedPosition();
    // With room for a border widened by a hover or a click.
    const rx = (n.outerWidth() / 2 + 2) * cy.zoom() + 1;
    const ry = (n.outerHeight() / 2 + 2) * cy.zoom() + 1;
    const body = n.hasClass("more") ? 2 : rankOf(n);
    grid.take({ x1: at.x - rx, x2: at.x + rx, y1: at.y - ry, y2: at.y + ry, own: n.id(), body });
  });
  const ordered = nodes.filter(".entity").filter((n) => !silent(n)).sort((a, b) => rankOf(b) - rankOf(a) || b.data("degree") - a.data("degree"));
  const edges = drawn.edges().filter((e) => !silent(e) && !e.hasClass("moreedge"));
  const seeded = edges.filter((e) => e.source().hasClass("seed") || e.target().hasClass("seed"));
  cy.batch(() => {
    ordered.filter((n) => rankOf(n) > 0).forEach((n) => placeNodeLabel(n, grid));
    seeded.forEach((e) => placeEdgeLabel(e, grid));
    ordered.filter((n) => rankOf(n) === 0).forEach((n) => placeNodeLabel(n, grid));
    edges.not(seeded).forEach((e) => placeEdgeLabel(e, grid));
  });
  keepApart(ordered);
}

function keepApart(ordered) {
  // The last word is Cytoscape's own label boxes, as drawn: a node's label that covers one placed
  // before it is left to hover. The placement above works from estimates of those boxes (a pixel
  // larger, at every zoom); this pass makes the rule hold whatever a font's metrics or a rounding do.
  const own = { includeNodes: false, includeEdges: false, includeLabels: true };
  const grid = labelGrid(64 / cy.zoom());
  cy.batch(() => ordered.forEach((n) => {
    if (n.hasClass("unlabelled")) return;
    const b = n.boundingBox(own);
    const box = { x1: b.x1, x2: b.x2, y1: b.y1, y2: b.y2, own: n.id() };
    if (rankOf(n) < 2 && grid.clashes(box, n.id(), 0) > 0) n.addClass("unlabelled");
    else grid.take(box);
  }));
}

function placeNodeLabel(n, grid) {
  const zoom = cy.zoom();
  const rank = rankOf(n);
  // A seed's and a hub's labels keep their size on screen, the landmarks of a crowded drawing; the
  // others grow with a zoom in, up to 16 px.
  const size = state.allLabels ? [11, 15, 17][rank] : rank === 2 ? SCREEN.seed / zoom : rank === 1 ? SCREEN.hub / zoom
    : Math.min(16 / zoom, Math.max(11, SCREEN.node / zoom));
  const boxes = SIDES.map((side) => labelBox(n, size, rank === 2, side, zoom));
  // A side whose label would leave the view counts as taken.
  const clashes = (b, level) => grid.clashes(b, n.id(), level) + (inView(b) ? 0 : 1000);
  let at = boxes.findIndex((b) => clashes(b, 0) === 0);
  if (at < 0 && rank > 0) at = boxes.findIndex((b) => clashes(b, rank) === 0);
  if (at < 0 && rank === 2) {
    const counts = boxes.map((b) => clashes(b, 0));
    at = counts.indexOf(Math.min(...counts));
  }
  n.toggleClass("unlabelled", at < 0);
  if (at < 0) return;
  labelAt(n, size, SIDES[at]);
  grid.take(boxes[at]);
}

function placeEdgeLabel(e, grid) {
  // An edge's label runs along it at its middle: it is taken as three squares along the line (a
  // box around the whole of a slanted label would cover much that it does not), and it must fit
  // between the two nodes the edge joins.
  const zoom = cy.zoom();
  const size = state.allLabels ? 9 : Math.min(14 / zoom, Math.max(9, SCREEN.edge / zoom));
  e.style("font-size", size);
  const mid = e.renderedMidpoint();
  const a = e.source().renderedPosition();
  const b = e.target().renderedPosition();
  const length = Math.hypot(b.x - a.x, b.y - a.y) || 1;
  const w = (Math.ceil(textWidth(e.data("short"), size, false)) + 6) * zoom + 3;
  const half = Math.max((size + 6) * zoom + 3, w / 3) / 2;
  const boxes = [-1, 0, 1].map((k) => {
    const x = mid.x + (k * w / 3) * (b.x - a.x) / length;
    const y = mid.y + (k * w / 3) * (b.y - a.y) / length;
    return { x1: x - half, x2: x + half, y1: y - half, y2: y + half, own: e.id() };
  });
  const room = length - e.source().renderedWidth() / 2 - e.target().renderedWidth() / 2;
  const fits = room > w && boxes.every((box) => inView(box) && grid.clashes(box, e.id(), 0) === 0);
  e.toggleClass("unlabelled", !fits);
  if (fits) boxes.forEach((box) => grid.take(box));
}

function fit() {
  // The box of the nodes without their labels: measuring a thousand labels, or finding the curve of a
  // thousand edges, would delay the first drawing.
  const box = shown().nodes().boundingBox({ includeLabels: false, includeOverlays: false });
  if (!isFinite(box.w) || box.w < 0) return;
  const pad = 50;
  const zoom = Math.min(1.4, (cy.width() - 2 * pad) / Math.max(box.w, 1), (cy.height() - 2 * pad) / Math.max(box.h, 1));
  cy.viewport({ zoom, pan: { x: cy.width() / 2 - zoom * (box.x1 + box.w / 2), y: cy.height() / 2 - zoom * (box.y1 + box.h / 2) } });
  placeLabels();
  if (state.view === "schema") schemaLabels();
}

function count() {
  // What is drawn changed (a new walk, a type hidden, leaves folded): count it, and place the labels again.
  placeLabels();
  const drawn = shown();
  const nodes = drawn.nodes(".entity").length;
  const edges = drawn.edges(".statement").length;
  document.body.dataset.nodes = String(nodes);
  document.body.dataset.edges = String(edges);
  return [nodes, edges];
}

async function draw(options = {}) {
  if (state.view === "schema") return drawSchema(options.push);
  if (!state.seeds.length) { writeAddress(options.push); return; }
  const args = walkArguments();
  $("call").textContent = JSON.stringify({ tool: "bfs_query", arguments: args }, null, 2);
  writeAddress(options.push);
  const mine = ++ticket;
  const started = performance.now();
  say("walking\u2026");
  try {
    const answer = await tool("bfs_query", args);
    if (mine !== ticket) return;
    document.body.dataset.answerMs = String(Math.round(performance.now() - started));
    const kept = options.keep ? new Map(cy.nodes(".entity").map((n) => [n.data("iri"), { ...n.position() }])) : null;
    walk = answer;
    collapsed.clear();
    $("tooltip").hidden = true;
    cy.elements().remove();
    const elements = walkElements(answer);
    if (kept) {
      const centre = kept.get(options.around) || { x: 0, y: 0 };
      for (const e of elements) {
        if (e.group !== "nodes") continue;
        const was = kept.get(e.data.iri);
        e.position = was ? { ...was } : { x: centre.x + (Math.random() - 0.5) * 80, y: centre.y + (Math.random() - 0.5) * 80 };
      }
    }
    cy.batch(() => cy.add(elements));
    legend();
    runLayout(kept, options.around, started);
    const [nodes, edges] = count();
    report(answer, nodes, edges, args);
    syncPredicateBoxes(answer);
  } catch (error) {
    if (mine === ticket) say(error.message, true);
  }
}

function report(answer, nodes, edges, args) {
  const parts = [answer.node_count + " nodes, " + answer.edge_count + " edges"];
  if (nodes !== answer.node_count || edges !== answer.edge_count) parts.push("drawn " + nodes + " and " + edges);
  const hidden = Object.entries(answer.hidden_by_filter || {}).map(([k, n]) => n + " by " + k).join(", ");
  if (hidden) parts.push("not walked: " + hidden);
  if (state.hiddenTypes.size) parts.push("types hidden: " + [...state.hiddenTypes].join(", "));
  if (answer.unresolved_seeds && answer.unresolved_seeds.length) parts.push("not found: " + answer.unresolved_seeds.join(", "));
  say(parts.join("; ") + (answer.truncated ? "; cut at the node limit" : ""));
  if (answer.truncated) countBeyond(args, answer.node_count);
}

async function countBeyond(args, shown) {
  const mine = ticket;
  try {
    const all = await tool("bfs_query", { ...args, max_nodes: 1000, topology_only: true, layout: "compact" });
    if (mine !== ticket) return;
    const more = all.node_count - shown;
    const text = $("status").textContent.replace("; cut at the node limit", "");
    say(text + "; node limit " + args.max_nodes + ": " + (more > 0 ? more + (all.truncated ? "+" : "") + " more" : "more")
        + " beyond it (raise the limit to draw them)");
  } catch (error) {
    // the count is a courtesy: the view stands without it
  }
}

// -- legend and filters ----------------------------------------------------------------------

function legend() {
  const types = new Map();
  for (const n of cy.nodes(".entity")) types.set(n.data("type"), (types.get(n.data("type")) || 0) + 1);
  const rows = [];
  const heading = document.createElement("h4");
  heading.textContent = "Types (click to hide)";
  rows.push(heading);
  for (const [type, n] of [...types].sort((a, b) => b[1] - a[1])) {
    const label = document.createElement("label");
    const box = document.createElement("input");
    box.type = "checkbox";
    box.checked = !state.hiddenTypes.has(type);
    box.dataset.type = type;
    box.addEventListener("change", () => toggleType(type, box.checked));
    const swatch = document.createElement("span");
    swatch.className = "swatch";
    swatch.style.backgroundColor = typeColour(type);
    label.append(box, swatch, (type || "(no type)") + " " + n);
    rows.push(label);
  }
  const statuses = document.createElement("h4");
  statuses.textContent = "Edges";
  rows.push(statuses);
  for (const [name, colour, dash] of [...Object.entries(STATUS_COLOURS).map(([s, c]) => [s, c, s === "asserted_true" ? "solid" : "dashed"]),
                                      ["derived (trait)", DERIVED_COLOUR, "dotted"]]) {
    const row = document.createElement("span");
    const line = document.createElement("span");
    line.className = "line";
    line.style.borderTopColor = colour;
    line.style.borderTopStyle = dash;
    row.append(line, name);
    rows.push(row);
  }
  $("legend").replaceChildren(...rows);
}

function toggleType(type, shown) {
  if (shown) state.hiddenTypes.delete(type);
  else state.hiddenTypes.add(type);
  cy.nodes(".entity").filter((n) => n.data("type") === type).toggleClass("hidden", !shown);
  writeAddress(false);
  const [nodes, edges] = count();
  if (walk) report(walk, nodes, edges, walkArguments());
}

function predicateChoices(answer) {
  const listed = new Map();
  for (const p of (schema && schema.predicates) || []) {
    if (!p.walked_when_named && p.count) listed.set(p.id, p.count);
  }
  for (const e of (answer && answer.edges) || []) if (!listed.has(e.predicate)) listed.set(e.predicate, null);
  for (const p of [...(state.only || []), ...state.excluded]) if (!listed.has(p)) listed.set(p, null);
  return listed;
}

function syncPredicateBoxes(answer) {
  const listed = predicateChoices(answer || walk);
  const have = new Set([...$("predicates").querySelectorAll("input")].map((b) => b.dataset.predicate));
  if (listed.size !== have.size || [...listed.keys()].some((p) => !have.has(p))) {
    const rows = [...listed].sort((a, b) => String(a[0]).localeCompare(String(b[0]))).map(([p, n]) => {
      const label = document.createElement("label");
      const box = document.createElement("input");
      box.type = "checkbox";
      box.dataset.predicate = p;
      box.addEventListener("change", predicatesChanged);
      const only = document.createElement("button");
      only.type = "button";
      only.className = "only";
      only.textContent = "only";
      only.title = "Walk this predicate only";
      only.dataset.predicate = p;
      only.addEventListener("click", () => { state.only = [p]; state.excluded = []; syncPredicateBoxes(); draw({ push: true }); });
      label.append(box, " " + p + (n ? " (" + n + ")" : ""), only);
      return label;
    });
    $("predicates").replaceChildren(...rows);
  }
  for (const box of $("predicates").querySelectorAll("input")) {
    const p = box.dataset.predicate;
    box.checked = state.only ? state.only.includes(p) : !state.excluded.includes(p);
  }
}

function predicatesChanged() {
  const boxes = [...$("predicates").querySelectorAll("input")];
  const checked = boxes.filter((b) => b.checked).map((b) => b.dataset.predicate);
  if (state.only) {
    state.only = checked.length ? checked : null;
    state.excluded = [];
  } else {
    state.excluded = boxes.filter((b) => !b.checked).map((b) => b.dataset.predicate);
    if (!checked.length) { state.only = null; state.excluded = []; syncPredicateBoxes(); }
  }
  draw({ push: true });
}

function showAllLabels(on) {
  // Every node's label, at its size in the drawing's units (zoom in to read them): the layout runs
  // again from where the nodes are, counting each label in its node's size, to make room for all.
  state.allLabels = on;
  $("labels").classList.toggle("selected", on);
  cy.elements(".quiet").toggleClass("loud", on);
  placeLabels();
  if (!on || state.view !== "walk") return;
  const serial = ++rendered;
  const layout = shown().layout({ ...layoutOptions(true, null, false), randomize: false, nodeDimensionsIncludeLabels: true,
                                  fixedNodeConstraint: undefined, animate: false, fit: false });
  // Fitted to the nodes (as a walk is), not to every label counted in the layout: a label with no
  // room at this zoom is left to hover or a closer zoom, so the drawing takes the whole view.
  layout.one("layoutstop", () => {
    fit();
    cy.one("render", () => { document.body.dataset.rendered = String(serial); });
  });
  seeded(() => layout.run());
}

// -- walking from the picture -----------------------------------------------------------------

function recentre(iri) {
  state.seeds = [iri];
  draw({ push: true });
  describe(iri);
}

function expandHere(iri) {
  state.seeds = [...new Set([...state.seeds, iri])];
  draw({ push: true, keep: true, around: iri });
}

function leavesOf(node) {
  return node.neighborhood("node.entity").filter((m) => !m.hasClass("seed") &&
    m.connectedEdges(".statement").every((e) => e.source().same(node) || e.target().same(node)));
}

function fold(iri) {
  const node = cy.getElementById(byIri.get(iri));
  const leaves = leavesOf(node).filter((m) => m.visible());
  if (leaves.length < 2) return 0;
  leaves.addClass("folded");
  const more = cy.add({ group: "nodes", classes: "more", data: { id: "more-" + node.id(), hub: iri,
    short: "+" + leaves.length + " more", label: leaves.length + " more neighbours of " + node.data("label") },
    position: { x: node.position("x") + 40, y: node.position("y") + 40 } });
  cy.add({ group: "edges", classes: "moreedge", data: { id: "moreedge-" + node.id(), source: node.id(), target: more.id(),
    colour: "#999999", short: "" } });
  collapsed.set(iri, leaves);
  return leaves.length;
}

function unfold(iri) {
  const leaves = collapsed.get(iri);
  if (!leaves) return;
  const hub = cy.getElementById(byIri.get(iri));
  cy.remove(cy.getElementById("more-" + hub.id()));
  leaves.removeClass("folded");
  collapsed.delete(iri);
  count();
}

function foldHubs() {
  if (collapsed.size) {
    for (const iri of [...collapsed.keys()]) unfold(iri);
  } else {
    for (const n of cy.nodes(".entity")) if (leavesOf(n).length >= 6) fold(n.data("iri"));
  }
  count();
}

// -- cards ----------------------------------------------------------------------------------

function element(tag, text, className) {
  const made = document.createElement(tag);
  if (text !== undefined && text !== null) made.textContent = String(text);
  if (className) made.className = className;
  return made;
}

function button(text, action) {
  const made = element("button", text);
  made.type = "button";
  made.addEventListener("click", action);
  return made;
}

function table(rows) {
  const body = element("table");
  for (const [key, value] of rows) {
    const row = element("tr");
    const cell = element("td");
    if (value instanceof Node) cell.append(value);
    else cell.textContent = value;
    row.append(element("th", key), cell);
    body.append(row);
  }
  return body;
}

function valueText(value) {
  if (Array.isArray(value)) return value.map(valueText).join(", ");
  if (value && typeof value === "object") return JSON.stringify(value);
  return String(value);
}

function rawData(title, value) {
  const box = element("details");
  box.append(element("summary", title), element("pre", JSON.stringify(value, null, 2)));
  return box;
}

function nodeName(iri) {
  const id = byIri.get(iri);
  const node = id ? cy.getElementById(id) : null;
  return node && node.nonempty() ? node.data("label") : shortName(iri);
}

function entityLink(iri) {
  return button(nodeName(iri), () => {
    if (byIri.has(iri)) { cy.elements().unselect(); cy.getElementById(byIri.get(iri)).select(); }
    describe(iri);
  });
}

function tapNode(node) {
  if (node.hasClass("more")) { unfold(node.data("hub")); return; }
  if (node.hasClass("type")) { scanType(node.data("iri")); return; }
  describe(node.data("iri"));
}

async function describe(iri) {
  const card = element("div", null, "card");
  card.dataset.entity = iri;
  $("details").replaceChildren(card);
  const drawn = ((walk && walk.nodes) || []).find((n) => n && n.id === iri) || {};
  try {
    // The properties a walk shows (bookkeeping, declared `rdfs:subPropertyOf bfs:bookkeeping`, left
    // out): those of the node drawn, or of a walk of no hop from it, as a seed is read before its walk.
    const [described, shownData] = await Promise.all([tool("describe_entity", { id: iri }), walkedData(iri, drawn)]);
    if (card.parentNode === null) return;
    const label = described.label || drawn.label || shortName(iri);
    card.append(element("h2", label));
    const kind = element("div", null, "type");
    const chip = element("span", null, "chip");
    chip.style.backgroundColor = typeColour(described.entity_type || "");
    kind.append(chip, described.entity_type || "(no type)");
    card.append(kind, element("div", described.id, "id"));
    if (described.description) card.append(element("p", described.description));
    if (described.alt_labels && described.alt_labels.length) card.append(element("p", "Also: " + described.alt_labels.join("; "), "muted"));
    const properties = shownData.properties || {};
    const keys = Object.keys(properties);
    if (keys.length) {
      card.append(element("h3", "Properties"));
      card.append(table(keys.map((k) => [shortName(k), valueText(properties[k])])));
    }
    const rest = Object.keys(described.properties || {}).filter((k) => !keys.includes(k)).length;
    if (rest) card.append(element("p", rest + " more (bookkeeping) in all data", "muted"));
    const relations = described.relationships || [];
    if (relations.length) {
      card.append(element("h3", "Relationships"));
      card.append(table(relations.map((r) => [(r.direction === "in" ? "\u2190 " : "\u2192 ") + r.predicate,
        String(r.count) + (r.other_statuses ? " (+ " + Object.entries(r.other_statuses).map(([s, n]) => n + " " + s).join(", ") + ")" : "")])));
    }
    const actions = element("div", null, "actions");
    actions.append(button("Re-centre here", () => recentre(iri)));
    if (state.view === "walk" && byIri.has(iri) && !state.seeds.includes(iri)) actions.append(button("Expand in place", () => expandHere(iri)));
    if (collapsed.has(iri)) actions.append(button("Show its leaves", () => { unfold(iri); describe(iri); }));
    else if (byIri.has(iri) && leavesOf(cy.getElementById(byIri.get(iri))).length >= 2) {
      actions.append(button("Fold its leaves", () => { fold(iri); count(); describe(iri); }));
    }
    card.append(actions, rawData("All data (raw JSON)", described));
  } catch (error) {
    card.append(element("h2", drawn.label || shortName(iri)), element("p", error.message, "error"));
  }
}

async function walkedData(iri, drawn) {
  if (drawn.properties) return drawn;
  try {
    const read = await tool("bfs_query", { seeds: [iri], max_hops: 0 });
    return (read.nodes || []).find((n) => n && n.id === iri) || {};
  } catch (error) {
    return {};  // no properties listed rather than bookkeeping; "All data" still holds them all
  }
}

async function tapEdge(edge) {
  if (edge.hasClass("moreedge")) return;
  if (edge.hasClass("schema-edge")) {
    schemaEdgeCard(edge);
    return;
  }
  const answerEdge = ((walk && walk.edges) || [])[Number(edge.id().slice(1))] || {};
  const card = element("div", null, "card");
  card.dataset.statement = edge.data("statement") || "";
  card.dataset.edge = edge.id();
  $("details").replaceChildren(card);
  card.append(element("h2", "Statement"));
  const triple = element("div", null, "triple");
  triple.append(entityLink(answerEdge.subject), " \u2014 ", element("span", answerEdge.predicate, "predicate"), " \u2192 ",
                entityLink(answerEdge.object));
  card.append(triple);
  const status = edge.data("status");
  const pill = element("span", status, "status-pill");
  pill.style.backgroundColor = STATUS_COLOURS[status] || "#444";
  const rows = [["status", pill]];
  if (answerEdge.derived_via) rows.push(["derived via", answerEdge.derived_via + " (not stated: implied by a trait)"]);
  const skip = new Set(["subject", "predicate", "object", "truth_status", "derived_via", "provenance", "id"]);
  for (const [key, value] of Object.entries(answerEdge)) if (!skip.has(key)) rows.push([key.replace(/_/g, " "), valueText(value)]);
  if (answerEdge.id) rows.push(["statement", answerEdge.id]);
  card.append(table(rows));
  const provenance = answerEdge.provenance || {};
  const quotes = provenance["bundle:strongest_evidence_quote"] || [];
  const provenanceRows = Object.entries(provenance).filter(([k]) => k !== "bfs:evidence" && k !== "bundle:strongest_evidence_quote"
    && k !== "bfs:evidencePassage");
  if (provenanceRows.length) {
    card.append(element("h3", "Provenance"));
    card.append(table(provenanceRows.map(([k, v]) => [shortName(k), valueText(v)])));
  }
  for (const quote of quotes) card.append(element("p", "\u201c" + quote + "\u201d", "passage"));
  const passages = provenance["bfs:evidencePassage"] || [];
  if (passages.length) {
    const evidence = element("div");
    evidence.append(element("h3", "Evidence passages (" + passages.length + ")"));
    card.append(evidence);
    for (const passage of passages.slice(0, 3)) {
      try {
        const slice = await tool("fetch_slice", { entity_id: passage, window: 1 });
        evidence.append(element("div", slice.parent_name || slice.parent_id, "muted"));
        for (const read of slice.passages) evidence.append(element("p", read.content, "passage" + (read.id === passage ? " focus" : "")));
      } catch (error) {
        evidence.append(element("p", passage + ": " + error.message, "error"));
      }
    }
    if (passages.length > 3) evidence.append(element("p", (passages.length - 3) + " more passages in all data", "muted"));
  }
  if (answerEdge.id) {
    try {
      const described = await tool("describe_entity", { id: answerEdge.id });
      card.append(rawData("All data (raw JSON)", described));
    } catch (error) {
      card.append(element("p", error.message, "error"));
    }
  } else {
    card.append(element("p", "A plain triple: no statement data.", "muted"), rawData("All data (raw JSON)", answerEdge));
  }
}

// -- the schema view ------------------------------------------------------------------------

async function loadSchema() {
  if (!schema) {
    schema = await tool("describe_schema", {});
    assignColours(schemaTypes(schema));
  }
  return schema;
}

function schemaElements(found) {
  // Types as nodes (sized by how many entities each has), and per pair of types one edge listing
  // the predicates from the one to the other, a line each with its count: one readable label where
  // a line per predicate would pile up (a type linked to itself by nine predicates, say).
  byIri = new Map();
  const nodes = [];
  const node = (type, n) => {
    if (byIri.has(type)) return byIri.get(type);
    const id = "t" + nodes.length;
    byIri.set(type, id);
    const size = 24 + 8 * Math.log10(1 + (n || 0));
    nodes.push({ group: "nodes", classes: "type", data: { id, iri: type, label: type, type, count: n, colour: typeColour(type), size,
                                                           short: clip(shortName(type), LABEL_CHARS) + (n ? " (" + n + ")" : "") } });
    return id;
  };
  for (const t of found.entity_types || []) node(t.id, t.count);
  const pairs = new Map();
  let links = 0;
  for (const p of found.predicates || []) {
    for (const link of p.connects || []) {
      const parsed = /^(.*) -> (.*) \((\d+)\)$/.exec(link);
      if (!parsed) continue;
      links += 1;
      const key = node(parsed[1]) + " " + node(parsed[2]);
      if (!pairs.has(key)) pairs.set(key, { source: node(parsed[1]), target: node(parsed[2]), predicates: [] });
      pairs.get(key).predicates.push([p.id, Number(parsed[3])]);
    }
  }
  const edges = [...pairs.values()].map((pair, i) => {
    pair.predicates.sort((a, b) => b[1] - a[1] || String(a[0]).localeCompare(String(b[0])));
    const lines = pair.predicates.map(([p, n]) => clip(shortName(p), 24) + " (" + n + ")");
    const shownLines = lines.length > 6 ? [...lines.slice(0, 5), "+" + (lines.length - 5) + " more"] : lines;
    return { group: "edges", classes: "schema-edge" + (pair.source === pair.target ? " loop" : ""),
             data: { id: "p" + i, source: pair.source, target: pair.target, predicates: pair.predicates.map(([p]) => p),
                     short: shownLines.join("\n"), colour: "#555555", status: "" } };
  });
  return { nodes, edges, links };
}

async function drawSchema(push) {
  writeAddress(push);
  $("call").textContent = JSON.stringify({ tool: "describe_schema", arguments: {} }, null, 2);
  const mine = ++ticket;
  try {
    const found = await loadSchema();
    if (mine !== ticket) return;
    walk = null;
    const { nodes, edges, links } = schemaElements(found);
    nodes.forEach((n, i) => {
      const angle = 2 * Math.PI * i / nodes.length;
      n.position = { x: 300 * Math.cos(angle), y: 300 * Math.sin(angle) };
    });
    cy.elements().remove();
    collapsed.clear();
    cy.add([...nodes, ...edges]);
    schemaLegend(nodes);  // first: the legend's height sets the drawing's, which the layout fits
    runLayout(null, null, null);
    document.body.dataset.nodes = String(nodes.length);
    document.body.dataset.edges = String(links);
    say(nodes.length + " types, " + links + " type-to-type predicates (describe_schema's connects)");
  } catch (error) {
    if (mine === ticket) say(error.message, true);
  }
}

// Every type drawn, those only an edge names (a statement's type, say) included, uncounted.
function schemaLegend(nodes) {
  const rows = [element("h4", "Types (entities)")];
  for (const { data } of [...nodes].sort((a, b) => (b.data.count || 0) - (a.data.count || 0))) {
    const row = element("span");
    const swatch = element("span", null, "swatch");
    swatch.style.backgroundColor = data.colour;
    row.append(swatch, data.iri + (data.count ? " " + data.count : ""));
    rows.push(row);
  }
  const line = element("span", null, "line");
  const arrow = element("span");
  arrow.append(line, "subject type \u2192 object type: its predicates (statements)");
  rows.push(element("h4", "Edges"), arrow, element("span", "\u2014 click a type or an edge to scan it", "muted"));
  $("legend").replaceChildren(...rows);
}

function schemaLabels() {
  // The schema's labels readable at the zoom that fits it (13 px a type, 11 the predicates), each
  // predicate list moved along or beside its edge until it covers no node and no other label, then
  // the view fitted to all of it, labels included; again if that zoomed out past the sizes. Where a
  // type's name has no clear side, the layout runs again from where the types are, now counting
  // the names at the size they are drawn (the first layout knew them smaller), to make room.
  for (let pass = 0; pass < 5; pass++) {
    const zoom = cy.zoom();
    const crowded = spreadSchemaLabels(zoom);
    if (crowded && pass < 3) roomForNames();
    cy.fit(cy.elements(), 20);
    if (cy.zoom() >= zoom * 0.96 && !crowded) break;
  }
  // A name or a list that still covers another's is left to hover, as a walk's labels are.
  spreadSchemaLabels(cy.zoom(), true);
}

function roomForNames() {
  const options = { ...layoutOptions(), randomize: false, fit: false };
  seeded(() => cy.nodes().layout(options).run());
}

function spreadSchemaLabels(zoom, last) {
  cy.batch(() => {
    cy.nodes(".type").style("font-size", Math.max(13, 13.5 / zoom));
    cy.edges(".schema-edge").style({ "font-size": Math.max(11, 11.5 / zoom), "text-margin-x": 0, "text-margin-y": 0 });
    cy.elements().removeClass("unlabelled");
  });
  loopsOutward();
  const own = { includeNodes: false, includeEdges: false, includeLabels: true };
  const overlap = (a, b) => Math.max(0, Math.min(a.x2, b.x2) - Math.max(a.x1, b.x1)) * Math.max(0, Math.min(a.y2, b.y2) - Math.max(a.y1, b.y1));
  const placed = cy.nodes().map((n) => ({ ...n.boundingBox({ includeLabels: false }), own: n.id() }));
  let crowded = 0;  // the types whose name covers another name or a node on every side
  // Each type's name on the side of its node where it covers no other node nor name, the most
  // common types first.
  cy.nodes().sort((a, b) => b.width() - a.width()).forEach((n) => {
    let best = null;
    for (const side of SIDES) {
      n.style({ "text-valign": side[0], "text-halign": side[1] });
      const at = n.boundingBox(own);
      const cost = placed.reduce((sum, o) => sum + (o.own === n.id() ? 0 : overlap(o, at)), 0);
      if (!best || cost < best.cost) best = { cost, side, at };
      if (cost === 0) break;
    }
    n.style({ "text-valign": best.side[0], "text-halign": best.side[1] });
    if (best.cost > 0) crowded += 1;
    n.toggleClass("unlabelled", Boolean(last) && best.cost > 0);
    if (!last || best.cost === 0) placed.push(best.at);
  });
  const edges = cy.edges(".schema-edge").sort((a, b) => b.data("predicates").length - a.data("predicates").length);
  edges.forEach((e) => {
    const a = e.source().position();
    const b = e.target().position();
    // A loop's label moves along the direction the loop points to, and across it.
    const loop = e.data("outward") || 0;
    const length = e.isLoop() ? 120 : Math.hypot(b.x - a.x, b.y - a.y) || 1;
    const [dx, dy] = e.isLoop() ? [Math.sin(loop), -Math.cos(loop)] : [(b.x - a.x) / length, (b.y - a.y) / length];
    const box = e.boundingBox(own);
    const side = Math.abs(dx) * box.h / 2 + Math.abs(dy) * box.w / 2 + 6;  // just clear of the line
    // Along the line first, then beside it: the nearest clear place wins, never far from its line.
    const shifts = [[0, 0]];
    for (const along of [0.15, -0.15, 0.3, -0.3, 0.42, -0.42]) shifts.push([dx * along * length, dy * along * length]);
    for (const across of [side, -side]) for (const along of [0, 0.2, -0.2, 0.35, -0.35]) {
      shifts.push([dx * along * length - dy * across, dy * along * length + dx * across]);
    }
    let best = null;
    for (const [x, y] of shifts) {
      e.style({ "text-margin-x": x, "text-margin-y": y });
      const at = e.boundingBox(own);
      const cost = placed.reduce((sum, o) => sum + overlap(o, at), 0);
      if (!best || cost < best.cost) best = { cost, x, y, at };
      if (cost === 0) break;
    }
    // A predicate list that fits nowhere shows on hover or a click, as a walk's predicates do.
    e.style({ "text-margin-x": best.x, "text-margin-y": best.y });
    e.toggleClass("unlabelled", best.cost > 0);
    if (best.cost === 0) placed.push(best.at);
  });
  return crowded;
}

function loopsOutward() {
  // A type's loop (its predicates to itself) points away from the types it links to.
  cy.edges(".loop").forEach((e) => {
    const n = e.source();
    const others = n.neighborhood("node").not(n);
    if (!others.length) return;
    const mean = others.reduce((sum, m) => ({ x: sum.x + m.position("x") / others.length, y: sum.y + m.position("y") / others.length }),
                               { x: 0, y: 0 });
    const angle = Math.atan2(n.position("x") - mean.x, -(n.position("y") - mean.y));
    e.data("outward", angle);
    e.style("loop-direction", angle * 180 / Math.PI + "deg");
  });
}

function schemaEdgeCard(edge) {
  // The predicates from one type to another, each a scan of its statements.
  const predicates = edge.data("predicates") || [];
  if (predicates.length === 1) {
    scan({ edge_predicates: predicates, limit: 50 }, "Statements of " + predicates[0]);
    return;
  }
  const card = element("div", null, "card");
  card.append(element("h2", edge.source().data("iri") + " \u2192 " + edge.target().data("iri")));
  for (const p of predicates) {
    const go = button("Statements of " + p, () => scan({ edge_predicates: [p], limit: 50 }, "Statements of " + p));
    go.className = "linkish";
    card.append(go, element("br"));
  }
  $("details").replaceChildren(card);
}

async function scanType(type) {
  await scan({ node_types: [type], limit: 50 }, "Entities of type " + type);
}

async function scan(args, title) {
  const card = element("div", null, "card");
  $("details").replaceChildren(card);
  card.append(element("h2", title), element("pre", JSON.stringify({ tool: "scan_query", arguments: args }), "muted"));
  try {
    const found = await tool("scan_query", args);
    const list = element("div");
    for (const item of found.nodes || []) {
      const iri = typeof item === "string" ? item : item.id;
      const go = button((item.label || shortName(iri)) + " (" + iri + ")", () => { state.view = "walk"; tabs(); recentre(iri); });
      go.className = "linkish";
      list.append(go, element("br"));
    }
    for (const edge of found.edges || []) {
      const go = button(shortName(edge.subject) + " \u2014 " + edge.predicate + " \u2192 " + shortName(edge.object),
                        () => { state.view = "walk"; tabs(); recentre(edge.subject); });
      go.className = "linkish";
      list.append(go, element("br"));
    }
    card.append(list, rawData("All data (raw JSON)", found));
  } catch (error) {
    card.append(element("p", error.message, "error"));
  }
}

function tabs() {
  $("show-walk").classList.toggle("selected", state.view === "walk");
  $("show-schema").classList.toggle("selected", state.view === "schema");
}

// -- search and set-up ----------------------------------------------------------------------

async function search(event) {
  event.preventDefault();
  const query = $("search").value.trim();
  if (!query) return;
  try {
    const found = await tool("search_entities", { query, limit: 10 });
    const buttons = found.results.map((hit) => {
      const made = button((hit.label || hit.id) + " (" + hit.id + ")", () => {
        state.view = "walk";
        tabs();
        state.seeds = [hit.id];
        draw({ push: true });
        describe(hit.id);
      });
      made.dataset.id = hit.id;
      return made;
    });
    $("results").replaceChildren(...buttons);
    if (!buttons.length) say("nothing is named like that", true);
  } catch (error) {
    say(error.message, true);
  }
}

function setUp() {
  for (const status of STATUSES) {
    const label = document.createElement("label");
    const box = document.createElement("input");
    box.type = "checkbox";
    box.id = "status-" + status;
    box.checked = status === "asserted_true";
    box.addEventListener("change", () => draw({ push: true }));
    const swatch = element("span", null, "chip");
    swatch.style.backgroundColor = STATUS_COLOURS[status];
    label.append(box, swatch, status);
    $("statuses").append(label);
  }
  makeGraph();
  $("search-form").addEventListener("submit", search);
  for (const id of ["hops", "direction", "limit", "as_of", "valid_at", ...TRAITS.map((t) => "trait-" + t)]) {
    $(id).addEventListener("change", () => draw({ push: true }));
  }
  $("layout").addEventListener("change", () => { state.layout = $("layout").value; writeAddress(false); runLayout(null, null, null); });
  $("fit").addEventListener("click", fit);
  $("zoom-in").addEventListener("click", () => cy.zoom({ level: cy.zoom() * 1.3, renderedPosition: { x: cy.width() / 2, y: cy.height() / 2 } }));
  $("zoom-out").addEventListener("click", () => cy.zoom({ level: cy.zoom() / 1.3, renderedPosition: { x: cy.width() / 2, y: cy.height() / 2 } }));
  $("labels").addEventListener("click", () => showAllLabels(!state.allLabels));
  $("all-predicates").addEventListener("click", () => { state.only = null; state.excluded = []; syncPredicateBoxes(); draw({ push: true }); });
  $("show-walk").addEventListener("click", () => { state.view = "walk"; tabs(); draw({ push: true }); });
  $("show-schema").addEventListener("click", () => { state.view = "schema"; tabs(); draw({ push: true }); });
  $("token").value = sessionStorage.getItem("bfsql-token") || "";
  $("token").addEventListener("change", () => { sessionStorage.setItem("bfsql-token", $("token").value); schema = null; start(); });
  $("copy").addEventListener("click", () => navigator.clipboard.writeText($("call").textContent));
  window.addEventListener("popstate", () => { readAddress(); tabs(); draw(); });
  const folding = button("Fold hubs", foldHubs);
  folding.id = "fold-hubs";
  folding.title = "Fold the leaves of every node with six or more into an \u201cN more\u201d node (click it to unfold)";
  $("toolbar").append(folding);
}

const HINT_STATEMENTS = 50000;  // past this, finding the best connected entity costs more than a hint is worth
const HINT_CHARS = 32;  // a name one would type: not a paper's title

async function suggest() {
  // The search box's example is the graph's own best connected entity: the most connected member of
  // each community (`communities` over the whole graph, the largest first), the one of them with
  // the most relationships as `describe_entities` counts them, of those with a short name.
  const total = schema && schema.statements ? schema.statements.total : undefined;
  if (!(total > 0 && total <= HINT_STATEMENTS)) return;
  try {
    const found = await tool("communities", {});
    const level = (found.levels || [])[0] || {};
    const firsts = (level.communities || []).map((c) => (c.members || [])[0]).filter(Boolean).map((m) => m.id);
    if (!firsts.length) return;
    const described = await tool("describe_entities", { ids: firsts.slice(0, 20) });
    const degree = (e) => (e.relationships || []).reduce((sum, r) => sum + (r.count || 0), 0);
    const named = (described.entities || []).filter((e) => e.label && e.label.length <= HINT_CHARS);
    named.sort((a, b) => degree(b) - degree(a) || String(a.id).localeCompare(String(b.id)));
    if (named.length) $("search").placeholder = "a name, e.g. " + clip(named[0].label, 40);
  } catch (error) {
    // the plain hint stands
  }
}

async function start() {
  try {
    await loadSchema();
  } catch (error) {
    // a reader without a token still sees the page; the walk says why it fails
  }
  readAddress();
  tabs();
  await draw();
  suggest();
}

setUp();
start();
