// Config: every setting with the layer it comes from; user-writable ones can change.
import { $, api, el, guarded, notify, registerScreen, state } from "../core.js";

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

// Hindsight's settings (banks, memory mode) mean nothing to a setup that never chose it.
function shownField(name) {
  return state.features.provider === "hindsight" || !/hindsight|bank/.test(name);
}

function renderConfig(data) {
  configFields = data.fields;
  const shown = Object.entries(data.fields).filter(([name]) => shownField(name));
  const rows = shown.map(([name, field]) => {
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
  // Each row is labelled with its setting's name: the server's errors quote it as shown.
  const fields = Object.fromEntries(Object.keys(changes).map((name) => [name, name]));
  const fresh = await guarded(() =>
    api("PATCH", "/api/memory/v2/config", { body: changes, fields }));
  if (fresh) {
    renderConfig(fresh);
    notify(`Saved ${Object.keys(changes).join(", ")}.`, "ok");
  }
}

registerScreen({
  name: "config",
  label: "Config",
  load: loadConfig,
  wire: () => $("#config-form").addEventListener("submit", saveConfig),
});
