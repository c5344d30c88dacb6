// A memory's history, for any screen that lists memories: historyButton(entry, onChange)
// opens, under the entry's actions, the versions of the fact (what changed, when, by whom)
// with "Undo last change". onChange(current) runs after an undo, with the entry the server
// says is current afterwards (an undo of a replacement brings the replaced one back).
import { agentOf, api, el, guarded, notify, plural, when } from "./core.js";

// What began a period of the fact, as the server names it (lifecycle/history.py).
const ACTIONS = {
  added: "written",
  supersede: "written to replace an earlier memory",
  update: "changed",
  undo: "undone (an earlier state put back)",
};

function path(entry, tail) {
  return `/v1/memories/${encodeURIComponent(entry.id)}/${tail}`;
}


function shown(value) {
  if (value === null || value === undefined || value === "") return "(none)";
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.length > 90 ? `${text.slice(0, 89)}…` : text;
}

// One line per changed field; "before → after" when the period before is the same memory.
function changeLines(version, previous) {
  const sameEntry = previous && previous.entry.id === version.entry.id;
  return version.changed.map((field) => el("li", {},
    el("code", { text: field }), ": ",
    sameEntry ? `${shown(previous.entry[field])} → ${shown(version.entry[field])}`
      : shown(version.entry[field])));
}

function versionItem(version, previous) {
  const action = ACTIONS[version.action] || version.action;
  const meta = [
    when(version.valid_from),
    action,
    `by ${version.actor}`,
    version.current ? "current" : `until ${when(version.valid_to)}`,
  ];
  const lines = changeLines(version, previous);
  const item = el("li", { class: version.current ? "version current" : "version" },
    el("p", { class: "meta" }, meta.join(" · ")),
    lines.length ? el("ul", { class: "changes" }, ...lines) : null);
  if (!lines.length) {
    item.append(el("p", { class: "content", text: version.entry.content }));
  }
  if (previous && previous.entry.id !== version.entry.id) {
    item.append(el("p", { class: "meta" }, "memory ", el("code", { text: version.entry.id })));
  }
  return item;
}

function historyPanel(entry, versions, close, onChange) {
  // Newest first: the change "Undo last change" takes back is on top.
  const items = versions.map((v, i) => versionItem(v, versions[i - 1])).reverse();
  const undo = el("button", { type: "button", text: "Undo last change" });
  const hide = el("button", { type: "button", class: "quiet", text: "Close" });
  const canUndo = versions.length > 1;
  undo.hidden = !canUndo;
  hide.addEventListener("click", close);
  undo.addEventListener("click", async () => {
    undo.disabled = true;
    const current = await guarded(() => api("POST", path(entry, "undo"),
      { body: agentOf(entry), userIn: "body" }));
    undo.disabled = false;
    if (!current) return;
    close();
    if (onChange) await onChange(current); // a reload clears the notice: notify after it
    notify(current.id === entry.id ? "Last change undone; the history keeps the undo too."
      : `Last change undone: memory ${current.id} is current again.`, "ok");
  });
  return el("div", { class: "history", role: "region", "aria-label": "History" },
    el("h4", { text: `History · ${plural(versions.length, "version", "versions")}` }),
    el("ol", { class: "versions", reversed: true }, ...items),
    canUndo ? null : el("p", { class: "hint",
      text: "Nothing to undo: this memory has not changed since it was written." }),
    el("div", { class: "row" }, undo, hide));
}

export function historyButton(entry, onChange) {
  const button = el("button", { type: "button", class: "quiet", text: "History",
    "aria-expanded": "false" });
  let panel = null;
  const close = () => {
    if (panel) panel.remove();
    panel = null;
    button.setAttribute("aria-expanded", "false");
  };
  button.addEventListener("click", async () => {
    if (panel) {
      close();
      return;
    }
    button.disabled = true;
    const data = await guarded(() => api("GET", path(entry, "history"),
      { query: agentOf(entry) }));
    button.disabled = false;
    if (!data || panel) return;
    panel = historyPanel(entry, data.versions, close, onChange);
    (button.closest(".actions") || button).after(panel);
    button.setAttribute("aria-expanded", "true");
  });
  return button;
}
