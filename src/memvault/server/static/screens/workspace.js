// Workspace: a conversation's state card (edit, revisions, delete) and a workspace's task
// board (add, move by button or by dragging between columns, reassign, delete).
import {
  $, api, armed, el, guarded, loading, notify, plural, registerScreen, section, when,
} from "../core.js";

const COLUMNS = [
  ["todo", "To do"],
  ["doing", "Doing"],
  ["blocked", "Blocked"],
  ["done", "Done"],
];
const LABEL = Object.fromEntries(COLUMNS);
const DRAG_TYPE = "application/x-memvault-task";

// The forms' labels, by the HTTP fields they fill: the server's errors name these.
const OPEN_FIELDS = { session_id: "Conversation", workspace_id: "Workspace" };
const CARD_FIELDS = { session_id: "Conversation",
  workspace_id: "Workspace (ties this conversation to one)", goal: "Goal",
  progress: "Progress", decisions: "Decisions (one a line)",
  open_questions: "Open questions (one a line)", next_step: "Next step",
  "fields (a name)": "Field name", fields: "Field value" }; // the server's words for both
const TASK_FIELDS = { workspace_id: "Workspace", session_id: "Conversation", title: "Task",
  notes: "Notes", status: "Column" };

// What is open: a conversation's card and a workspace's board (either may be null).
const view = { session: null, workspace: null, card: null, sessions: [] };

function build() {
  return section("workspace", "Workspace",
    el("p", { class: "hint", text: "Each conversation (session id) has a state card: where it "
      + "stands. Each workspace has a task board; every task belongs to one conversation of "
      + "that workspace." }),
    el("div", { class: "grid2" },
      el("form", { id: "ws-open-card", class: "card row" },
        el("label", {}, "Conversation",
          el("input", { id: "ws-session", list: "ws-session-ids", autocomplete: "off",
            required: true, maxlength: 128, placeholder: "chat-1" })),
        el("button", { type: "submit", text: "Open card" })),
      el("form", { id: "ws-open-board", class: "card row" },
        el("label", {}, "Workspace",
          el("input", { id: "ws-workspace", list: "ws-workspace-ids", autocomplete: "off",
            required: true, maxlength: 128, placeholder: "compiler" })),
        el("button", { type: "submit", text: "Show board" }))),
    el("datalist", { id: "ws-session-ids" }),
    el("datalist", { id: "ws-workspace-ids" }),
    el("div", { class: "ws-known" },
      el("h3", { text: "Your conversations" }),
      el("ul", { id: "ws-sessions", class: "ws-chips" })),
    el("div", { id: "ws-card-area", class: "grid2", hidden: true },
      el("div", { id: "ws-card", class: "card stack" }),
      el("div", { class: "card stack" },
        el("h3", { text: "Revisions" }),
        el("ol", { id: "ws-revisions", class: "ws-revisions" }))),
    el("div", { id: "ws-board-area", class: "stack", hidden: true },
      el("h3", { id: "ws-board-title" }),
      el("form", { id: "ws-task-form", class: "card row" },
        el("label", { class: "wide" }, "Task",
          el("input", { id: "ws-task-title", required: true, maxlength: 300,
            autocomplete: "off" })),
        el("label", {}, "Conversation",
          el("input", { id: "ws-task-session", list: "ws-session-ids", required: true,
            maxlength: 128, autocomplete: "off" })),
        el("label", {}, "Notes", el("input", { id: "ws-task-notes", autocomplete: "off" })),
        el("label", {}, "Column", statusSelect("ws-task-status", "todo")),
        el("button", { type: "submit", text: "Add task" })),
      el("div", { id: "ws-board", class: "ws-board" })));
}

function statusSelect(id, value) {
  const select = el("select", { id },
    ...COLUMNS.map(([status, label]) => el("option", { value: status, text: label })));
  select.value = value;
  return select;
}

// -- the conversations the user has ---------------------------------------------------------

async function loadSessions() {
  const data = await guarded(() => api("GET", "/v1/cards"));
  if (!data) return;
  view.sessions = data.sessions;
  const list = $("#ws-sessions");
  if (!data.sessions.length) {
    list.replaceChildren(el("li", { class: "empty",
      text: "None yet: type an id in “Conversation” and press “Open card”, or add a task on "
        + "a board (“Show board”)." }));
  } else {
    list.replaceChildren(...data.sessions.map((s) => el("li", {},
      el("button", { type: "button", class: "quiet", dataset: { session: s.session_id },
        onclick: () => openSession(s.session_id) },
      el("strong", { text: s.session_id }),
      el("span", { class: "meta", text: ` ${s.workspace_id ? `in ${s.workspace_id}` : "no workspace"}`
        + ` · ${s.card_revision ? `card r${s.card_revision}` : "no card"}`
        + ` · ${plural(s.tasks, "task", "tasks")}` })))));
  }
  const workspaces = [...new Set(data.sessions.map((s) => s.workspace_id).filter(Boolean))];
  $("#ws-session-ids").replaceChildren(
    ...data.sessions.map((s) => el("option", { value: s.session_id })));
  $("#ws-workspace-ids").replaceChildren(...workspaces.map((w) => el("option", { value: w })));
}

// -- the state card ---------------------------------------------------------------------------

async function openSession(sessionId) {
  view.session = sessionId;
  $("#ws-session").value = sessionId;
  await loadCard();
  if (view.card && view.card.workspace_id && view.card.workspace_id !== view.workspace) {
    await openBoard(view.card.workspace_id);
  }
}

const sessionPath = (id) => `/v1/cards/${encodeURIComponent(id)}`;

async function loadCard() {
  if (!view.session) return;
  $("#ws-card-area").hidden = false;
  loading($("#ws-revisions"));
  const data = await guarded(async () => {
    const [card, history] = await Promise.all([
      api("GET", sessionPath(view.session), { fields: OPEN_FIELDS }),
      api("GET", `${sessionPath(view.session)}/revisions`, { fields: OPEN_FIELDS }),
    ]);
    return { card, history };
  });
  if (!data) {
    $("#ws-card-area").hidden = true;
    return;
  }
  view.card = data.card;
  renderCard(data.card);
  renderRevisions(data.history.revisions);
}

const lines = (text) => text.split("\n").map((line) => line.trim()).filter(Boolean);

function fieldRow(name = "", value = "") {
  const row = el("div", { class: "row ws-field" },
    el("input", { class: "ws-field-name", "aria-label": "Field name", value: name,
      maxlength: 64, placeholder: "name" }),
    el("input", { class: "ws-field-value", "aria-label": "Field value", value,
      maxlength: 2000, placeholder: "value" }));
  row.append(el("button", { type: "button", class: "quiet", text: "Remove field",
    onclick: () => row.remove() }));
  return row;
}

function renderCard(card) {
  const saved = card.revision
    ? `Revision ${card.revision}, saved ${when(card.updated_at)} by ${card.actor}`
    : "No card yet: fill it in and press “Save card”.";
  const area = (id, label, value, rows = 2) => el("label", {}, label,
    el("textarea", { id, rows, text: value }));
  const fields = el("div", { id: "ws-fields", class: "stack" },
    ...Object.entries(card.fields).map(([name, value]) => fieldRow(name, value)));
  const workspace = card.workspace_id
    ? el("p", { class: "meta" }, `Workspace: ${card.workspace_id} `,
      el("button", { type: "button", class: "quiet", text: "Show its board",
        onclick: () => openBoard(card.workspace_id) }))
    : el("label", {}, "Workspace (ties this conversation to one)",
      el("input", { id: "ws-card-workspace", list: "ws-workspace-ids", maxlength: 128,
        autocomplete: "off" }));
  const remove = el("button", { type: "button", class: "danger", text: "Delete card",
    disabled: card.revision === 0 });
  armed(remove, "Click again to delete the card", deleteCard);
  const form = el("form", { id: "ws-card-form", class: "stack" },
    el("h3", {}, "State card of ", el("code", { text: card.session_id })),
    el("p", { class: "meta", text: saved }),
    workspace,
    area("ws-goal", "Goal", card.goal),
    area("ws-progress", "Progress", card.progress, 3),
    area("ws-decisions", "Decisions (one a line)", card.decisions.join("\n")),
    area("ws-questions", "Open questions (one a line)", card.open_questions.join("\n")),
    area("ws-next", "Next step", card.next_step, 1),
    el("h4", { text: "Fields" }),
    fields,
    el("div", { class: "row" },
      el("button", { type: "button", class: "quiet", text: "Add field",
        onclick: () => fields.append(fieldRow()) })),
    el("div", { class: "row" }, el("button", { type: "submit", text: "Save card" }), remove));
  form.addEventListener("submit", saveCard);
  $("#ws-card").replaceChildren(form);
}

function cardChanges() {
  const fields = {};
  for (const row of document.querySelectorAll("#ws-fields .ws-field")) {
    const name = row.querySelector(".ws-field-name").value.trim();
    if (name) fields[name] = row.querySelector(".ws-field-value").value.trim() || null;
  }
  for (const name of Object.keys(view.card.fields)) if (!(name in fields)) fields[name] = null;
  const body = {
    session_id: view.session,
    goal: $("#ws-goal").value.trim(),
    progress: $("#ws-progress").value.trim(),
    decisions: lines($("#ws-decisions").value),
    open_questions: lines($("#ws-questions").value),
    next_step: $("#ws-next").value.trim(),
    fields,
    expected_revision: view.card.revision,
  };
  const workspace = $("#ws-card-workspace");
  if (workspace && workspace.value.trim()) body.workspace_id = workspace.value.trim();
  return body;
}

async function saveCard(event) {
  event.preventDefault();
  const before = view.card.revision;
  const card = await guarded(() =>
    api("POST", "/v1/cards/upsert", { body: cardChanges(), userIn: "body",
      fields: CARD_FIELDS }));
  if (!card) return;
  await loadCard();
  await loadSessions();
  if (card.revision === before) notify("Nothing changed on the card.", "info");
  else notify(`Saved the card of ${card.session_id} as revision ${card.revision}.`, "ok");
  if (card.workspace_id && card.workspace_id !== view.workspace) await openBoard(card.workspace_id);
}

async function deleteCard() {
  const session = view.session;
  const done = await guarded(() => api("DELETE", sessionPath(session)));
  if (!done) return false;
  notify(`Deleted the card of ${session} and its revisions.`, "ok");
  await loadCard();
  await loadSessions();
  return true;
}

const quoted = (text) => {
  if (text === null || text === undefined || text === "") return "(empty)";
  return `“${text.length > 80 ? `${text.slice(0, 79)}…` : text}”`;
};

function describe(change) {
  if (change.part === "decisions" || change.part === "open_questions") {
    const parts = [...change.added.map((item) => `+ ${quoted(item)}`),
      ...change.removed.map((item) => `− ${quoted(item)}`)];
    return `${change.part}: ${parts.join(", ") || "reordered"}`;
  }
  return `${change.part}: ${quoted(change.before)} → ${quoted(change.after)}`;
}

function renderRevisions(revisions) {
  const list = $("#ws-revisions");
  if (!revisions.length) {
    list.replaceChildren(el("li", { class: "empty", text: "No revisions yet." }));
    return;
  }
  list.replaceChildren(...[...revisions].reverse().map((r) => el("li", {
    class: "ws-revision", dataset: { revision: r.revision } },
  el("strong", { text: `Revision ${r.revision}` }),
  el("span", { class: "meta", text: ` · ${when(r.changed_at)} · ${r.actor}` }),
  el("ul", {}, ...r.changes.map((c) => el("li", { text: describe(c) }))))));
}

// -- the task board -----------------------------------------------------------------------

async function openBoard(workspaceId) {
  view.workspace = workspaceId;
  $("#ws-workspace").value = workspaceId;
  if (!$("#ws-task-session").value && view.session) $("#ws-task-session").value = view.session;
  await loadBoard();
}

async function loadBoard() {
  if (!view.workspace) return;
  $("#ws-board-area").hidden = false;
  $("#ws-board-title").textContent = `Task board of workspace ${view.workspace}`;
  const data = await guarded(() =>
    api("GET", "/v1/v2/tasks", { query: { workspace_id: view.workspace },
      fields: OPEN_FIELDS }));
  if (!data) return;
  renderBoard(data.tasks);
}

function renderBoard(tasks) {
  const columns = COLUMNS.map(([status, label], index) => {
    const mine = tasks.filter((t) => t.status === status);
    const list = el("ul", { class: "ws-tasks" }, ...mine.map((t) => taskCard(t, index)));
    if (!mine.length) list.append(el("li", { class: "empty", text: "No tasks." }));
    const column = el("div", { class: "ws-column", dataset: { status } },
      el("h4", { text: `${label} (${mine.length})` }), list);
    column.addEventListener("dragover", (event) => {
      if (!event.dataTransfer.types.includes(DRAG_TYPE)) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = "move";
      column.classList.add("over");
    });
    column.addEventListener("dragleave", () => column.classList.remove("over"));
    column.addEventListener("drop", (event) => {
      event.preventDefault();
      column.classList.remove("over");
      const task = tasks.find((t) => t.id === event.dataTransfer.getData(DRAG_TYPE));
      if (task && task.status !== status) moveTask(task, status);
    });
    return column;
  });
  $("#ws-board").replaceChildren(...columns);
}

function taskCard(task, index) {
  const card = el("li", { class: "ws-task", draggable: "true",
    dataset: { id: task.id, status: task.status } });
  card.addEventListener("dragstart", (event) => {
    event.dataTransfer.setData(DRAG_TYPE, task.id);
    event.dataTransfer.effectAllowed = "move";
    card.classList.add("dragging");
  });
  card.addEventListener("dragend", () => card.classList.remove("dragging"));
  const left = COLUMNS[index - 1];
  const right = COLUMNS[index + 1];
  const remove = el("button", { type: "button", class: "danger", text: "Delete" });
  armed(remove, "Click again to delete", () => deleteTask(task));
  const reassign = el("form", { class: "stack ws-reassign", hidden: true },
    el("label", {}, "New conversation",
      el("input", { class: "ws-reassign-session", list: "ws-session-ids", required: true,
        maxlength: 128, autocomplete: "off", value: task.session_id })),
    el("div", { class: "row" },
      el("button", { type: "submit", text: "Save" }),
      el("button", { type: "button", class: "quiet", text: "Cancel",
        onclick: () => { reassign.hidden = true; } })));
  reassign.addEventListener("submit", (event) => {
    event.preventDefault();
    reassignTask(task, reassign.querySelector("input").value.trim());
  });
  const parts = [
    el("strong", { class: "ws-task-title", text: task.title }),
    el("p", { class: "meta" }, "Conversation ",
      el("button", { type: "button", class: "quiet ws-owner", text: task.session_id,
        title: "Open this conversation's card", onclick: () => openSession(task.session_id) })),
    task.notes ? el("p", { class: "ws-notes", text: task.notes }) : null,
    el("div", { class: "actions row" },
      left ? el("button", { type: "button", class: "quiet", text: "←",
        "aria-label": `Move to ${left[1]}`, onclick: () => moveTask(task, left[0]) }) : null,
      right ? el("button", { type: "button", class: "quiet", text: "→",
        "aria-label": `Move to ${right[1]}`, onclick: () => moveTask(task, right[0]) }) : null,
      el("button", { type: "button", class: "quiet", text: "Reassign",
        onclick: () => { reassign.hidden = !reassign.hidden; } }),
      remove),
    reassign,
  ];
  card.append(...parts.filter(Boolean));
  return card;
}

const taskPath = (id) => `/v1/v2/tasks/${encodeURIComponent(id)}`;

async function moveTask(task, status) {
  const moved = await guarded(() => api("POST", `${taskPath(task.id)}/move`, {
    body: { status, expected_revision: task.revision }, userIn: "body" }));
  if (!moved) return; // the notice says why (e.g. someone moved it first)
  await loadBoard();
  notify(`Moved “${moved.title}” to ${LABEL[moved.status]}.`, "ok");
}

async function reassignTask(task, sessionId) {
  const changed = await guarded(() => api("PATCH", taskPath(task.id), {
    body: { session_id: sessionId, expected_revision: task.revision }, userIn: "body",
    fields: { session_id: "New conversation" } }));
  if (!changed) return; // the server's refusal stays in the notice, the form stays open
  await loadBoard();
  await loadSessions();
  notify(`“${changed.title}” now belongs to conversation ${changed.session_id}.`, "ok");
}

async function deleteTask(task) {
  const done = await guarded(async () => {
    await api("DELETE", taskPath(task.id));
    return true;
  });
  if (!done) return false;
  notify(`Deleted the task “${task.title}”.`, "ok");
  await loadBoard();
  await loadSessions();
  return true;
}

async function addTask(event) {
  event.preventDefault();
  const body = {
    workspace_id: view.workspace,
    session_id: $("#ws-task-session").value.trim(),
    title: $("#ws-task-title").value.trim(),
    notes: $("#ws-task-notes").value.trim(),
    status: $("#ws-task-status").value,
  };
  const task = await guarded(() => api("POST", "/v1/v2/tasks",
    { body, userIn: "body", fields: TASK_FIELDS }));
  if (!task) return;
  $("#ws-task-title").value = "";
  $("#ws-task-notes").value = "";
  await loadBoard();
  await loadSessions();
  notify(`Added “${task.title}” to ${LABEL[task.status]}.`, "ok");
}

// -- the screen -------------------------------------------------------------------------------

function wire() {
  $("#ws-open-card").addEventListener("submit", (event) => {
    event.preventDefault();
    openSession($("#ws-session").value.trim());
  });
  $("#ws-open-board").addEventListener("submit", (event) => {
    event.preventDefault();
    openBoard($("#ws-workspace").value.trim());
  });
  $("#ws-task-form").addEventListener("submit", addTask);
}

async function load() {
  await loadSessions();
  if (view.session) await loadCard();
  if (view.workspace) await loadBoard();
}

function reset() {
  Object.assign(view, { session: null, workspace: null, card: null, sessions: [] });
  for (const id of ["#ws-session", "#ws-workspace", "#ws-task-session"]) $(id).value = "";
  $("#ws-card-area").hidden = true;
  $("#ws-board-area").hidden = true;
  $("#ws-card").replaceChildren();
  $("#ws-board").replaceChildren();
  $("#ws-sessions").replaceChildren();
}

registerScreen({ name: "workspace", label: "Workspace", build, wire, load, reset });
