// Prompt files (USER.md, MEMORY.md): an agent integration's two notes, entry by entry.
import { $, api, el, guarded, notify, registerScreen, state, usageBar, when } from "../core.js";

const DELIM = "\n§\n"; // the entry delimiter of agent/files.py

const FILES = [
  { target: "user", title: "USER.md", field: "user_md", hint: "who the user is" },
  { target: "memory", title: "MEMORY.md", field: "memory_md", hint: "what the agent learned" },
];

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
  const used = FILES.some((file) => data[file.field]);
  if (used !== state.features.files) {
    state.features.files = used; // the menu lists the screen from now on (or no longer)
    document.dispatchEvent(new Event("memvault:features"));
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
    const done = await guarded(() => api("POST", "/api/memory/v2/entries",
      { body, fields: { content: area.getAttribute("aria-label") } }));
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
      const done = await guarded(() => api("PUT", path,
        { body, fields: { content: area.getAttribute("aria-label") } }));
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

// Listed only when the files hold something: a setup that never used them has one memory
// system, not two (the screen stays reachable at #files).
registerScreen({
  name: "files", label: "Prompt files", load: loadFiles, optional: (st) => st.features.files,
});
