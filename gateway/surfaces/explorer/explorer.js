// The explorer page: the same /v1/tools API an agent calls, with the same reader token.
// Text from the graph is only ever set as textContent; the picture is the server's own SVG,
// parsed as XML (never as HTML) before it is shown.
"use strict";
const STATUSES = ["asserted_true", "asserted_false", "hypothetical", "disputed", "retracted"];
const $ = (id) => document.getElementById(id);
const view = { seeds: [] };

function headers() {
  const token = sessionStorage.getItem("bfsql-token");
  const found = { "Content-Type": "application/json" };
  if (token) found.Authorization = "Bearer " + token;
  return found;
}

async function tool(name, args, format) {
  const response = await fetch("/v1/tools/" + name + (format ? "?format=" + format : ""),
    { method: "POST", headers: headers(), body: JSON.stringify(args) });
  if (!response.ok) {
    const problem = await response.json().catch(() => ({}));
    throw new Error(problem.detail || response.status + " " + response.statusText);
  }
  return format ? response.text() : response.json();
}

function point(text) {
  const value = text.trim();
  return /^-?\d+$/.test(value) ? Number(value) : value;
}

function walkArguments() {
  const args = {
    seeds: view.seeds, max_hops: Number($("hops").value), direction: $("direction").value,
    truth_status: STATUSES.filter((s) => $("status-" + s).checked),
  };
  if ($("as_of").value.trim()) args.as_of = point($("as_of").value);
  if ($("valid_at").value.trim()) args.valid_at = point($("valid_at").value);
  return args;
}

function say(text, failed) {
  $("status").textContent = text;
  $("status").className = failed ? "error" : "";
}

async function draw() {
  if (!view.seeds.length) return;
  const args = walkArguments();
  $("call").textContent = JSON.stringify({ tool: "bfs_query", arguments: args }, null, 2);
  try {
    const [svg, counts] = await Promise.all([
      tool("bfs_query", args, "svg"), tool("bfs_query", { ...args, topology_only: true, layout: "compact" })]);
    const parsed = new DOMParser().parseFromString(svg, "image/svg+xml").documentElement;
    if (parsed.nodeName !== "svg") throw new Error("the picture could not be read");
    const picture = document.importNode(parsed, true);
    $("picture").replaceChildren(picture);
    wire(picture);
    const hidden = Object.entries(counts.hidden_by_filter || {}).map(([k, n]) => n + " by " + k).join(", ");
    say(counts.node_count + " nodes, " + counts.edge_count + " edges" + (hidden ? "; hidden: " + hidden : "") +
        (counts.truncated ? " (cut by a budget)" : ""));
    document.body.dataset.edges = String(picture.querySelectorAll(".edge").length);
    document.body.dataset.nodes = String(picture.querySelectorAll(".node").length);
  } catch (error) {
    say(error.message, true);
  }
}

function wire(picture) {
  for (const node of picture.querySelectorAll(".node")) {
    node.addEventListener("click", (event) => {
      const id = node.getAttribute("data-id");
      view.seeds = event.shiftKey ? [...new Set([...view.seeds, id])] : [id];
      draw();
      describe(id);
    });
  }
  for (const edge of picture.querySelectorAll(".edge")) {
    edge.addEventListener("click", () => statement(edge));
  }
}

function show(title, value) {
  const block = document.createElement("div");
  const heading = document.createElement("h1");
  heading.textContent = title;
  const body = document.createElement("pre");
  body.textContent = JSON.stringify(value, null, 2);
  block.append(heading, body);
  return block;
}

async function describe(id) {
  try {
    $("details").replaceChildren(show(id, await tool("describe_entity", { id })));
  } catch (error) {
    $("details").replaceChildren(show(id, { error: error.message }));
  }
}

async function statement(edge) {
  const id = edge.getAttribute("data-statement");
  const triple = [edge.getAttribute("data-subject"), edge.getAttribute("data-predicate"), edge.getAttribute("data-object")];
  if (!id) {
    $("details").replaceChildren(show(triple.join(" "), { note: "a plain triple: no statement data" }));
    return;
  }
  try {
    const described = await tool("describe_entity", { id });
    const parts = [show(triple.join(" "), described.statement || described)];
    const passages = ((described.statement || {}).provenance || {})["bfs:evidencePassage"] || [];
    if (passages.length) {
      const slice = await tool("fetch_slice", { entity_id: passages[0], window: 3 });
      const evidence = document.createElement("div");
      const heading = document.createElement("h1");
      heading.textContent = "Evidence: " + slice.parent_id;
      evidence.append(heading);
      for (const passage of slice.passages) {
        const text = document.createElement("p");
        text.className = "passage";
        text.textContent = passage.content;
        evidence.append(text);
      }
      parts.push(evidence);
    }
    $("details").replaceChildren(...parts);
  } catch (error) {
    $("details").replaceChildren(show(id, { error: error.message }));
  }
}

async function search(event) {
  event.preventDefault();
  const query = $("search").value.trim();
  if (!query) return;
  try {
    const found = await tool("search_entities", { query, limit: 10 });
    const buttons = found.results.map((hit) => {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = (hit.label || hit.id) + " (" + hit.id + ")";
      button.dataset.id = hit.id;
      button.addEventListener("click", () => { view.seeds = [hit.id]; draw(); describe(hit.id); });
      return button;
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
    box.addEventListener("change", draw);
    label.append(box, " " + status);
    $("statuses").append(label);
  }
  $("search-form").addEventListener("submit", search);
  for (const id of ["hops", "direction", "as_of", "valid_at"]) $(id).addEventListener("change", draw);
  $("token").value = sessionStorage.getItem("bfsql-token") || "";
  $("token").addEventListener("change", () => { sessionStorage.setItem("bfsql-token", $("token").value); draw(); });
  $("copy").addEventListener("click", () => navigator.clipboard.writeText($("call").textContent));
}

setUp();
