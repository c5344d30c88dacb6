// Memories: add, search, filter, sort, page, edit, delete (one or a page's selection),
// review held ones, reveal redacted ones.
import {
  $, agentOf, api, el, guarded, loading, newest, notify, pager, plural, registerScreen, when,
} from "../core.js";
import { historyButton } from "../history.js";

const PAGE = 20;
const LONG_CHARS = 400; // content longer than this, or than LONG_LINES lines, starts folded
const LONG_LINES = 6;
const LONG_METADATA = 4; // more metadata fields than this start folded
const view = { offset: 0, query: "" };
const paging = pager(["#page-prev", "#page-next", "#page-label"], view, PAGE, loadMemories);
let choices = null; // the values of kind, tier, ... as the server's enums have them
const loads = newest(); // a late answer for a search or filters left draws nothing

// The forms' labels, by the HTTP fields they fill: the server's errors name these.
const ADD_FIELDS = { content: "Content", name: "Name", kind: "Kind", mem_class: "Class",
  domain: "Domain", agent_id: "Agent" };
const LIST_FIELDS = { query: "Search", kind: "Kind", mem_class: "Class", tier: "Tier",
  domain: "Domain", agent_id: "Agent", sort: "Sort", created_after: "Created from",
  created_before: "Created to" };
const EDIT_FIELDS = { content: "Content" };

// Each <select data-choices="field"> is filled once from GET /v1/meta/enums.
async function fillChoices() {
  if (choices) return;
  choices = await api("GET", "/v1/meta/enums", { userIn: "none" });
  for (const select of document.querySelectorAll("#screen-memories select[data-choices]")) {
    const options = [];
    if (select.dataset.any) options.push(el("option", { value: "", text: select.dataset.any }));
    for (const value of choices[select.dataset.choices]) {
      const option = el("option", { value, text: value.replace(/_/g, " ") });
      option.defaultSelected = value === select.dataset.default;
      options.push(option);
    }
    select.replaceChildren(...options);
  }
}

// The date inputs' "to" day is included: the range ends at the next day's midnight (UTC).
function nextDay(date) {
  const next = new Date(`${date}T00:00:00Z`);
  next.setUTCDate(next.getUTCDate() + 1);
  return next.toISOString().slice(0, 10);
}

function filters() {
  return {
    kind: $("#filter-kind").value,
    mem_class: $("#filter-class").value,
    agent_id: $("#filter-agent").value.trim(),
    tier: $("#filter-tier").value,
    domain: $("#filter-domain").value,
  };
}

// What only the list (not search) takes: its order and the created-date range.
function listing() {
  const from = $("#filter-from").value;
  const to = $("#filter-to").value;
  return {
    sort: $("#filter-sort").value,
    created_after: from,
    created_before: to ? nextDay(to) : "",
  };
}

function datesInOrder() {
  const from = $("#filter-from").value;
  const to = $("#filter-to").value;
  if (from && to && from > to) {
    notify("“Created from” is after “Created to”: swap the dates, then press “Apply”.");
    return false;
  }
  return true;
}

async function loadMemories() {
  const list = $("#memories-list");
  if (!view.query && !datesInOrder()) return; // dates bound the list, not a search
  const current = loads();
  loading(list);
  $("#memories-summary").textContent = "";
  updateBulk();
  await guarded(async () => {
    await fillChoices();
    if (view.query) {
      const body = { query: view.query, limit: 50 };
      for (const [name, value] of Object.entries(filters())) if (value) body[name] = value;
      const data = await api("POST", "/v1/memories/search",
        { body, userIn: "body", fields: LIST_FIELDS });
      if (!current()) return;
      renderMemories(data.results.map((hit) => ({ entry: hit.entry, score: hit.score })));
      $("#memories-summary").textContent =
        `${plural(data.results.length, "result", "results")} for “${view.query}”`;
      paging.show(null);
    } else {
      // The review queue has its own route; the other filters do not apply to it.
      const held = $("#filter-held").checked;
      const data = await api("GET", held ? "/v1/quarantine" : "/v1/memories", {
        query: { ...(held ? { agent_id: filters().agent_id } : { ...filters(), ...listing() }),
          limit: PAGE, offset: view.offset },
        fields: LIST_FIELDS,
      });
      if (!current()) return;
      if (!data.items.length && view.offset > 0) { // the last page emptied: show the one before
        view.offset = Math.max(0, view.offset - PAGE);
        await loadMemories();
        return;
      }
      renderMemories(data.items.map((entry) => ({ entry })));
      $("#memories-summary").textContent = plural(data.total, "memory", "memories");
      paging.show(data);
    }
  });
  if (!current()) return; // a newer load owns the list (a page back on an emptied page, too)
  if (list.querySelector(".loading")) list.replaceChildren();
  updateBulk();
}

// The add and filter forms fold away so the list has the screen: a toggle shows one, and
// the filters' toggle counts the filters in force while folded.
function unfold(name, open) {
  const form = $(`#${name}-form`);
  form.hidden = !open;
  $(`#${name}-toggle`).setAttribute("aria-expanded", String(open));
  if (open && name === "add") $("#add-content").focus();
}

function countFilters() {
  const set = [...Object.values(filters()), $("#filter-from").value, $("#filter-to").value]
    .filter(Boolean).length + ($("#filter-held").checked ? 1 : 0);
  $("#filter-toggle").textContent = set ? `Filters (${set})` : "Filters";
}

function renderMemories(rows) {
  const list = $("#memories-list");
  countFilters();
  if (!rows.length) {
    const filtered = $("#filter-toggle").textContent !== "Filters";
    const text = view.query ? "Nothing matches that search."
      : filtered ? "No memory matches these filters."
        : "No memories yet: write one in “Content” above and press “Add”.";
    if (!view.query && !filtered) unfold("add", true); // a new user starts by adding one
    list.replaceChildren(el("li", { class: "empty", text }));
    return;
  }
  list.replaceChildren(...rows.map(({ entry, score }) => memoryItem(entry, score)));
}

function memoryItem(entry, score) {
  const meta = [
    entry.kind,
    entry.mem_class,
    entry.tier && `tier ${entry.tier}`,
    entry.domain && `domain ${entry.domain}`,
    entry.category && `category ${entry.category}`,
    entry.source_subject && `about ${entry.source_subject}`,
    entry.agent_id && `agent ${entry.agent_id}`,
    score !== undefined && `score ${score.toFixed(3)}`,
    entry.quarantine && `held for review: ${entry.quarantine}`,
    `created ${when(entry.created_at)}`,
    // Said only when it differs, so one line holds the rest.
    when(entry.updated_at) !== when(entry.created_at) && `updated ${when(entry.updated_at)}`,
  ].filter(Boolean);
  const held = Boolean(entry.quarantine);
  const badge = held ? el("span", { class: "badge quarantine", text: "Quarantined",
    title: `held back from prompts by the threat scan (${entry.quarantine}) until approved` })
    : null;
  const pick = el("input", { type: "checkbox", class: "pick",
    "aria-label": `Select “${(entry.name || entry.content).slice(0, 60)}”` });
  pick.addEventListener("change", updateBulk);
  const item = el("li", { class: held ? "entry held" : "entry",
    dataset: { id: entry.id, agent: entry.agent_id || "" } },
    pick,
    badge || entry.name ? el("div", { class: "entry-head" }, badge,
      entry.name ? el("h4", { class: "name", text: entry.name }) : null) : null,
    entry.description ? el("p", { class: "description", text: entry.description }) : null,
    ...foldable(entry),
    metadataBlock(entry.metadata),
    el("p", { class: "meta" }, meta.join(" · "), " · ", el("code", { text: entry.id })));
  const actions = el("div", { class: "row actions" });
  const edit = el("button", { type: "button", class: "quiet", text: "Edit" });
  const del = el("button", { type: "button", class: "danger", text: "Delete" });
  actions.append(edit, del, historyButton(entry, () => loadMemories()));
  if (held) actions.append(...reviewButtons(entry, item, score));
  if (entry.sensitivity && entry.sensitivity !== "normal") {
    actions.append(revealButton(entry, item));
  }
  item.append(actions);

  edit.addEventListener("click", () => {
    const area = el("textarea", { rows: 3, "aria-label": "Edit content" });
    area.value = entry.content;
    const save = el("button", { type: "button", text: "Save" });
    const cancel = el("button", { type: "button", class: "quiet", text: "Cancel" });
    const editor = el("div", { class: "stack editor" }, area, el("div", { class: "row" }, save,
      cancel));
    item.replaceChildren(editor);
    updateBulk(); // an item being edited is not selected
    area.focus();
    cancel.addEventListener("click", () => {
      item.replaceWith(memoryItem(entry, score));
      updateBulk();
    });
    save.addEventListener("click", async () => {
      save.disabled = true;
      const body = { content: area.value };
      if (entry.agent_id) body.agent_id = entry.agent_id;
      const updated = await guarded(() =>
        api("PATCH", `/v1/memories/${encodeURIComponent(entry.id)}`,
          { body, userIn: "body", fields: EDIT_FIELDS }));
      save.disabled = false;
      if (updated) {
        item.replaceWith(memoryItem(updated, score));
        updateBulk();
        notify("Memory updated.", "ok");
      }
    });
  });

  // Two clicks to delete: no native confirm() dialog.
  del.addEventListener("click", async () => {
    if (!del.classList.contains("armed")) {
      del.classList.add("armed");
      del.textContent = "Confirm delete";
      return;
    }
    del.disabled = true;
    const query = agentOf(entry);
    const done = await guarded(async () => {
      await api("DELETE", `/v1/memories/${encodeURIComponent(entry.id)}`, { query });
      return true;
    });
    if (done) {
      await loadMemories();
      notify("Memory deleted.", "ok");
    } else {
      del.disabled = false;
    }
  });
  return item;
}

// Long content starts folded, with a toggle that says which way it goes.
function foldable(entry) {
  const content = el("p", { class: "content", text: entry.content,
    id: `content-${entry.id}` });
  const long = entry.content.length > LONG_CHARS
    || entry.content.split("\n").length > LONG_LINES;
  if (!long) return [content];
  content.classList.add("folded");
  const toggle = el("button", { type: "button", class: "quiet fold", text: "Show more",
    "aria-expanded": "false", "aria-controls": content.id });
  toggle.addEventListener("click", () => {
    const open = content.classList.toggle("folded") === false;
    toggle.setAttribute("aria-expanded", String(open));
    toggle.textContent = open ? "Show less" : "Show more";
  });
  return [content, toggle];
}

// key: value pairs; many of them start folded. Values that are not text are shown as JSON.
function metadataBlock(metadata) {
  const names = Object.keys(metadata || {});
  if (!names.length) return null;
  const pairs = el("dl", { class: "pairs metadata" });
  for (const name of names) {
    const value = metadata[name];
    pairs.append(el("dt", { text: name }),
      el("dd", { text: typeof value === "string" ? value : JSON.stringify(value) }));
  }
  const block = el("details", { class: "metadata" },
    el("summary", { text: `Metadata (${plural(names.length, "field", "fields")})` }), pairs);
  block.open = names.length <= LONG_METADATA;
  return block;
}

// -- bulk selection: the checked items of the page on show ------------------------------

function picked() {
  return [...document.querySelectorAll("#memories-list li.entry")]
    .filter((item) => item.querySelector("input.pick:checked"));
}

// The selection changed (or the page did): the counts, "select all" and an armed button
// all follow it.
function updateBulk() {
  const boxes = document.querySelectorAll("#memories-list input.pick");
  const count = picked().length;
  const all = $("#select-page");
  all.checked = boxes.length > 0 && count === boxes.length;
  all.indeterminate = count > 0 && count < boxes.length;
  $("#memories-bulk").hidden = boxes.length === 0;
  const button = $("#delete-selected");
  button.classList.remove("armed");
  button.textContent = `Delete selected (${count})`;
  button.disabled = count === 0;
}

// Two clicks, as for one memory; each agent's entries go to that agent's store.
async function deleteSelected() {
  const button = $("#delete-selected");
  const items = picked();
  if (!items.length) return;
  if (!button.classList.contains("armed")) {
    button.classList.add("armed");
    button.textContent = `Confirm delete of ${plural(items.length, "memory", "memories")}`;
    return;
  }
  button.disabled = true;
  const byAgent = new Map();
  for (const item of items) {
    const agent = item.dataset.agent;
    byAgent.set(agent, [...(byAgent.get(agent) || []), item.dataset.id]);
  }
  let deleted = 0;
  let gone = 0;
  const done = await guarded(async () => {
    for (const [agent, ids] of byAgent) {
      const body = agent ? { ids, agent_id: agent } : { ids };
      const answer = await api("POST", "/v1/memories/delete", { body, userIn: "body" });
      deleted += answer.deleted.length;
      gone += answer.not_found.length;
    }
    return true;
  });
  if (!done && !deleted) {
    updateBulk(); // the error stays on show
    return;
  }
  await loadMemories();
  const note = gone ? `; ${plural(gone, "was", "were")} already gone` : "";
  if (done) notify(`Deleted ${plural(deleted, "memory", "memories")}${note}.`, "ok");
  else notify(`Deleted ${plural(deleted, "memory", "memories")}, then the server refused the `
    + "rest: select them and press “Delete selected” again.");
}

// Quarantined entries: approve (recall may show it to models again) or reject (deleted).
function reviewButtons(entry, item, score) {
  const path = `/v1/quarantine/${encodeURIComponent(entry.id)}`;
  const approve = el("button", { type: "button", text: "Approve" });
  const reject = el("button", { type: "button", class: "danger", text: "Reject" });
  approve.addEventListener("click", async () => {
    approve.disabled = true;
    const released = await guarded(() => api("POST", `${path}/approve`, { body: {},
      userIn: "body" }));
    approve.disabled = false;
    if (released) {
      item.replaceWith(memoryItem(released, score));
      notify("Memory approved: recall may show it to models again.", "ok");
    }
  });
  reject.addEventListener("click", async () => {
    reject.disabled = true;
    const done = await guarded(async () => {
      await api("POST", `${path}/reject`, { body: {}, userIn: "body" });
      return true;
    });
    if (done) {
      await loadMemories();
      notify("Memory rejected and deleted.", "ok");
    } else {
      reject.disabled = false;
    }
  });
  return [approve, reject];
}

// Redacted entries: answer the reveal challenge, then show the original once (audited).
function revealButton(entry, item) {
  const button = el("button", { type: "button", class: "quiet", text: `Reveal (${entry.sensitivity})` });
  button.addEventListener("click", () => {
    const secret = el("input", { type: "password", "aria-label": "Reveal secret",
      placeholder: "your reveal secret" });
    const go = el("button", { type: "button", text: "Show original" });
    const form = el("div", { class: "row reveal" }, secret, go);
    button.replaceWith(form);
    secret.focus();
    go.addEventListener("click", async () => {
      go.disabled = true;
      const path = `/v1/sensitive/${encodeURIComponent(entry.id)}`;
      const shown = await guarded(async () => {
        await api("POST", `${path}/authorize`, { body: { secret: secret.value }, userIn: "body",
          fields: { secret: "Reveal secret" } });
        return api("POST", `${path}/reveal`, { body: {}, userIn: "body" });
      });
      go.disabled = false;
      secret.value = "";
      if (shown) {
        form.replaceWith(el("p", { class: "content original", text: shown.content }));
        notify("Original shown; the reveal was written to the audit log.", "ok");
      }
    });
  });
  return button;
}

async function addMemory(event) {
  event.preventDefault();
  const body = { content: $("#add-content").value, kind: $("#add-kind").value,
    mem_class: $("#add-class").value };
  const name = $("#add-name").value.trim();
  const agent = $("#add-agent").value.trim();
  const domain = $("#add-domain").value;
  if (name) body.name = name;
  if (agent) body.agent_id = agent;
  if (domain) body.domain = domain;
  const button = event.submitter || $("#add-form button");
  button.disabled = true;
  const added = await guarded(() => api("POST", "/v1/memories",
    { body, userIn: "body", fields: ADD_FIELDS }));
  button.disabled = false;
  if (added) {
    $("#add-content").value = "";
    $("#add-name").value = "";
    view.query = "";
    $("#search-query").value = "";
    view.offset = 0;
    await loadMemories();
    notify(`Added memory ${added.id}.`, "ok");
  }
}

function wire() {
  for (const name of ["add", "filter"]) {
    $(`#${name}-toggle`).addEventListener("click", () => unfold(name, $(`#${name}-form`).hidden));
  }
  $("#add-form").addEventListener("submit", addMemory);
  $("#search-form").addEventListener("submit", (event) => {
    event.preventDefault();
    view.query = $("#search-query").value.trim();
    loadMemories();
  });
  $("#search-clear").addEventListener("click", () => {
    $("#search-query").value = "";
    view.query = "";
    view.offset = 0;
    loadMemories();
  });
  $("#filter-form").addEventListener("submit", (event) => {
    event.preventDefault();
    view.offset = 0;
    loadMemories();
  });
  $("#filter-held").addEventListener("change", () => {
    view.offset = 0;
    loadMemories();
  });
  $("#filter-form").addEventListener("reset", () => {
    view.offset = 0;
    setTimeout(loadMemories); // after the browser has cleared the inputs
  });
  paging.wire();
  $("#select-page").addEventListener("change", (event) => {
    for (const box of document.querySelectorAll("#memories-list input.pick")) {
      box.checked = event.target.checked;
    }
    updateBulk();
  });
  $("#delete-selected").addEventListener("click", deleteSelected);
}

// Another user's search must not linger when an admin switches who they act for.
function reset() {
  loads(); // a load still on its way (for the previous user) draws nothing now
  view.offset = 0;
  view.query = "";
  $("#search-query").value = "";
  // Not form.reset(): its "reset" listener reloads the list, and this runs on sign-out.
  for (const input of $("#filter-form").querySelectorAll("input")) {
    if (input.type === "checkbox") input.checked = false;
    else input.value = "";
  }
  for (const select of $("#filter-form").querySelectorAll("select")) {
    const initial = [...select.options].findIndex((option) => option.defaultSelected);
    select.selectedIndex = Math.max(0, initial);
  }
  unfold("add", false);
  unfold("filter", false);
  countFilters();
  $("#memories-list").replaceChildren();
  $("#memories-summary").textContent = "";
  paging.show(null);
  updateBulk();
}

registerScreen({ name: "memories", label: "Memories", load: loadMemories, wire, reset });
