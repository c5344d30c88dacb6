// Playground: a query typed as the agent would send it, and what the agent gets back —
// the exact block (POST /v1/memories/context, Vault.context) beside the trace of the same
// search (POST /v1/memories/explain, Vault.explain): the relevance gate's reading, the
// budget, and why each memory ranked where it did, channel by channel. The panel computes
// nothing itself: every number on this screen is the library's.
import { $, api, el, guarded, plural, registerScreen, section } from "../core.js";

const FIELDS = { query: "Query", agent_id: "Agent", max_tokens: "Budget", limit: "Memories judged" };
const view = { answer: null, trace: null, order: "final" };

function build() {
  return section("playground", "Playground",
    el("p", { class: "hint", text: "Type a message as the agent would receive it: below is the " +
      "exact block memvault adds to the agent's prompt for it, the relevance gate's decision, " +
      "the token budget, and why each memory ranked where it did in each search channel." }),
    el("form", { id: "pg-form", class: "card stack" },
      el("label", {}, "Query",
        el("input", { id: "pg-query", type: "search", autocomplete: "off", required: true,
          placeholder: "e.g. which database do we use?" })),
      el("div", { class: "row" },
        el("label", {}, "Agent", el("input", { id: "pg-agent", autocomplete: "off",
          placeholder: "(shared)" })),
        el("label", {}, "Budget", el("input", { id: "pg-budget", type: "number", min: 16,
          placeholder: "default tokens" })),
        el("label", {}, "Memories judged", el("input", { id: "pg-limit", type: "number", min: 1,
          max: 100, placeholder: "default" }))),
      el("div", { class: "row" },
        el("button", { type: "submit", text: "Show what the agent gets" }))),
    el("div", { id: "pg-result", hidden: true },
      el("p", { id: "pg-decision", class: "decision" }),
      el("div", { class: "grid2" },
        el("div", { class: "card stack" },
          el("h3", { text: "The block in the agent's prompt" }),
          el("p", { id: "pg-budget-line", class: "meta" }),
          el("pre", { id: "pg-block", class: "block" })),
        el("div", { class: "card stack" },
          el("h3", { text: "Relevance gate" }),
          el("dl", { id: "pg-gate", class: "pairs" }),
          el("h3", { text: "Channels" }),
          el("ul", { id: "pg-channels", class: "plain" }))),
      el("div", { class: "card stack" },
        el("div", { class: "row" },
          el("h3", { text: "Each memory and why" }),
          el("label", {}, "Rank by", el("select", { id: "pg-order" },
            el("option", { value: "final", text: "final order" })))),
        el("div", { class: "table-wrap" }, el("table", { id: "pg-hits" },
          el("thead"), el("tbody"))))));
}

// -- reading the trace -------------------------------------------------------------------

const USE = {
  injected: "in the block",
  placeholder: "in the block as a placeholder (held for review)",
  held: "left out: held for review",
  "not relevant": "left out: not relevant",
  withheld: "left out by the block's screen",
};

function num(value, digits = 3) {
  return value === null || value === undefined ? "—" : Number(value).toFixed(digits);
}

// Letters and digits only, entities dropped: a memory's text as it reads in the block
// once angle brackets and fence look-alikes were escaped.
const plain = (text) => text.replace(/&[a-z]+;/gi, "").replace(/[^\p{L}\p{N}]+/gu, "");

function inBlockText(content, block) {
  if (block.includes(content)) return true;
  return /[<>&]|memory-context/i.test(content) && plain(block).includes(plain(content));
}

// What context() did with a candidate, the budget included: an injected memory the
// packing dropped is not in the block.
function use(candidate, block) {
  if (!candidate.returned) return "not judged: beyond the limit";
  if (candidate.context === "injected" && !inBlockText(candidate.entry.content, block)) {
    return "left out: over the budget";
  }
  return USE[candidate.context] || candidate.context;
}

function reasons(candidate, trace) {
  const parts = [];
  const found = trace.channels.filter((name) => candidate.channels[name]);
  parts.push(found.length
    ? `found by ${found.map((name) => `${name} #${candidate.channels[name].rank}`).join(", ")}`
    : "found by no channel");
  if (candidate.evidence === "keyword") parts.push("relevant: a word of its own text matches");
  else if (candidate.evidence === "meaning") {
    parts.push("relevant by meaning: close to the best match");
  } else if (candidate.returned) parts.push("not relevant: no word matches and too far in meaning");
  const b = candidate.boosts;
  const boosts = Object.entries(b).filter(([, f]) => Math.abs(f - 1) > 0.0005)
    .map(([name, f]) => `${name} ×${num(f)}`);
  if (boosts.length) parts.push(boosts.join(", "));
  if (candidate.quarantine) parts.push("held for review");
  return parts.join("; ");
}

function gatePairs(gate, limit) {
  if (!gate) return [["Judged by", "—"]];
  if (!gate.by_meaning) {
    return [
      ["Judged by", "keywords only"],
      ["Rule", "a memory goes in when a word of its own text matches the query"],
      ["Memories judged", String(limit)],
    ];
  }
  const s = gate.settings || {};
  return [
    ["Judged by", "meaning and keywords"],
    ["Best similarity", num(gate.best)],
    ["Everyday-request similarity", num(gate.background)],
    ["Margin", `${num(gate.margin)} (needs ≥ ${num(s.margin, 2)})`],
    ["Band", `within ${num(s.band, 2)} of the best, at least ${num(s.min_similarity, 2)}`],
    ["Memories judged", String(limit)],
  ];
}

// -- drawing -----------------------------------------------------------------------------

function render() {
  const { answer, trace } = view;
  const block = answer.context;
  const judged = trace.candidates.filter((c) => c.returned);
  const inBlock = judged.filter((c) => use(c, block).startsWith("in the block"));
  const relevant = judged.some((c) => c.context === "injected" || c.context === "placeholder");
  $("#pg-decision").textContent = block
    ? `The agent gets ${plural(inBlock.length, "memory", "memories")} for this query.`
    : relevant
      ? `Nothing fits the budget of ${answer.max_tokens} tokens: the agent gets no memory ` +
        "block for this query."
      : "Nothing relevant: the agent gets no memory block for this query.";
  $("#pg-decision").className = `decision ${block ? "ok" : "none"}`;
  $("#pg-budget-line").textContent =
    `Budget: ${answer.tokens} of ${answer.max_tokens} tokens used`;
  $("#pg-block").textContent = block || "(empty: nothing is added to the prompt)";

  const gate = $("#pg-gate");
  gate.replaceChildren();
  for (const [term, value] of gatePairs(trace.gate, answer.limit)) {
    gate.append(el("dt", { text: term }), el("dd", { text: value }));
  }

  $("#pg-channels").replaceChildren(...trace.channels.map((name) => {
    const found = trace.candidates.filter((c) => c.channels[name]);
    const first = found.find((c) => c.channels[name].rank === 1);
    const kept = inBlock.filter((c) => c.channels[name]).length;
    return el("li", { dataset: { channel: name } }, el("strong", { text: name }),
      ` found ${plural(found.length, "memory", "memories")}, ${kept} of them in the block` +
      (first ? `; its first: “${first.entry.content.slice(0, 60)}”` : ""));
  }));
  const order = $("#pg-order");
  if (order.options.length !== trace.channels.length + 1) {
    order.replaceChildren(el("option", { value: "final", text: "final order" }),
      ...trace.channels.map((name) => el("option", { value: name, text: `${name} alone` })));
  }
  order.value = trace.channels.includes(view.order) ? view.order : "final";
  renderTable();
}

function renderTable() {
  const { answer, trace } = view;
  const by = $("#pg-order").value;
  let rows = trace.candidates.slice(0, Math.max(answer.limit, 1) * 2);
  if (by !== "final") {
    rows = trace.candidates.filter((c) => c.channels[by])
      .sort((a, b) => a.channels[by].rank - b.channels[by].rank);
  }
  $("#pg-hits thead").replaceChildren(el("tr", {},
    ...["#", "Memory", ...trace.channels, "Score", "In the prompt", "Why"].map((name) =>
      el("th", { text: name }))));
  const body = $("#pg-hits tbody");
  if (!rows.length) {
    body.replaceChildren(el("tr", {}, el("td", { colspan: trace.channels.length + 5,
      class: "empty", text: "No memory matched this query in any channel." })));
    return;
  }
  body.replaceChildren(...rows.map((c) => {
    const where = use(c, answer.context);
    return el("tr", { class: where.startsWith("in the block") ? "kept" : "dropped",
      dataset: { id: c.id } },
    el("td", { text: String(c.rank) }),
    el("td", { class: "content", text: c.entry.content }),
    ...trace.channels.map((name) => el("td", { class: "num", text: c.channels[name]
      ? `#${c.channels[name].rank} · ${num(c.channels[name].score)}` : "—" })),
    el("td", { class: "num", text: num(c.score) }),
    el("td", { class: "use", text: where }),
    el("td", { class: "why", text: reasons(c, trace) }));
  }));
}

// -- asking ------------------------------------------------------------------------------

async function ask(event) {
  event.preventDefault();
  const query = $("#pg-query").value.trim();
  if (!query) return;
  const body = { query };
  const agent = $("#pg-agent").value.trim();
  const budget = $("#pg-budget").value;
  const limit = $("#pg-limit").value;
  if (agent) body.agent_id = agent;
  if (limit) body.limit = Number(limit);
  const done = await guarded(async () => {
    const answer = await api("POST", "/v1/memories/context", {
      body: budget ? { ...body, max_tokens: Number(budget) } : body, userIn: "body",
      fields: FIELDS,
    });
    // The trace of the same search, with the limit the gate judged.
    const trace = await api("POST", "/v1/memories/explain", {
      body: { ...body, limit: answer.limit }, userIn: "body", fields: FIELDS,
    });
    return { answer, trace };
  });
  if (!done) return;
  Object.assign(view, done);
  $("#pg-result").hidden = false;
  render();
}

function wire() {
  $("#pg-form").addEventListener("submit", ask);
  $("#pg-order").addEventListener("change", () => {
    view.order = $("#pg-order").value;
    renderTable();
  });
}

function load() {
  $("#pg-query").focus();
}

function reset() {
  Object.assign(view, { answer: null, trace: null, order: "final" });
  $("#pg-query").value = "";
  $("#pg-result").hidden = true;
}

registerScreen({ name: "playground", label: "Playground", build, wire, load, reset });
