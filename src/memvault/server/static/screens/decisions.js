// Decisions: the memories that record a decision (those with a status), each with its state,
// the moves open to it (a state and a reason), every move so far, the adopted decisions it
// conflicts with (click one to see it) and its history.
import {
  $, agentOf, api, el, guarded, loading, newest, notify, pager, pagerRow, plural,
  registerScreen, section, when,
} from "../core.js";
import { historyButton } from "../history.js";

const PAGE = 20;
const MOST = 100; // the server's largest page
const loads = newest();
// model.DecisionStatus, in lifecycle order.
const STATES = ["proposed", "exploring", "pending", "adopted", "rejected", "superseded",
  "invalid"];
const view = { offset: 0 };
const paging = pager(["#decisions-prev", "#decisions-next", "#decisions-page"], view, PAGE,
  load, { showFrom: PAGE + 1 });

function build() {
  const states = el("select", { id: "decisions-state", "aria-label": "State" },
    el("option", { value: "", text: "every state" }),
    ...STATES.map((state) => el("option", { value: state, text: state })));
  return section("decisions", "Decisions",
    el("p", { class: "hint", text: "A decision moves only along its lifecycle: proposed, "
      + "exploring, pending, then adopted (or rejected); an adopted one is superseded by a "
      + "later adoption. Every move is kept with who made it and why. A decision on the same "
      + "question as an adopted one is linked to it as a conflict." }),
    el("div", { class: "row decisions-filter" }, el("label", {}, "State", states)),
    el("p", { id: "decisions-summary", class: "summary" }),
    el("ul", { id: "decisions-list", class: "entries" }),
    pagerRow("decisions"));
}

function path(entry, tail = "") {
  return `/v1/memories/${encodeURIComponent(entry.id)}${tail}`;
}


function badge(status) {
  return el("span", { class: `badge state state-${status}`, text: status });
}

const newestFirst = (a, b) => (b.created_at + b.id).localeCompare(a.created_at + a.id);

// One state: the server's page. Every state: each state's newest MOST, merged newest first.
async function fetchPage(state) {
  if (state) {
    const data = await api("GET", "/v1/memories",
      { query: { status: state, limit: PAGE, offset: view.offset } });
    return { ...data, summary: `${plural(data.total, "decision", "decisions")} ${state}` };
  }
  const pages = await Promise.all(STATES.map((status) =>
    api("GET", "/v1/memories", { query: { status, limit: MOST } })));
  const all = pages.flatMap((page) => page.items).sort(newestFirst);
  const total = pages.reduce((sum, page) => sum + page.total, 0);
  const counts = STATES.map((status, i) => [status, pages[i].total])
    .filter(([, count]) => count > 0).map(([status, count]) => `${count} ${status}`);
  const clipped = pages.some((page) => page.total > page.items.length);
  const summary = `${plural(total, "decision", "decisions")}`
    + (counts.length ? `: ${counts.join(" · ")}` : "")
    + (clipped ? ` (each state's newest ${MOST} shown: pick one in “State” to page through it)`
      : "");
  return { items: all.slice(view.offset, view.offset + PAGE), total: all.length,
    offset: view.offset, summary };
}

async function load() {
  const list = $("#decisions-list");
  const state = $("#decisions-state").value;
  const current = loads(); // a late answer for a state no longer chosen draws nothing
  loading(list);
  $("#decisions-summary").textContent = "";
  const data = await guarded(() => fetchPage(state));
  if (!current()) return;
  if (!data) {
    list.replaceChildren();
    paging.show(null);
    return;
  }
  if (!data.items.length && view.offset > 0 && data.total > 0) {
    view.offset = Math.floor((data.total - 1) / PAGE) * PAGE; // the page emptied: the last one
    await load();
    return;
  }
  $("#decisions-summary").textContent = data.summary;
  if (!data.items.length) {
    list.replaceChildren(el("li", { class: "empty", text: state ? `No decision is ${state}.`
      : "No decisions yet: a memory written with a status (proposed, adopted, …) is one." }));
    paging.show(null);
    return;
  }
  const rows = data.items.map(decisionItem);
  list.replaceChildren(...rows.map((row) => row.item));
  paging.show(data);
  await Promise.all(rows.map((row) => row.filled));
}

function decisionItem(entry) {
  const meta = [
    entry.kind,
    entry.agent_id && `agent ${entry.agent_id}`,
    `updated ${when(entry.updated_at)}`,
  ].filter(Boolean);
  const details = el("div", { class: "decision-details" },
    el("p", { class: "loading", text: "Loading its moves…" }));
  const item = el("li", { class: "entry decision", dataset: { id: entry.id } },
    badge(entry.status),
    entry.name ? el("strong", { class: "title", text: entry.name }) : null,
    el("p", { class: "content", text: entry.content }),
    el("p", { class: "meta" }, meta.join(" · "), " · ", el("code", { text: entry.id })),
    details,
    el("div", { class: "row actions" }, historyButton(entry, load)));
  return { item, filled: fillDetails(entry, details) };
}

// Not guarded(): a page of these must not clear the notice of the move that reloaded it.
async function fillDetails(entry, box) {
  let data;
  try {
    data = await api("GET", path(entry, "/decision"), { query: agentOf(entry) });
  } catch (err) {
    box.replaceChildren(el("p", { class: "empty", text: `Its moves could not be read: ${
      err.message}` }));
    return;
  }
  const parts = [moveForm(entry, data.legal_moves),
    el("h4", { text: "Moves" }),
    el("ol", { class: "moves" }, ...data.history.map(moveItem))];
  if (data.conflicts.length) {
    parts.push(el("h4", { text: "Conflicts" }),
      el("ul", { class: "conflicts" }, ...data.conflicts.map((c) => conflictItem(entry, c))));
  }
  box.replaceChildren(...parts);
}

function moveForm(entry, legal) {
  if (!legal.length) {
    return el("p", { class: "hint", text: `No move is open from ${entry.status}: it is final.` });
  }
  // Nothing chosen at first: a move is always picked, never the first one by default.
  const target = el("select", { class: "move-to", "aria-label": "Move to", required: true },
    el("option", { value: "", text: "choose a state", disabled: true, selected: true }),
    ...legal.map((state) => el("option", { value: state, text: state })));
  const reason = el("input", { class: "reason", "aria-label": "Reason", maxlength: 500,
    placeholder: "why (kept with the move)" });
  const go = el("button", { type: "submit", text: "Move" });
  const form = el("form", { class: "row move" },
    el("label", {}, "Move to", target), el("label", { class: "wide" }, "Reason", reason), go);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    go.disabled = true;
    const body = { status: target.value, reason: reason.value.trim(), ...agentOf(entry) };
    const moved = await guarded(() => api("POST", path(entry, "/decision"),
      { body, userIn: "body", fields: { status: "Move to", reason: "Reason" } }));
    go.disabled = false;
    if (!moved) return;
    await load();
    notify(`Moved to ${moved.status}; the move is kept in its list of moves.`, "ok");
  });
  return form;
}

function moveItem(move) {
  const step = move.from ? `${move.from} → ${move.to}` : `written as ${move.to}`;
  return el("li", {}, el("span", { class: "meta", text: `${when(move.at)} · ` }), step,
    el("span", { class: "meta", text: ` · by ${move.actor}` }),
    move.reason ? el("span", { class: "reason", text: ` — ${move.reason}` }) : null);
}

// A conflict is filed under both decisions: name the other one, as a link that shows it.
function conflictItem(entry, conflict) {
  const mine = conflict.decision_id === entry.id;
  const other = mine ? conflict.adopted_id : conflict.decision_id;
  const link = el("button", { type: "button", class: "link", text: other,
    "aria-expanded": "false" });
  const how = conflict.method === "llm" ? "the LLM" : "their shared words";
  const item = el("li", { class: "conflict" },
    mine ? "conflicts with adopted decision " : "decision ", link,
    mine ? "" : " conflicts with this one",
    el("span", { class: "meta", text: ` · found ${when(conflict.at)} by ${how}` }));
  let preview = null;
  link.addEventListener("click", async () => {
    if (preview) {
      preview.remove();
      preview = null;
      link.setAttribute("aria-expanded", "false");
      return;
    }
    link.disabled = true;
    const shown = await guarded(() => api("GET", `/v1/memories/${encodeURIComponent(other)}`,
      { query: agentOf(entry) }));
    link.disabled = false;
    if (!shown || preview) return;
    preview = el("div", { class: "conflict-preview", dataset: { id: shown.id } },
      shown.status ? badge(shown.status) : null,
      shown.name ? el("strong", { class: "title", text: shown.name }) : null,
      el("p", { class: "content", text: shown.content }),
      el("p", { class: "meta" }, `${shown.kind} · updated ${when(shown.updated_at)} · `,
        el("code", { text: shown.id })));
    item.append(preview);
    link.setAttribute("aria-expanded", "true");
  });
  return item;
}

function wire() {
  $("#decisions-state").addEventListener("change", () => {
    view.offset = 0;
    load();
  });
  paging.wire();
}

function reset() {
  loads(); // a load still on its way (for the previous user) draws nothing now
  view.offset = 0;
  $("#decisions-state").value = "";
  $("#decisions-list").replaceChildren();
  $("#decisions-summary").textContent = "";
  paging.show(null);
}

registerScreen({ name: "decisions", label: "Decisions", build, wire, load, reset });
