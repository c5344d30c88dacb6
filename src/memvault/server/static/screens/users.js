// Users (admin keys): everyone with memories on this server and how many, to act as one,
// download their export, or erase them.
import {
  $, api, armed, el, guarded, notify, pager, pagerRow, plural, registerScreen, screens, section,
  state,
} from "../core.js";
import { describeExport, downloadExport } from "../download.js";

const PAGE = 50;
const view = { offset: 0 };
const paging = pager(["#users-prev", "#users-next", "#users-page"], view, PAGE, loadUsers,
  { showFrom: 0 });

function build() {
  return section("users", "Users",
    el("p", { class: "hint", text: "Everyone with at least one memory, in the default store " +
      "or an agent's own. “Act as” sets the user the other screens work for, like the form " +
      "at the top. “Erase” deletes every trace of the user and cannot be undone." }),
    el("p", { id: "users-summary", class: "summary" }),
    el("div", { class: "table-wrap" }, el("table", { id: "users-table" },
      el("thead", {}, el("tr", {}, ...["User", "Memories", ""].map((name) =>
        el("th", { text: name })))),
      el("tbody"))),
    pagerRow("users"));
}

async function loadUsers() {
  const body = $("#users-table tbody");
  body.replaceChildren(el("tr", {}, el("td", { colspan: 3, class: "loading", text: "Loading…" })));
  const data = await guarded(() => api("GET", "/v1/users", {
    query: { limit: PAGE, offset: view.offset }, userIn: "none",
  }));
  if (!data) {
    body.replaceChildren();
    return;
  }
  if (!data.items.length && view.offset > 0) {
    view.offset = Math.max(0, view.offset - PAGE); // the last page emptied: step back
    await loadUsers();
    return;
  }
  $("#users-summary").textContent = plural(data.total, "user", "users");
  body.replaceChildren(...(data.items.length ? data.items.map(userRow) : [el("tr", {},
    el("td", { colspan: 3, class: "empty", text: "No user has memories yet." }))]));
  paging.show(data);
}

function userRow(user) {
  const id = user.user_id;
  const erase = armed(el("button", { type: "button", class: "danger", text: "Erase" }),
    `Erase ${id} for good?`, () => eraseUser(id));
  return el("tr", { dataset: { user: id }, class: id === state.userId ? "acting" : "" },
    el("th", { scope: "row" }, el("code", { text: id })),
    el("td", { text: String(user.memories) }),
    el("td", { class: "actions" },
      el("button", { type: "button", text: "Act as", onclick: () => actAs(id) }),
      el("button", { type: "button", class: "quiet", text: "Export",
        onclick: () => exportUser(id) }),
      erase));
}

// The same as the form at the top, so the chrome and every screen follow; then show
// the user's memories.
function actAs(id) {
  $("#act-as-user").value = id;
  $("#act-as").requestSubmit();
  location.hash = "#memories";
}

async function exportUser(id) {
  const lines = await guarded(() =>
    downloadExport(id, { query: { user_id: id }, userIn: "none" }));
  if (lines !== undefined) {
    notify(`Downloaded the export of ${id}: ${describeExport(lines)}.`, "ok");
  }
}

async function eraseUser(id) {
  const done = await guarded(() =>
    api("DELETE", `/v1/users/${encodeURIComponent(id)}`, { userIn: "none" }));
  if (!done) return false;
  if (id === state.userId) {
    // The screens still hold what they showed of the erased user: forget it.
    for (const spec of screens.values()) if (spec.reset) spec.reset();
  }
  notify(`Erased ${id}: ${plural(done.deleted, "memory", "memories")} and their files, ` +
    "settings, reveal secret and audit records.", "ok");
  await loadUsers();
  return true;
}

registerScreen({
  name: "users",
  label: "Users",
  admin: true,
  perUser: false,
  build,
  load: loadUsers,
  reset() {
    view.offset = 0;
  },
  wire() {
    paging.wire();
  },
});
