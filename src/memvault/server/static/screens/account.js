// Account (any key, for the acting user): download my memories, import a file of them
// (all or nothing), and set or change the reveal secret that guards redacted originals.
import {
  $, ApiError, api, el, guarded, notify, registerScreen, section, state,
} from "../core.js";
import { describeExport, downloadExport } from "../download.js";

const MIN_SECRET = 6;
const CONFLICT_LABEL = "When a memory's id already exists";
const SKIP_LABEL = "skip that memory, import the rest";
const SECRET_FIELDS = { secret: "New secret", current_secret: "Current secret" };

function build() {
  return section("account", "Account",
    el("div", { class: "grid2" },
      el("div", { class: "card stack" },
        el("h3", { text: "Export" }),
        el("p", { class: "hint", text: "Every memory of yours as JSON lines, one per line: " +
          "a backup, or a file to import on another server." }),
        el("div", { class: "row" },
          el("button", { type: "button", id: "account-export", text: "Download my memories" }))),
      el("form", { id: "account-import", class: "card stack" },
        el("h3", { text: "Import" }),
        el("p", { class: "hint", text: "A .jsonl file as Export writes it. All or nothing: " +
          "one bad line and no memory of the file is added." }),
        el("label", {}, "File", el("input", { id: "account-file", type: "file", required: true,
          accept: ".jsonl,.ndjson,.json,.txt,application/x-ndjson" })),
        el("label", {}, CONFLICT_LABEL,
          el("select", { id: "account-conflict" },
            el("option", { value: "error", text: "stop: import nothing" }),
            el("option", { value: "skip", text: SKIP_LABEL }))),
        el("div", { class: "row" }, el("button", { type: "submit", text: "Import file" })),
        el("p", { id: "account-import-result", class: "summary" }))),
    el("form", { id: "account-secret", class: "card stack" },
      el("h3", { text: "Reveal secret" }),
      el("p", { id: "account-secret-hint", class: "hint" }),
      el("div", { class: "row" },
        el("label", {}, "New secret", el("input", { id: "secret-new", type: "password",
          autocomplete: "new-password", minlength: MIN_SECRET, required: true })),
        el("label", {}, "New secret again", el("input", { id: "secret-again",
          type: "password", autocomplete: "new-password", required: true })),
        el("label", {}, "Current secret", el("input", { id: "secret-current",
          type: "password", autocomplete: "current-password",
          placeholder: "only to change one already set" }))),
      el("div", { class: "row" }, el("button", { type: "submit", text: "Save secret" }))));
}

function load() {
  $("#account-secret-hint").textContent = "Redacted memories show their original only after " +
    "this secret is typed (each reveal is audited). The first time, leave “Current secret” " +
    "empty; to change it, type the one set now." + (state.admin
    ? ` With an admin key, an empty “Current secret” resets ${state.userId}'s secret and ` +
      "lifts their lock." : "");
}

async function exportMine() {
  const button = $("#account-export");
  button.disabled = true;
  const lines = await guarded(() => downloadExport(state.userId, {}));
  button.disabled = false;
  if (lines !== undefined) {
    notify(`Downloaded your export: ${describeExport(lines)}.`, "ok");
  }
}

async function importFile(event) {
  event.preventDefault();
  const file = $("#account-file").files[0];
  const result = $("#account-import-result");
  result.textContent = "";
  if (!file) {
    notify("Choose a .jsonl file in “File” first, then press “Import file”.");
    return;
  }
  const button = event.submitter || $("#account-import button");
  button.disabled = true;
  const done = await guarded(async () => {
    try {
      return await api("POST", "/v1/memories/import", {
        query: { on_conflict: $("#account-conflict").value }, text: await file.text(),
        fields: { on_conflict: CONFLICT_LABEL },
      });
    } catch (err) {
      throw importRefusal(err);
    }
  });
  button.disabled = false;
  if (!done) {
    result.textContent = `Nothing was imported from ${file.name}.`;
    return;
  }
  result.textContent = `Imported ${describeExport({ memories: done.imported, cards: done.cards, tasks: done.tasks })} from ${file.name}.`;
  notify(result.textContent, "ok");
  $("#account-file").value = "";
}

// The remedy of an id clash names the HTTP parameter (on_conflict=skip): say the choice.
function importRefusal(err) {
  if (!(err instanceof ApiError && err.status === 409)) return err;
  const message = err.message.replace(/send on_conflict=skip to (import only the new ids)/,
    `choose “${SKIP_LABEL}” in “${CONFLICT_LABEL}” to $1, then press “Import file” again`);
  return new ApiError(err.status, err.code, message, err.fields);
}

// The route names its fields (current_secret); say it in the form's words instead.
function secretRefusal(err) {
  if (!(err instanceof ApiError && err.status === 403 && err.message.includes("current_secret"))) {
    return null;
  }
  return err.message.includes("already set")
    ? "A reveal secret is already set: type it in Current secret to change it."
    : `Current secret is wrong. ${err.message.replace(/^current_secret is wrong[:.]?\s*/, "")}`;
}

async function saveSecret(event) {
  event.preventDefault();
  const secret = $("#secret-new").value;
  if (secret !== $("#secret-again").value) {
    notify("The two new secrets differ: type the same one in both.");
    return;
  }
  const body = { secret };
  const current = $("#secret-current").value;
  if (current) body.current_secret = current;
  const button = event.submitter || $("#account-secret button");
  button.disabled = true;
  const saved = await guarded(async () => {
    try {
      await api("PUT", "/v1/sensitive/secret", { body, userIn: "body", fields: SECRET_FIELDS });
      return true;
    } catch (err) {
      const refusal = secretRefusal(err);
      if (refusal === null) throw err;
      notify(refusal);
      return false;
    }
  });
  button.disabled = false;
  if (!saved) return;
  $("#account-secret").reset();
  notify("Reveal secret saved.", "ok");
}

function reset() {
  for (const id of ["#account-import", "#account-secret"]) {
    const form = document.querySelector(id);
    if (form) form.reset();
  }
  const result = document.querySelector("#account-import-result");
  if (result) result.textContent = "";
}

registerScreen({
  name: "account",
  label: "Account",
  build,
  load,
  reset,
  wire() {
    $("#account-export").addEventListener("click", exportMine);
    $("#account-import").addEventListener("submit", importFile);
    $("#account-secret").addEventListener("submit", saveSecret);
  },
});
