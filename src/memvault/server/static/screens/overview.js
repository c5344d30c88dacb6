// Overview: the first screen. The caller's memories counted (GET /v1/stats), what was written
// per day, the vectors still to compute, the review queue, and LLM use (GET /v1/usage).
import { $, api, el, guarded, loading, plural, registerScreen, section, svg } from "../core.js";

const DAYS = 30;

const LABELS = {
  by_kind: ["By kind", { user: "user", project: "project", feedback: "feedback",
    reference: "reference" }],
  by_class: ["By class", { semantic: "semantic", short_term: "short term", process: "process",
    source_archive: "source archive", compressed_archive: "compressed archive" }],
  by_tier: ["By tier", { active: "active", cold: "cold", archive: "archive" }],
  by_domain: ["By domain", { work: "work", life: "life", none: "no domain" }],
};

function build() {
  return section("overview", "Overview",
    el("p", { class: "hint", text: `Your memories at a glance: what is stored, what was written ` +
      `over the last ${DAYS} days, and what waits for you or for the embedder.` }),
    el("div", { id: "overview" }));
}

async function loadOverview() {
  const box = $("#overview");
  loading(box);
  const data = await guarded(() => Promise.all([
    api("GET", "/v1/stats", { query: { days: DAYS } }),
    api("GET", "/v1/usage", { query: { days: DAYS } }),
  ]));
  if (!data) {
    box.replaceChildren();
    return;
  }
  const [stats, usage] = data;
  box.replaceChildren(...render(stats, usage));
}

function render(stats, usage) {
  const written = stats.activity.some((d) => d.created || d.updated);
  if (stats.total === 0 && !written) {
    return [
      el("div", { class: "card empty-overview" },
        el("h3", { text: "No memories yet" }),
        el("p", { text: "Nothing is stored for this user. Add a memory on the Memories screen, " +
          "or let an agent remember something; it will be counted here." }),
        el("a", { href: "#memories", text: "Go to Memories →" })),
      el("div", { class: "tiles" }, llmTile(usage)),
    ];
  }
  return [
    el("div", { class: "tiles" },
      tile("total", "Memories", stats.total, "current memories"),
      heldTile(stats.quarantined),
      embeddingTile(stats.embedding),
      llmTile(usage)),
    el("div", { class: "card stack" },
      el("h3", { text: `Written and changed per day (UTC), last ${stats.days} days` }),
      chart(stats.activity),
      el("p", { class: "legend meta" },
        el("span", { class: "swatch created" }), " written ",
        el("span", { class: "swatch updated" }), " changed later")),
    el("div", { class: "breakdowns" },
      ...Object.entries(LABELS).map(([field, [title, names]]) =>
        breakdown(field, title, names, stats[field], stats.total))),
  ];
}

function tile(name, label, value, note, ...extra) {
  return el("div", { class: "card tile", dataset: { tile: name } },
    el("span", { class: "label", text: label }),
    el("span", { class: "value", text: String(value) }),
    el("span", { class: "meta", text: note }),
    ...extra);
}

// The link lands on the Memories screen with its "Quarantined only" filter ticked.
function heldTile(count) {
  const link = el("a", { href: "#memories", class: "review-link",
    text: count ? "Review them in Memories →" : "Open Memories →" });
  link.addEventListener("click", () => {
    const held = document.getElementById("filter-held");
    if (held) held.checked = count > 0;
  });
  const note = count ? "held back from prompts until approved" : "nothing waits for review";
  const node = tile("quarantined", "Quarantined", count, note, link);
  if (count) node.classList.add("attention");
  return node;
}

function embeddingTile(embedding) {
  if (!embedding.model) {
    return tile("embedding", "Vectors pending", "—", "no embedder: keyword search only");
  }
  const note = embedding.pending
    ? `${plural(embedding.pending, "memory", "memories")} still to embed with ${embedding.model}`
    : `all embedded with ${embedding.model}`;
  return tile("embedding", "Vectors pending", embedding.pending, note);
}

function llmTile(usage) {
  const tokens = usage.tokens_in + usage.tokens_out;
  const left = usage.left_today === null || usage.left_today === undefined
    ? "no daily budget"
    : `${usage.left_today.toLocaleString("en")} tokens left today`;
  return tile("llm", `LLM, last ${DAYS} days`, plural(usage.calls, "call", "calls"),
    `${tokens.toLocaleString("en")} tokens · ${left}`);
}

function breakdown(field, title, names, counts, total) {
  const rows = Object.entries(counts).map(([value, count]) => {
    const fill = el("div", { class: "fill low" });
    fill.style.width = `${total ? Math.round((count / total) * 100) : 0}%`;
    return el("li", { dataset: { value } },
      el("span", { class: "name", text: names[value] || value }),
      el("span", { class: "track" }, fill),
      el("span", { class: "count", text: String(count) }));
  });
  return el("div", { class: "card breakdown", dataset: { field } },
    el("h3", { text: title }), el("ul", {}, ...rows));
}

// One column per day; a stacked bar (written below, changed above) on each day with any,
// its numbers in a <title> the browser shows on hover and screen readers read.
function chart(days) {
  const width = 640;
  const height = 200;
  const left = 34;
  const bottom = 24;
  const top = 8;
  const plotH = height - bottom - top;
  const step = (width - left - 4) / days.length;
  const peak = Math.max(1, ...days.map((d) => d.created + d.updated));
  const first = days[0].day;
  const last = days[days.length - 1].day;
  const total = days.reduce((sum, d) => sum + d.created + d.updated, 0);
  const summary = `Memories written and changed per day from ${first} to ${last}: ` +
    `${plural(total, "write or change", "writes and changes")}, at most ${peak} in a day`;
  const y = (n) => top + plotH - (n / peak) * plotH;
  const node = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "activity", role: "img",
    "aria-label": summary },
    svg("title", { text: summary }),
    svg("line", { x1: left, y1: y(0), x2: width - 4, y2: y(0), class: "axis" }),
    svg("line", { x1: left, y1: top, x2: left, y2: y(0), class: "axis" }),
    svg("text", { x: left - 6, y: y(peak) + 4, class: "tick", "text-anchor": "end",
      text: String(peak) }),
    svg("text", { x: left - 6, y: y(0) + 4, class: "tick", "text-anchor": "end", text: "0" }));
  days.forEach((d, i) => {
    const x = left + i * step + step * 0.15;
    const w = step * 0.7;
    if (i === 0 || i === days.length - 1 || i === Math.floor(days.length / 2)) {
      node.append(svg("text", { x: x + w / 2, y: height - 6, class: "tick",
        "text-anchor": "middle", text: d.day.slice(5) }));
    }
    if (!d.created && !d.updated) return;
    const bar = svg("g", { class: "day", "data-day": d.day, tabindex: 0,
      "aria-label": `${d.day}: ${d.created} written, ${d.updated} changed` },
      svg("title", { text: `${d.day}: ${d.created} written, ${d.updated} changed` }));
    if (d.created) {
      bar.append(svg("rect", { class: "created", x, width: w, y: y(d.created),
        height: y(0) - y(d.created) }));
    }
    if (d.updated) {
      const base = y(d.created);
      bar.append(svg("rect", { class: "updated", x, width: w, y: base - (y(0) - y(d.updated)),
        height: y(0) - y(d.updated) }));
    }
    node.append(bar);
  });
  return node;
}

registerScreen({ name: "overview", label: "Overview", build, load: loadOverview });
