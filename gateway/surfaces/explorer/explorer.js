// The explorer page: the same /v1/tools API an agent calls, with the same reader token, drawn
// with Cytoscape.js (vendor/, served by this server). Text from the graph is only ever set as
// textContent or as a Cytoscape label (drawn on a canvas): never parsed as markup.
"use strict";
const STATUSES = ["asserted_true", "asserted_false", "hypothetical", "disputed", "retracted"];
const STATUS_COLOURS = { asserted_true: "#444444", asserted_false: "#c0392b", hypothetical: "#2e86c1",
                         disputed: "#d68910", retracted: "#7f8c8d" };
const DERIVED_COLOUR = "#8e44ad";
const PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7",
                 "#9c755f", "#bab0ac", "#86bcb6", "#d37295", "#a0cbe8", "#ffbe7d", "#8cd17d", "#f1ce63"];
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

const colours = new Map();  // entity type -> colour, first come first served: distinct within a view

function typeColour(type) {
  if (!type) return "#ffffff";
  if (!colours.has(type)) {
    const used = new Set(colours.values());
    colours.set(type, PALETTE.find((c) => !used.has(c)) || PALETTE[colours.size % PALETTE.length]);
  }
  return colours.get(type);
}

// -- the drawing ---------------------------------------------------------------------------

const STYLE = [
  { selector: "node", style: {
    "background-color": "data(colour)", "border-width": 1, "border-color": "#555", width: 18, height: 18,
    label: "data(short)", "font-size": 11, "font-family": FONT, color: "#222", "text-valign": "bottom", "text-margin-y": 3,
    "text-background-color": "#ffffff", "text-background-opacity": 0.75,
    "text-background-padding": 1 } },
  { selector: "node.hub", style: { width: 26, height: 26, "font-size": 15 } },
  { selector: "node.seed", style: { width: 32, height: 32, "border-width": 3, "border-color": "#222",
                                    "font-weight": "bold", "font-size": 17 } },
  { selector: "node.more", style: { shape: "round-rectangle", "background-color": "#eeeeee", width: 44, height: 20,
                                    label: "data(short)", "text-valign": "center", "text-margin-y": 0,
                                    "min-zoomed-font-size": 0, "border-style": "dashed" } },
  { selector: "node.type", style: { width: 36, height: 36, "font-size": 12, "min-zoomed-font-size": 0 } },
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
  const counted = new Map();
  for (const node of answer.nodes || []) if (node && node.entity_type) counted.set(node.entity_type, (counted.get(node.entity_type) || 0) + 1);
  for (const [type] of [...counted].sort((a, b) => b[1] - a[1])) typeColour(type);
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
  if (state.view === "schema") return { name: "fcose", animate: false, randomize: true, idealEdgeLength: 140,
                                        nodeRepulsion: 20000, nodeSeparation: 120 };
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
  layout.run();
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

function placeLabels() {
  // Labels that do not collide: each label is drawn only where it covers no label placed before it
  // and (but for a hub's, a landmark) no other node, in this order: the seeds' (always), the hubs', the other nodes' by degree,
  // then the edges'. The seeds' and the hubs' stay 15 and 12 px on screen at any zoom (the
  // landmarks of a crowded drawing); a label under 7 px is not drawn. Zooming in makes room:
  // this runs again after every zoom. Hover or a click shows any label; "All labels" all of them.
  if (state.view !== "walk") return;
  const zoom = cy.zoom();
  const drawn = shown();
  const cell = 64;
  const grid = new Map();
  const cells = (b, visit) => {
    for (let x = Math.floor(b.x1 / cell); x <= Math.floor(b.x2 / cell); x++) {
      for (let y = Math.floor(b.y1 / cell); y <= Math.floor(b.y2 / cell); y++) if (visit(x + " " + y)) return true;
    }
    return false;
  };
  const overlaps = (a, b) => a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2;
  const free = (b, own, overBodies) => !cells(b, (key) => (grid.get(key) || [])
    .some((o) => o.own !== own && !(overBodies && o.body) && overlaps(o, b)));
  const take = (b) => cells(b, (key) => { if (!grid.has(key)) grid.set(key, []); grid.get(key).push(b); return false; });
  const nodes = drawn.nodes();
  const silent = (e) => e.hasClass("quiet") && !e.hasClass("near") && !e.hasClass("loud");
  const rank = (n) => (n.hasClass("seed") ? 2 : n.hasClass("hub") ? 1 : 0);
  // Only the labels of ordinary nodes and edges avoid the nodes' bodies: in a crowded drawing seen
  // from afar there are none to place, and the thousand bodies are not looked at.
  if (nodes.some((n) => rank(n) === 0 && !silent(n)) || drawn.edges().some((e) => !silent(e))) {
    nodes.forEach((n) => {
      const at = n.renderedPosition();
      const r = n.renderedWidth() / 2;
      take({ x1: at.x - r, x2: at.x + r, y1: at.y - r, y2: at.y + r, own: n.id(), body: true });
    });
  }
  const ordered = nodes.filter(".entity, .more").sort((a, b) => rank(b) - rank(a) || b.data("degree") - a.data("degree"));
  cy.batch(() => {
    ordered.forEach((n) => {
      const seed = n.hasClass("seed");
      const hub = n.hasClass("hub");
      if (seed || hub) n.style("font-size", Math.max(6, Math.min(48, (seed ? 15 : 12) / zoom)));
      if (silent(n)) return;
      const size = n.numericStyle("font-size");
      const px = size * zoom;
      const at = n.renderedPosition();
      // Cytoscape's own box of a label: the text, its background's padding and 2 more on each side.
      const width = (Math.ceil(textWidth(n.data("short"), size, seed)) + 6) * zoom + 3;
      const top = at.y + n.renderedHeight() / 2 - 1;
      const box = { x1: at.x - width / 2, x2: at.x + width / 2, y1: top, y2: top + (size + 6) * zoom + 3, own: n.id() };
      const shownLabel = state.allLabels || seed || (px >= 7 && free(box, n.id(), hub));
      n.toggleClass("unlabelled", !shownLabel);
      if (shownLabel) take(box);
    });
    drawn.edges().forEach((e) => {
      if (silent(e) || e.hasClass("moreedge")) return;
      const size = e.numericStyle("font-size");
      const px = size * zoom;
      if (!state.allLabels && px < 7) { e.addClass("unlabelled"); return; }
      const mid = e.renderedMidpoint();
      const a = e.source().renderedPosition();
      const b = e.target().renderedPosition();
      const angle = Math.atan2(b.y - a.y, b.x - a.x);
      const w = (Math.ceil(textWidth(e.data("short"), size, false)) + 6) * zoom + 3;
      const h = (size + 6) * zoom + 3;
      const halfW = (Math.abs(w * Math.cos(angle)) + Math.abs(h * Math.sin(angle))) / 2;
      const halfH = (Math.abs(w * Math.sin(angle)) + Math.abs(h * Math.cos(angle))) / 2;
      const box = { x1: mid.x - halfW, x2: mid.x + halfW, y1: mid.y - halfH, y2: mid.y + halfH, own: e.id() };
      const shownLabel = state.allLabels || free(box, e.id());
      e.toggleClass("unlabelled", !shownLabel);
      if (shownLabel) take(box);
    });
  });
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
  state.allLabels = on;
  $("labels").classList.toggle("selected", on);
  cy.elements(".quiet").toggleClass("loud", on);
  placeLabels();
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
    const described = await tool("describe_entity", { id: iri });
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
    const keys = drawn.properties ? Object.keys(drawn.properties) : Object.keys(described.properties || {});
    const shown = keys.filter((k) => (described.properties || {})[k] !== undefined || (drawn.properties || {})[k] !== undefined);
    if (shown.length) {
      card.append(element("h3", "Properties"));
      card.append(table(shown.map((k) => [shortName(k), valueText((drawn.properties || described.properties)[k])])));
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

async function tapEdge(edge) {
  if (edge.hasClass("moreedge")) return;
  if (edge.hasClass("schema-edge")) {
    await scan({ edge_predicates: [edge.data("predicate")], limit: 50 }, "Statements of " + edge.data("predicate"));
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
  if (!schema) schema = await tool("describe_schema", {});
  return schema;
}

async function drawSchema(push) {
  writeAddress(push);
  $("call").textContent = JSON.stringify({ tool: "describe_schema", arguments: {} }, null, 2);
  const mine = ++ticket;
  try {
    const found = await loadSchema();
    if (mine !== ticket) return;
    walk = null;
    byIri = new Map();
    const nodes = [];
    const node = (type, n) => {
      if (byIri.has(type)) return byIri.get(type);
      const id = "t" + nodes.length;
      byIri.set(type, id);
      nodes.push({ group: "nodes", classes: "type", data: { id, iri: type, label: type, short: clip(shortName(type), LABEL_CHARS) + (n ? " (" + n + ")" : ""),
                                                             type, colour: typeColour(type) } });
      return id;
    };
    for (const t of found.entity_types || []) node(t.id, t.count);
    const edges = [];
    for (const p of found.predicates || []) {
      for (const link of p.connects || []) {
        const parsed = /^(.*) -> (.*) \((\d+)\)$/.exec(link);
        if (!parsed) continue;
        edges.push({ group: "edges", classes: "schema-edge", data: { id: "p" + edges.length, source: node(parsed[1]),
          target: node(parsed[2]), predicate: p.id, short: clip(shortName(p.id), 24) + " (" + parsed[3] + ")",
          colour: "#555555", status: "" } });
      }
    }
    cy.elements().remove();
    collapsed.clear();
    cy.add([...nodes, ...edges]);
    runLayout(null, null, null);
    $("legend").replaceChildren(element("h4", "Schema: click a type or a predicate to scan it"));
    document.body.dataset.nodes = String(nodes.length);
    document.body.dataset.edges = String(edges.length);
    say(nodes.length + " types, " + edges.length + " type-to-type predicates (describe_schema's connects)");
  } catch (error) {
    if (mine === ticket) say(error.message, true);
  }
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

async function start() {
  try {
    await loadSchema();
  } catch (error) {
    // a reader without a token still sees the page; the walk says why it fails
  }
  readAddress();
  tabs();
  draw();
}

setUp();
start();
