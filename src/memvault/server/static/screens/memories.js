// Memories: add, search, filter, page, edit, delete, review held ones, reveal redacted ones.
import { $, api, el, guarded, loading, notify, plural, registerScreen, when } from "../core.js";
import { historyButton } from "../history.js";

const PAGE = 20;
const view = { offset: 0, query: "" };

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
    if (view.query) {
      const body = { query: view.query, limit: 50 };
      for (const [name, value] of Object.entries(filters())) if (value) body[name] = value;
      const data = await api("POST", "/v1/memories/search", { body, userIn: "body" });
      renderMemories(data.results.map((hit) => ({ entry: hit.entry, score: hit.score })));
      $("#memories-summary").textContent =
        `${plural(data.results.length, "result", "results")} for “${view.query}”`;
      setPager(null);
    } else {
      // The review queue has its own route; the other filters do not apply to it.
      const held = $("#filter-held").checked;
      const data = await api("GET", held ? "/v1/quarantine" : "/v1/memories", {
        query: { ...(held ? { agent_id: filters().agent_id } : filters()), limit: PAGE,
          offset: view.offset },
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
    const text = view.query ? "Nothing matches that search." : "No memories yet: add one above.";
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
    view.query = "";
    $("#search-query").value = "";
    view.offset = 0;
    await loadMemories();
    notify(`Added memory ${added.id}.`, "ok");
  }
}

function wire() {
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
  $("#page-prev").addEventListener("click", () => {
    view.offset = Math.max(0, view.offset - PAGE);
    loadMemories();
  });
  $("#page-next").addEventListener("click", () => {
    view.offset += PAGE;
    loadMemories();
  });
}

// Another user's search must not linger when an admin switches who they act for.
function reset() {
  view.offset = 0;
  view.query = "";
  $("#search-query").value = "";
  // Not form.reset(): its "reset" listener reloads the list, and this runs on sign-out.
  for (const input of $("#filter-form").querySelectorAll("input")) {
    if (input.type === "checkbox") input.checked = false;
    else input.value = "";
  }
  $("#memories-list").replaceChildren();
  $("#memories-summary").textContent = "";
}

registerScreen({ name: "memories", label: "Memories", load: loadMemories, wire, reset });
