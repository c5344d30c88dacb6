// Entities: the user's entity graph, drawn. Drag the background to pan, the wheel or the
// +/−/Fit buttons to zoom; select a node (click, or Enter on a focused one) to read its
// names, relations and the memories naming it; Focus redraws the graph around it.
import { api, el, guarded, notify, plural, registerScreen, section, svg, when } from "../core.js";
import { layout } from "./graph_layout.js";
import { ViewBox } from "./graph_viewbox.js";

const LIMIT = 150;
const DEPTH = 2;
const TYPES = new Set(["person", "project", "tool", "place", "organisation"]);

const view = {
  center: null, // the name the graph is drawn around, or null: the most named entities
  data: null,
  selected: null, // a node id
  box: null, // the ViewBox: pan and zoom
  placed: new Map(), // id -> { node, x, y, r, group }
  loads: 0, // the newest load wins when several overlap
};
let ui = null;

// -- building ----------------------------------------------------------------------------

function build() {
  ui = {
    search: el("input", { type: "search", id: "graph-search", list: "graph-names",
      "aria-label": "Find an entity", placeholder: "find an entity by name", autocomplete: "off" }),
    names: el("datalist", { id: "graph-names" }),
    summary: el("p", { id: "graph-summary", class: "summary" }),
    all: el("button", { type: "button", id: "graph-all", class: "quiet", hidden: true,
      text: "All entities" }),
    zoomIn: el("button", { type: "button", class: "quiet", title: "Zoom in",
      "aria-label": "Zoom in", text: "+" }),
    zoomOut: el("button", { type: "button", class: "quiet", title: "Zoom out",
      "aria-label": "Zoom out", text: "−" }),
    fit: el("button", { type: "button", class: "quiet", title: "Show the whole graph",
      text: "Fit" }),
    edges: svg("g", { class: "edges" }),
    nodes: svg("g", { class: "nodes" }),
    empty: el("p", { id: "graph-empty", class: "empty", hidden: true,
      text: "No entities yet: the people, projects, tools and places your memories name " +
        "appear here, linked when one memory names them together." }),
    detail: el("aside", { id: "graph-detail", class: "card stack graph-detail",
      "aria-live": "polite" }),
  };
  ui.canvas = svg("svg", { id: "graph-canvas", class: "graph-canvas", role: "group",
    "aria-label": "Entity graph", preserveAspectRatio: "xMidYMid meet" }, ui.edges, ui.nodes);
  ui.legend = legend();
  ui.find = el("form", { id: "graph-find", class: "row" }, ui.search,
    el("button", { type: "submit", text: "Find" }), ui.names);
  idleDetail();
  return section("graph", "Entities",
    el("p", { class: "hint", text: "Who and what your memories name, and which of them " +
      "appear together. Drag to pan, scroll or use the buttons to zoom; select a node to " +
      "read its memories." }),
    el("div", { class: "row graph-tools" }, ui.find,
      el("div", { class: "row zoom" }, ui.zoomIn, ui.zoomOut, ui.fit, ui.all)),
    ui.summary,
    el("div", { class: "graph-layout" },
      el("div", { class: "card graph-stage" }, ui.canvas, ui.empty, ui.legend), ui.detail));
}

function legend() {
  return el("p", { class: "graph-legend meta" }, ...[...TYPES, "other"].map((type) =>
    el("span", { class: `kind-${type}`, text: type })));
}

function idleDetail() {
  ui.detail.replaceChildren(el("p", { class: "hint",
    text: "Select a node to see its names, relations and memories." }));
}

// -- loading and drawing -----------------------------------------------------------------

async function load() {
  const mine = ++view.loads;
  ui.summary.textContent = "Loading…";
  const query = { limit: LIMIT };
  if (view.center) Object.assign(query, { center: view.center, depth: DEPTH });
  const data = await guarded(() => api("GET", "/v1/entities/graph", { query }));
  if (mine !== view.loads) return false;
  if (!data) {
    ui.summary.textContent = view.data ? summary(view.data) : "";
    return false;
  }
  view.data = data;
  draw(data);
  return true;
}

function radius(node) {
  return Math.min(30, 6 + 4 * Math.sqrt(node.mentions));
}

function kindClass(type) {
  return TYPES.has(type) ? `kind-${type}` : "kind-other";
}

function draw(data) {
  view.placed.clear();
  ui.all.hidden = !data.center;
  ui.names.replaceChildren(...data.nodes.map((node) => el("option", { value: node.name })));
  const empty = data.nodes.length === 0;
  ui.empty.hidden = !empty;
  ui.canvas.classList.toggle("blank", empty);
  ui.legend.hidden = empty;
  ui.summary.textContent = summary(data);
  const centerId = data.center ? data.nodes[0]?.id ?? null : null;
  const spots = layout(data.nodes, data.edges, centerId);
  ui.edges.replaceChildren(...data.edges.map(edgeLine(spots)));
  ui.nodes.replaceChildren(...data.nodes.map((node) => {
    const { x, y } = spots.get(node.id);
    const r = radius(node);
    const group = nodeGroup(node, x, y, r, node.id === centerId);
    view.placed.set(node.id, { node, x, y, r, group });
    return group;
  }));
  if (view.selected && !view.placed.has(view.selected)) {
    view.selected = null;
    idleDetail();
  }
  highlight();
  fit();
}

function fit() {
  view.box.fit([...view.placed.values()]);
}

function summary(data) {
  const counts = `${plural(data.nodes.length, "entity", "entities")}, ${plural(
    data.edges.length, "relation", "relations")}`;
  if (data.center) {
    const more = data.truncated ? ` (the nearest ${data.limit})` : "";
    return `Around “${data.center}”, up to ${plural(data.depth, "step", "steps")} away: ` +
      `${counts}${more}`;
  }
  return data.truncated ? `${counts} (the ${data.limit} most named)` : counts;
}

function edgeLine(spots) {
  return (edge) => {
    const a = spots.get(edge.source_id);
    const b = spots.get(edge.target_id);
    const label = edge.relation === "mentioned_with"
      ? `${edge.source} and ${edge.target}: named together in ${plural(edge.weight, "memory",
        "memories")}`
      : `${edge.source} ${edge.relation.replaceAll("_", " ")} ${edge.target} (${plural(
        edge.weight, "memory", "memories")})`;
    return svg("line", {
      class: "edge", x1: a.x, y1: a.y, x2: b.x, y2: b.y,
      "stroke-width": Math.min(6, 1.5 + Math.log(edge.weight) * 1.5),
      "data-source": edge.source_id, "data-target": edge.target_id,
    }, svg("title", { text: label }));
  };
}

function nodeGroup(node, x, y, r, isCenter) {
  const label = node.name.length > 28 ? `${node.name.slice(0, 27)}…` : node.name;
  const group = svg("g", {
    class: `node ${kindClass(node.type)}${isCenter ? " center" : ""}`,
    tabindex: 0, role: "button", "data-id": node.id,
    "aria-label": `${node.name} (${node.type}, ${plural(node.mentions, "memory", "memories")})`,
    transform: `translate(${x.toFixed(1)} ${y.toFixed(1)})`,
  },
  svg("title", { text: `${node.name} · ${node.type} · ${plural(node.mentions, "memory",
    "memories")}` }),
  svg("circle", { r: r.toFixed(1) }),
  svg("text", { y: (r + 13).toFixed(1), "text-anchor": "middle", text: label }));
  group.addEventListener("click", () => select(node.id));
  group.addEventListener("focus", () => {
    if (!view.box.shows(x, y)) view.box.centreOn(x, y); // keyboard: bring it into view
  });
  group.addEventListener("keydown", (event) => {
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      select(node.id);
    }
  });
  return group;
}

// -- selection and the side panel ------------------------------------------------------

function highlight() {
  const id = view.selected;
  const near = new Set();
  for (const line of ui.edges.children) {
    const linked = id !== null && (line.dataset.source === id || line.dataset.target === id);
    line.classList.toggle("linked", linked);
    if (linked) near.add(line.dataset.source).add(line.dataset.target);
  }
  for (const { node, group } of view.placed.values()) {
    group.classList.toggle("selected", node.id === id);
    group.classList.toggle("near", id !== null && node.id !== id && near.has(node.id));
    group.setAttribute("aria-pressed", String(node.id === id));
  }
}

// Bring a node into the middle of the view, at the current zoom.
function reveal(id) {
  const spot = view.placed.get(id);
  if (spot) view.box.centreOn(spot.x, spot.y);
}

// /v1/entities/graph is the drawing itself: an entity called "graph" is asked for in
// capitals (names match ignoring case).
function entityPath(name) {
  return `/v1/entities/${encodeURIComponent(name === "graph" ? "GRAPH" : name)}`;
}

async function select(id) {
  const spot = view.placed.get(id);
  if (!spot) return;
  view.selected = id;
  highlight();
  const { node } = spot;
  ui.detail.replaceChildren(el("h3", { text: node.name }),
    el("p", { class: "loading", text: "Loading…" }));
  const detail = await guarded(() =>
    api("GET", entityPath(node.name), { query: { include: "memories" } }));
  if (view.selected !== id) return; // another node was picked meanwhile
  if (!detail) {
    ui.detail.replaceChildren(el("h3", { text: node.name }),
      el("p", { class: "empty", text: "Could not load this entity: select it again." }));
    return;
  }
  renderDetail(node, detail);
}

function renderDetail(node, detail) {
  const focus = el("button", { type: "button", text: "Focus",
    title: `Redraw the graph around ${detail.name}` });
  focus.addEventListener("click", () => focusOn(detail.name));
  const others = detail.aliases.filter((alias) => alias !== detail.name.toLowerCase());
  const parts = [
    el("h3", { text: detail.name }),
    el("p", { class: "meta", text: `${detail.type} · named in ${plural(detail.entries,
      "memory", "memories")}` }),
  ];
  if (others.length) parts.push(el("p", { class: "meta", text: `Also: ${others.join(", ")}` }));
  parts.push(el("div", { class: "row" }, focus));
  parts.push(el("h4", { text: "Relations" }), relationList(detail));
  parts.push(el("h4", { text: "Memories" }), memoryList(detail));
  ui.detail.replaceChildren(...parts);
}

function relationList(detail) {
  // One line per neighbour and relation, however many memories state it.
  const seen = new Map();
  for (const r of detail.relations) {
    const out = r.source_id === detail.id;
    const other = out ? r.target : r.source;
    const otherId = out ? r.target_id : r.source_id;
    const kind = r.type === "mentioned_with" ? "named with" : r.type.replaceAll("_", " ");
    const key = `${otherId} ${kind} ${out}`;
    if (!seen.has(key)) seen.set(key, { other, otherId, kind, out, count: 0 });
    seen.get(key).count += 1;
  }
  if (!seen.size) return el("p", { class: "empty", text: "No relations." });
  return el("ul", { class: "relations" }, ...[...seen.values()].map((rel) => {
    const link = el("button", { type: "button", class: "link", text: rel.other,
      title: view.placed.has(rel.otherId) ? `Select ${rel.other}` : `Focus on ${rel.other}` });
    link.addEventListener("click", () => {
      if (view.placed.has(rel.otherId)) {
        select(rel.otherId);
        reveal(rel.otherId);
      } else {
        focusOn(rel.other);
      }
    });
    const kind = rel.kind === "named with" || rel.out ? rel.kind : `${rel.kind} (from)`;
    return el("li", {}, el("span", { class: "relation", text: kind }), " ", link,
      rel.count > 1 ? el("span", { class: "meta", text: ` ×${rel.count}` }) : null);
  }));
}

function memoryList(detail) {
  const memories = detail.memories || [];
  if (!memories.length) return el("p", { class: "empty", text: "No memories to show." });
  const list = el("ul", { class: "entries" }, ...memories.map((entry) =>
    el("li", { class: "entry", dataset: { id: entry.id } },
      el("p", { class: "content", text: entry.content }),
      el("p", { class: "meta" }, [entry.kind, entry.agent_id && `agent ${entry.agent_id}`,
        entry.quarantine && "held for review",
        `updated ${when(entry.updated_at)}`].filter(Boolean).join(" · "), " · ",
      el("code", { text: entry.id })))));
  const shown = detail.entry_ids.length > memories.length
    ? el("p", { class: "meta", text: `The newest ${memories.length} of ${detail.entry_ids.length}.` })
    : null;
  return el("div", { class: "stack" }, list, shown);
}

async function focusOn(name) {
  const before = view.center;
  view.center = name;
  if (await load()) {
    const first = view.data.nodes[0];
    if (first) select(first.id);
  } else if (view.center === name) {
    view.center = before; // it could not be drawn (gone meanwhile?): keep the graph shown
  }
}

// -- finding a node ----------------------------------------------------------------------

function match(text) {
  const wanted = text.toLowerCase();
  const nodes = [...view.placed.values()].map((spot) => spot.node);
  const names = (node) => [node.name.toLowerCase(), ...node.aliases];
  return nodes.find((node) => names(node).includes(wanted))
    || nodes.find((node) => names(node).some((name) => name.startsWith(wanted)))
    || nodes.find((node) => names(node).some((name) => name.includes(wanted)));
}

async function find(event) {
  event.preventDefault();
  const text = ui.search.value.trim();
  if (!text) return;
  const here = match(text);
  if (here) {
    select(here.id);
    reveal(here.id);
    return;
  }
  // Not drawn: perhaps beyond the most named, so ask the whole list.
  const found = await guarded(() =>
    api("GET", "/v1/entities", { query: { prefix: text, limit: 1 },
      fields: { prefix: "Find an entity" } }));
  if (!found) return;
  if (found.items.length) await focusOn(found.items[0].name);
  else notify(`No entity is named like “${text}”: try the start of another name.`, "info");
}

// -- the screen --------------------------------------------------------------------------

function letGo() {
  if (view.selected === null) return; // a click on the background lets go of the selection
  view.selected = null;
  highlight();
  idleDetail();
}

function wire() {
  view.box = new ViewBox(ui.canvas, { isNode: (target) => Boolean(target.closest(".node")),
    onBackgroundClick: letGo });
  ui.zoomIn.addEventListener("click", () => view.box.zoomIn());
  ui.zoomOut.addEventListener("click", () => view.box.zoomOut());
  ui.fit.addEventListener("click", fit);
  ui.find.addEventListener("submit", find);
  ui.all.addEventListener("click", () => {
    view.center = null;
    load();
  });
}

// Another user's graph must not linger when an admin switches who they act for.
function reset() {
  view.loads += 1;
  Object.assign(view, { center: null, data: null, selected: null });
  view.box.cancelDrag();
  view.placed.clear();
  view.box.fit([]);
  ui.edges.replaceChildren();
  ui.nodes.replaceChildren();
  ui.names.replaceChildren();
  ui.search.value = "";
  ui.summary.textContent = "";
  ui.empty.hidden = true;
  ui.all.hidden = true;
  idleDetail();
}

registerScreen({ name: "graph", label: "Entities", build, wire, load, reset });
