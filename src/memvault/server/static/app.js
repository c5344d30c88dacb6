// The memvault panel: plain ES module, no framework, nothing fetched but this server's API.
// User content is only ever set with textContent or form values, never parsed as HTML.

const KEY = "memvault.key";
const USER = "memvault.user";
const PAGE = 20;
const DELIM = "\n§\n"; // USER.md / MEMORY.md entry delimiter (agent/files.py)

const state = { key: null, admin: false, userId: null, screen: "memories", offset: 0, query: "" };

const $ = (sel) => document.querySelector(sel);

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (name === "text") node.textContent = value;
    else if (name === "class") node.className = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (name === "dataset") Object.assign(node.dataset, value);
    else if (value !== undefined && value !== null && value !== false) {
      node.setAttribute(name, value === true ? "" : String(value));
    }
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

// "2026-11-30T00:43:02.97+00:00" -> "2026-11-30 00:43:02" (UTC, as the server stores it)
function when(iso) {
  return iso ? `${iso.slice(0, 19).replace("T", " ")} UTC` : "never";
}

function plural(count, one, many) {
  return `${count} ${count === 1 ? one : many}`;
}

class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

// -- notices ---------------------------------------------------------------------------

function notify(message, kind = "error") {
  const box = $("#notice");
  box.textContent = message;
  box.className = `notice ${kind}`;
  box.hidden = false;
}

function clearNotice() {
  $("#notice").hidden = true;
}

function showError(err) {
  if (err instanceof ApiError) notify(`${err.message} (${err.code}, HTTP ${err.status})`);
  else notify(`Could not reach the server: ${err.message}`);
}

// -- the API ---------------------------------------------------------------------------

async function api(method, path, { query = {}, body, userIn = "query" } = {}) {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== "") params.set(name, value);
  }
  if (state.admin && state.userId && userIn !== "none") {
    if (userIn === "body") body = { ...body, user_id: state.userId };
    else params.set("user_id", state.userId);
  }
  // X-Memvault-Client: what the panel writes is recorded with source "panel".
  const headers = { Authorization: `Bearer ${state.key}`, "X-Memvault-Client": "panel" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const qs = params.toString();
  const res = await fetch(qs ? `${path}?${qs}` : path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status === 204) return null;
  let data = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  if (!res.ok) {
    const detail = data && data.error ? data.error : {};
    throw new ApiError(res.status, detail.code || `http_${res.status}`,
      detail.message || res.statusText || "request failed");
  }
  return data;
}

// Run an action with the notice cleared first and errors shown; a 401 signs out.
async function guarded(action) {
  clearNotice();
  try {
    return await action();
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      signOut();
      notify(`Signed out: ${err.message}`);
    } else {
      showError(err);
    }
    return undefined;
  }
}

function loading(container) {
  container.replaceChildren(el("li", { class: "loading", text: "Loading…" }));
}

// -- sign in ---------------------------------------------------------------------------

async function signIn(key) {
  state.key = key;
  try {
    await api("GET", "/v1/keys");
    state.admin = true;
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 403) {
      state.key = null;
      throw err;
    }
    state.admin = false;
  }
  sessionStorage.setItem(KEY, key);
  if (state.admin) {
    state.userId = sessionStorage.getItem(USER);
  } else {
    state.userId = null;
    const status = await api("GET", "/api/memory/v2/status");
    state.userId = status.user_id;
  }
  renderChrome();
  route();
}

function signOut() {
  sessionStorage.removeItem(KEY);
  sessionStorage.removeItem(USER);
  Object.assign(state, { key: null, admin: false, userId: null, offset: 0, query: "" });
  $("#signin-key").value = "";
  renderChrome();
  showScreen("signin");
}

function renderChrome() {
  const signedIn = Boolean(state.key);
  $("#nav").hidden = !signedIn;
  $("#who").hidden = !signedIn;
  $("#act-as").hidden = !state.admin;
  $("#nav-keys").hidden = !state.admin;
  if (!signedIn) return;
  if (state.admin) {
    $("#who-label").textContent = state.userId ? `admin, acting as ${state.userId}` : "admin";
    $("#act-as-user").value = state.userId || "";
  } else {
    $("#who-label").textContent = `signed in as ${state.userId}`;
  }
}

// -- screens ---------------------------------------------------------------------------

const SCREENS = ["memories", "files", "config", "status", "audit", "keys"];

function showScreen(name) {
  for (const section of document.querySelectorAll(".screen")) {
    section.hidden = section.id !== `screen-${name}`;
  }
  for (const link of document.querySelectorAll("#nav a")) {
    link.classList.toggle("active", link.dataset.screen === name);
  }
}

function route() {
  if (!state.key) {
    showScreen("signin");
    return;
  }
  const wanted = location.hash.replace("#", "");
  state.screen = SCREENS.includes(wanted) ? wanted : "memories";
  if (state.screen === "keys" && !state.admin) state.screen = "memories";
  showScreen(state.screen);
  if (state.screen === "keys") {
    clearNotice();
    loadKeys();
    return;
  }
  if (state.admin && !state.userId) {
    notify("Enter the user id to act for (admin key).", "info");
    return;
  }
  clearNotice();
  const loaders = {
    memories: loadMemories,
    files: loadFiles,
    config: loadConfig,
    status: loadStatus,
    audit: loadAudit,
  };
  loaders[state.screen]();
}

// -- memories --------------------------------------------------------------------------

function filters() {
  return {
    kind: $("#filter-kind").value.trim(),
    agent_id: $("#filter-agent").value.trim(),
    tier: $("#filter-tier").value.trim(),
    domain: $("#filter-domain").value.trim(),
  };
}

async function loadMemories() {
  const list = $("#memories-list");
  loading(list);
  $("#memories-summary").textContent = "";
  await guarded(async () => {
    if (state.query) {
      const body = { query: state.query, limit: 50 };
      for (const [name, value] of Object.entries(filters())) if (value) body[name] = value;
      const data = await api("POST", "/v1/memories/search", { body, userIn: "body" });
      renderMemories(data.results.map((hit) => ({ entry: hit.entry, score: hit.score })));
      $("#memories-summary").textContent =
        `${plural(data.results.length, "result", "results")} for “${state.query}”`;
      setPager(null);
    } else {
      // The review queue has its own route; the other filters do not apply to it.
      const held = $("#filter-held").checked;
      const data = await api("GET", held ? "/v1/quarantine" : "/v1/memories", {
        query: { ...(held ? { agent_id: filters().agent_id } : filters()), limit: PAGE,
          offset: state.offset },
      });
      renderMemories(data.items.map((entry) => ({ entry })));
      $("#memories-summary").textContent = plural(data.total, "memory", "memories");
      setPager(data);
    }
  });
  if (list.querySelector(".loading")) list.replaceChildren();
}

function setPager(page) {
  const prev = $("#page-prev");
  const next = $("#page-next");
  if (!page || page.total === 0) {
    prev.hidden = next.hidden = true;
    $("#page-label").textContent = "";
    return;
  }
  prev.hidden = next.hidden = false;
  prev.disabled = page.offset === 0;
  next.disabled = page.offset + page.items.length >= page.total;
  const first = page.items.length ? page.offset + 1 : 0;
  $("#page-label").textContent = `${first}–${page.offset + page.items.length} of ${page.total}`;
}

function renderMemories(rows) {
  const list = $("#memories-list");
  if (!rows.length) {
    const text = state.query ? "Nothing matches that search." : "No memories yet: add one above.";
    list.replaceChildren(el("li", { class: "empty", text }));
    return;
  }
  list.replaceChildren(...rows.map(({ entry, score }) => memoryItem(entry, score)));
}

function memoryItem(entry, score) {
  const meta = [
    entry.kind,
    entry.tier && `tier ${entry.tier}`,
    entry.domain && `domain ${entry.domain}`,
    entry.agent_id && `agent ${entry.agent_id}`,
    score !== undefined && `score ${score.toFixed(3)}`,
    entry.quarantine && `held for review: ${entry.quarantine}`,
    `updated ${when(entry.updated_at)}`,
  ].filter(Boolean);
  const content = el("p", { class: "content", text: entry.content });
  const held = Boolean(entry.quarantine);
  const badge = held ? el("span", { class: "badge quarantine", text: "Quarantined",
    title: `held back from prompts by the threat scan (${entry.quarantine}) until approved` })
    : null;
  const item = el("li", { class: held ? "entry held" : "entry", dataset: { id: entry.id } },
    badge,
    content,
    el("p", { class: "meta" }, meta.join(" · "), " · ", el("code", { text: entry.id })));
  const actions = el("div", { class: "row actions" });
  const edit = el("button", { type: "button", class: "quiet", text: "Edit" });
  const del = el("button", { type: "button", class: "danger", text: "Delete" });
  actions.append(edit, del);
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
    area.focus();
    cancel.addEventListener("click", () => item.replaceWith(memoryItem(entry, score)));
    save.addEventListener("click", async () => {
      save.disabled = true;
      const body = { content: area.value };
      if (entry.agent_id) body.agent_id = entry.agent_id;
      const updated = await guarded(() =>
        api("PATCH", `/v1/memories/${encodeURIComponent(entry.id)}`, { body, userIn: "body" }));
      save.disabled = false;
      if (updated) {
        item.replaceWith(memoryItem(updated, score));
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
    const query = entry.agent_id ? { agent_id: entry.agent_id } : {};
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
        await api("POST", `${path}/authorize`, { body: { secret: secret.value }, userIn: "body" });
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
  const body = { content: $("#add-content").value };
  const kind = $("#add-kind").value.trim();
  const agent = $("#add-agent").value.trim();
  const domain = $("#add-domain").value.trim();
  if (kind) body.kind = kind;
  if (agent) body.agent_id = agent;
  if (domain) body.domain = domain;
  const button = event.submitter || $("#add-form button");
  button.disabled = true;
  const added = await guarded(() => api("POST", "/v1/memories", { body, userIn: "body" }));
  button.disabled = false;
  if (added) {
    $("#add-content").value = "";
    state.query = "";
    $("#search-query").value = "";
    state.offset = 0;
    await loadMemories();
    notify(`Added memory ${added.id}.`, "ok");
  }
}

// -- USER.md / MEMORY.md ---------------------------------------------------------------

const FILES = [
  { target: "user", title: "USER.md", field: "user_md", hint: "who the user is" },
  { target: "memory", title: "MEMORY.md", field: "memory_md", hint: "what the agent learned" },
];

function usageBar(usage, label) {
  const percent = Math.min(100, Math.round((usage.chars / Math.max(usage.limit, 1)) * 100));
  const level = percent >= 90 ? "high" : percent >= 70 ? "mid" : "low";
  const fill = el("div", { class: `fill ${level}` });
  fill.style.width = `${percent}%`;
  return el("div", { class: "usage" },
    el("div", {
      class: "track", role: "progressbar", "aria-label": `${label} usage`,
      "aria-valuemin": 0, "aria-valuemax": usage.limit, "aria-valuenow": usage.chars,
    }, fill),
    el("span", { class: "meta", text:
      `${usage.chars} / ${usage.limit} characters (${percent}%) · ${plural(usage.count, "entry",
        "entries")}` }));
}

function splitEntries(text) {
  return text ? text.split(DELIM) : [];
}

async function loadFiles() {
  const box = $("#files");
  box.replaceChildren(el("p", { class: "loading", text: "Loading…" }));
  const data = await guarded(() => api("GET", "/api/memory/v2"));
  if (!data) {
    box.replaceChildren();
    return;
  }
  box.replaceChildren(...FILES.map((file) =>
    filePanel(file, splitEntries(data[file.field]), data.char_usage[file.target],
      data.last_modified[file.target])));
}

function filePanel(file, entries, usage, modified) {
  const panel = el("div", { class: "card stack file", id: `file-${file.target}` },
    el("h3", { text: file.title }),
    el("p", { class: "hint", text: `${file.hint}; last changed ${when(modified)}` }),
    usageBar(usage, file.title));
  const list = el("ol", { class: "entries" });
  if (!entries.length) list.append(el("li", { class: "empty", text: `${file.title} is empty.` }));
  entries.forEach((text, idx) => list.append(fileEntry(file, text, idx)));
  const area = el("textarea", { rows: 2, "aria-label": `New ${file.title} entry`, required: true });
  const form = el("form", { class: "stack" }, area,
    el("button", { type: "submit", text: `Add to ${file.title}` }));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = { target: file.target, content: area.value };
    const done = await guarded(() => api("POST", "/api/memory/v2/entries", { body }));
    if (done) {
      await loadFiles();
      notify(`Added to ${file.title}.`, "ok");
    }
  });
  panel.append(list, form);
  return panel;
}

function fileEntry(file, text, idx) {
  const item = el("li", { class: "entry" }, el("p", { class: "content", text }));
  const edit = el("button", { type: "button", class: "quiet", text: "Replace" });
  const remove = el("button", { type: "button", class: "danger", text: "Remove" });
  item.append(el("div", { class: "row actions" }, edit, remove));
  const path = `/api/memory/v2/entries/${file.target}/${idx}`;
  edit.addEventListener("click", () => {
    const area = el("textarea", { rows: 2, "aria-label": `Replace ${file.title} entry` });
    area.value = text;
    const save = el("button", { type: "button", text: "Save" });
    const cancel = el("button", { type: "button", class: "quiet", text: "Cancel" });
    item.replaceChildren(area, el("div", { class: "row" }, save, cancel));
    cancel.addEventListener("click", () => item.replaceWith(fileEntry(file, text, idx)));
    save.addEventListener("click", async () => {
      const body = { content: area.value, expected: text };
      const done = await guarded(() => api("PUT", path, { body }));
      if (done) {
        await loadFiles();
        notify(`Replaced an entry of ${file.title}.`, "ok");
      }
    });
  });
  remove.addEventListener("click", async () => {
    if (!remove.classList.contains("armed")) {
      remove.classList.add("armed");
      remove.textContent = "Confirm remove";
      return;
    }
    const done = await guarded(() => api("DELETE", path, { query: { expected: text } }));
    if (done) {
      await loadFiles();
      notify(`Removed an entry of ${file.title}.`, "ok");
    }
  });
  return item;
}

// -- config ----------------------------------------------------------------------------

let configFields = {};

async function loadConfig() {
  const body = $("#config-table tbody");
  body.replaceChildren(el("tr", {}, el("td", { colspan: 4, class: "loading", text: "Loading…" })));
  const data = await guarded(() => api("GET", "/api/memory/v2/config"));
  if (!data) {
    body.replaceChildren();
    return;
  }
  renderConfig(data);
}

function renderConfig(data) {
  configFields = data.fields;
  const rows = Object.entries(data.fields).map(([name, field]) => {
    let control;
    if (!field.user_writable) {
      control = el("span", { class: "readonly", text: JSON.stringify(field.value) });
    } else if (typeof field.value === "boolean") {
      control = el("input", { type: "checkbox", name, "aria-label": name });
      control.checked = field.value;
    } else if (typeof field.value === "number") {
      control = el("input", { type: "number", name, "aria-label": name });
      control.value = String(field.value);
    } else {
      control = el("input", { type: "text", name, "aria-label": name });
      control.value = field.value ?? "";
    }
    let reset = null;
    if (field.user_writable && field.source === "user") {
      reset = el("button", { type: "button", class: "quiet", text: "Reset" });
      reset.addEventListener("click", async () => {
        const fresh = await guarded(() =>
          api("DELETE", `/api/memory/v2/config/${encodeURIComponent(name)}`));
        if (fresh) {
          renderConfig(fresh);
          notify(`${name} is back to its inherited value.`, "ok");
        }
      });
    }
    return el("tr", { class: field.user_writable ? "writable" : "fixed", dataset: { field: name } },
      el("th", { scope: "row" }, el("code", { text: name })),
      el("td", {}, control),
      el("td", {}, el("span", { class: `source ${field.source}`, text: field.source })),
      el("td", {}, reset));
  });
  $("#config-table tbody").replaceChildren(...rows);
}

async function saveConfig(event) {
  event.preventDefault();
  const changes = {};
  for (const input of document.querySelectorAll("#config-table input[name]")) {
    const old = configFields[input.name].value;
    let value;
    if (input.type === "checkbox") value = input.checked;
    else if (input.type === "number") value = Number(input.value);
    else value = input.value;
    if (value !== old) changes[input.name] = value;
  }
  if (!Object.keys(changes).length) {
    notify("Nothing changed.", "info");
    return;
  }
  const fresh = await guarded(() => api("PATCH", "/api/memory/v2/config", { body: changes }));
  if (fresh) {
    renderConfig(fresh);
    notify(`Saved ${Object.keys(changes).join(", ")}.`, "ok");
  }
}

// -- status ----------------------------------------------------------------------------

async function loadStatus() {
  const box = $("#status");
  box.replaceChildren(el("p", { class: "loading", text: "Loading…" }));
  const data = await guarded(() => api("GET", "/api/memory/v2/status"));
  if (!data) {
    box.replaceChildren();
    return;
  }
  const ext = data.external;
  const pairs = [
    ["User", data.user_id],
    ["Built-in memory", data.builtin_enabled ? "enabled" : "disabled"],
    ["Prompt injection", data.injection_enabled ? "enabled" : "disabled"],
    ["Memory mode", data.memory_mode],
    ["External provider", `${ext.provider} (${ext.connected ? "connected" : "not connected"})`],
    ["Bank", ext.bank],
    ["Work bank", ext.work_bank ?? "—"],
    ["Entries in its banks", ext.entries ?? "—"],
    ["Last recall hits", ext.last_recall_hits ?? "—"],
    ["Prompt snapshot taken", data.snapshot_taken_at ? when(data.snapshot_taken_at) : "not yet"],
  ];
  if (ext.error) pairs.push(["External error", ext.error]);
  const list = el("dl", { class: "card pairs" });
  for (const [term, value] of pairs) {
    list.append(el("dt", { text: term }), el("dd", { text: String(value) }));
  }
  box.replaceChildren(list, el("div", { class: "card stack" },
    el("h3", { text: "USER.md" }), usageBar(data.char_usage.user, "USER.md"),
    el("h3", { text: "MEMORY.md" }), usageBar(data.char_usage.memory, "MEMORY.md")));
}

// -- audit -----------------------------------------------------------------------------

async function loadAudit() {
  const body = $("#audit-table tbody");
  $("#audit-empty").hidden = true;
  body.replaceChildren(el("tr", {}, el("td", { colspan: 6, class: "loading", text: "Loading…" })));
  const data = await guarded(() => api("GET", "/v1/sensitive/audit", { query: { limit: 100 } }));
  if (!data) {
    body.replaceChildren();
    return;
  }
  body.replaceChildren(...data.items.map((item) => el("tr", {},
    ...[item.seq, item.at, item.entry_id, item.actor, item.action, item.outcome].map((value) =>
      el("td", { text: String(value ?? "") })))));
  $("#audit-empty").hidden = data.items.length > 0;
}

// -- keys (admin) ----------------------------------------------------------------------

async function loadKeys() {
  const body = $("#keys-table tbody");
  body.replaceChildren(el("tr", {}, el("td", { colspan: 6, class: "loading", text: "Loading…" })));
  const data = await guarded(() => api("GET", "/v1/keys", { userIn: "none" }));
  if (!data) {
    body.replaceChildren();
    return;
  }
  body.replaceChildren(...data.keys.map((info) => el("tr", { dataset: { key: info.id } },
    el("td", {}, el("code", { text: info.id })),
    el("td", { text: info.admin ? "(admin)" : info.user_id }),
    el("td", { text: info.label }),
    el("td", { text: when(info.created_at) }),
    el("td", { text: info.revoked ? "revoked" : "active" }),
    el("td", {}, info.revoked ? null : el("button", {
      type: "button",
      class: "quiet",
      text: "Revoke",
      onclick: () => revokeKey(info),
    })))));
}

async function createKey(event) {
  event.preventDefault();
  const user = $("#key-user").value.trim();
  const body = { user_id: user || null, label: $("#key-label").value.trim() };
  const data = await guarded(() => api("POST", "/v1/keys", { body, userIn: "none" }));
  if (!data) return;
  $("#key-secret").textContent = data.key;
  $("#key-new").hidden = false;
  $("#key-form").reset();
  notify(`Created key ${data.info.id} for ${data.info.admin ? "an admin" : data.info.user_id}.`,
    "info");
  await loadKeys();
}

async function revokeKey(info) {
  const who = info.admin ? "this admin key" : `the key of ${info.user_id}`;
  if (!window.confirm(`Revoke ${who} (${info.id})? Clients using it stop working.`)) return;
  const done = await guarded(async () => {
    await api("DELETE", `/v1/keys/${encodeURIComponent(info.id)}`, { userIn: "none" });
    return true;
  });
  if (!done) return;
  notify(`Revoked key ${info.id}.`, "info");
  await loadKeys();
}

// -- wiring ----------------------------------------------------------------------------

function wire() {
  $("#signin-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    clearNotice();
    const key = $("#signin-key").value.trim();
    try {
      await signIn(key);
    } catch (err) {
      showError(err);
    }
  });
  $("#sign-out").addEventListener("click", () => {
    signOut();
    notify("Signed out.", "info");
  });
  $("#act-as").addEventListener("submit", (event) => {
    event.preventDefault();
    state.userId = $("#act-as-user").value.trim() || null;
    if (state.userId) sessionStorage.setItem(USER, state.userId);
    else sessionStorage.removeItem(USER);
    state.offset = 0;
    renderChrome();
    route();
  });
  $("#add-form").addEventListener("submit", addMemory);
  $("#search-form").addEventListener("submit", (event) => {
    event.preventDefault();
    state.query = $("#search-query").value.trim();
    loadMemories();
  });
  $("#search-clear").addEventListener("click", () => {
    $("#search-query").value = "";
    state.query = "";
    state.offset = 0;
    loadMemories();
  });
  $("#filter-form").addEventListener("submit", (event) => {
    event.preventDefault();
    state.offset = 0;
    loadMemories();
  });
  $("#filter-held").addEventListener("change", () => {
    state.offset = 0;
    loadMemories();
  });
  $("#filter-form").addEventListener("reset", () => {
    state.offset = 0;
    setTimeout(loadMemories); // after the browser has cleared the inputs
  });
  $("#page-prev").addEventListener("click", () => {
    state.offset = Math.max(0, state.offset - PAGE);
    loadMemories();
  });
  $("#page-next").addEventListener("click", () => {
    state.offset += PAGE;
    loadMemories();
  });
  $("#config-form").addEventListener("submit", saveConfig);
  $("#key-form").addEventListener("submit", createKey);
  window.addEventListener("hashchange", route);
}

async function start() {
  wire();
  const saved = sessionStorage.getItem(KEY);
  if (!saved) {
    signOut();
    return;
  }
  try {
    await signIn(saved);
  } catch (err) {
    signOut();
    showError(err);
  }
}

start();
