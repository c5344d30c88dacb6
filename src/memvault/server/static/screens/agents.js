// Agents (admin keys): each agent's memory settings (seed 002 §8.2: memory on or off, the
// store its memories live in, how many memories the prefetch injects), and for the acting
// user the layers a memory setting passes through, with the layer that wins.
import { $, api, armed, el, guarded, notify, registerScreen, section, state } from "../core.js";

const BASE_LAYERS = new Set(["default", "yaml", "global"]);
let defaults = null;
// The agent the form was filled from, to send the store only when it was changed: a
// store is shown without its password, and sending that back would drop the password.
let editing = null;
// Set when the person types in the form; the agents list arriving later must not refill a
// form they started (it did: the typed agent id vanished and the save did nothing).
let touched = false;
const STORE_LABEL = "Store URL or absolute SQLite path";
const AGENT_FIELDS = { agent_id: "Agent id", prefetch_limit: "Prefetch count",
  store: STORE_LABEL, enabled: "Memory on" };
const ACT_AS_FIRST = "Enter a user id in “User id” at the top and press “Act as” to see "
  + "the layers of their settings.";

function build() {
  return section("agents", "Agents",
    el("p", { class: "hint", text: "An agent without settings of its own gets the defaults. " +
      "Changing an agent's store does not move its memories: copy them first with " +
      "memvault migrate-store." }),
    el("p", { id: "agents-defaults", class: "summary" }),
    el("div", { class: "table-wrap" }, el("table", { id: "agents-table" },
      el("thead", {}, el("tr", {}, ...["Agent", "Memory", "Store", "Prefetch", ""].map((name) =>
        el("th", { text: name })))),
      el("tbody"))),
    el("form", { id: "agent-form", class: "card stack" },
      el("h3", { text: "Agent settings" }),
      el("div", { class: "row" },
        el("label", {}, "Agent id", el("input", { id: "agent-id", required: true,
          autocomplete: "off", placeholder: "writer" })),
        el("label", {}, "Prefetch count", el("input", { id: "agent-prefetch", type: "number",
          min: 1, max: 100, required: true })),
        el("label", {}, "Store", el("select", { id: "agent-store-kind" },
          el("option", { value: "default", text: "Default store" }),
          el("option", { value: "own", text: "Its own store" }))),
        el("label", { id: "agent-store-label" }, STORE_LABEL,
          el("input", { id: "agent-store", autocomplete: "off",
            placeholder: "/var/lib/memvault/writer.db or postgresql://…" }))),
      el("label", { class: "check" }, el("span", {},
        el("input", { type: "checkbox", id: "agent-enabled" }),
        " Memory on (prefetch, memory tools and archiving for this agent)")),
      el("div", { class: "row" },
        el("button", { type: "submit", text: "Save agent" }),
        el("button", { type: "button", id: "agent-clear", class: "quiet", text: "New agent" }))),
    el("form", { id: "layers-form", class: "card stack" },
      el("h3", { id: "layers-title", text: "Layers" }),
      el("p", { class: "hint", text: "Each setting's value in each layer, lowest first; the " +
        "highest layer that sets it wins (marked). Memory reaches a prompt only when the " +
        "agent's memory is on and injection.enabled is true." }),
      el("div", { class: "row" },
        el("label", {}, "Agent", el("input", { id: "layers-agent", autocomplete: "off",
          placeholder: "(none: the defaults)" })),
        el("label", {}, "Session id", el("input", { id: "layers-session", autocomplete: "off",
          placeholder: "(none: no session layer)" })),
        el("button", { type: "submit", text: "Show layers" })),
      el("div", { class: "table-wrap" }, el("table", { id: "layers-table" },
        el("thead", {}, el("tr", {}, ...["Setting", "default", "agent", "user", "session",
          "Value", "Wins"].map((name) => el("th", { text: name })))),
        el("tbody")))));
}

// -- the agents and their settings -------------------------------------------------------

function storeText(store) {
  return store === null ? "default store" : store;
}

async function loadAgents() {
  const body = $("#agents-table tbody");
  body.replaceChildren(el("tr", {}, el("td", { colspan: 5, class: "loading", text: "Loading…" })));
  if (!editing && !touched) fillForm(null); // usable before the defaults arrive
  const data = await guarded(() => api("GET", "/v1/agents", { userIn: "none" }));
  if (!data) {
    body.replaceChildren();
    return;
  }
  defaults = data.defaults;
  $("#agents-defaults").textContent = `Defaults: memory ${defaults.enabled ? "on" : "off"}, ` +
    `${storeText(defaults.store)}, prefetch ${defaults.prefetch_limit}.`;
  if (!data.agents.length) {
    body.replaceChildren(el("tr", {}, el("td", { colspan: 5, class: "empty",
      text: "No agent has settings of its own yet." })));
  } else {
    body.replaceChildren(...data.agents.map(agentRow));
  }
  if (!editing && !touched) fillForm(null);
}

function agentRow(agent) {
  const reset = armed(el("button", { type: "button", class: "danger", text: "Reset" }),
    "Reset to the defaults?", () => resetAgent(agent.agent_id));
  return el("tr", { dataset: { agent: agent.agent_id } },
    el("th", { scope: "row" }, el("code", { text: agent.agent_id })),
    el("td", { text: agent.enabled ? "on" : "off" }),
    el("td", { text: storeText(agent.store) }),
    el("td", { text: String(agent.prefetch_limit) }),
    el("td", { class: "actions" },
      el("button", { type: "button", class: "quiet", text: "Edit",
        onclick: () => fillForm(agent) }),
      reset));
}

function fillForm(agent) {
  editing = agent;
  touched = false;
  const shown = agent || { agent_id: "", ...(defaults || { enabled: true, store: null,
    prefetch_limit: 5 }) };
  $("#agent-id").value = shown.agent_id;
  $("#agent-id").readOnly = Boolean(agent);
  $("#agent-enabled").checked = shown.enabled;
  $("#agent-prefetch").value = String(shown.prefetch_limit);
  $("#agent-store-kind").value = shown.store === null ? "default" : "own";
  $("#agent-store").value = shown.store ?? "";
  showStoreField();
}

function showStoreField() {
  $("#agent-store-label").hidden = $("#agent-store-kind").value !== "own";
}

function storeChange() {
  const own = $("#agent-store-kind").value === "own";
  const typed = $("#agent-store").value.trim();
  const before = editing ? editing.store : null;
  if (!own) return before === null ? undefined : null;
  if (!typed) throw new Error(`“${STORE_LABEL}” is empty: type the agent's store there, or `
    + "choose “Default store” in “Store”.");
  return typed === before ? undefined : typed;
}

async function saveAgent(event) {
  event.preventDefault();
  const agentId = $("#agent-id").value.trim();
  const body = {
    enabled: $("#agent-enabled").checked,
    prefetch_limit: Number($("#agent-prefetch").value),
  };
  try {
    const store = storeChange();
    if (store !== undefined) body.store = store;
  } catch (err) {
    notify(err.message);
    return;
  }
  const saved = await guarded(() =>
    api("PUT", `/v1/agents/${encodeURIComponent(agentId)}`,
      { body, userIn: "none", fields: AGENT_FIELDS }));
  if (!saved) return;
  notify(`Saved the settings of agent ${saved.agent_id}.`, "ok");
  editing = saved;
  await loadAgents();
  fillForm(saved);
}

async function resetAgent(agentId) {
  const done = await guarded(async () => {
    await api("DELETE", `/v1/agents/${encodeURIComponent(agentId)}`, { userIn: "none" });
    return true;
  });
  if (!done) return false;
  notify(`Agent ${agentId} uses the defaults again; its memories stay where they are.`, "ok");
  if (editing && editing.agent_id === agentId) editing = null;
  await loadAgents();
  return true;
}

// -- the layers --------------------------------------------------------------------------

function shownValue(value) {
  if (value === "") return '""'; // an empty text, not a missing layer
  return typeof value === "string" ? value : JSON.stringify(value);
}

function layerCell(value, wins, title) {
  const cell = el("td", { class: wins ? "layer wins" : "layer", title });
  cell.textContent = value === undefined ? "—" : shownValue(value);
  return cell;
}

async function loadLayers() {
  const body = $("#layers-table tbody");
  if (!state.userId) {
    $("#layers-title").textContent = "Layers";
    body.replaceChildren(el("tr", {}, el("td", { colspan: 7, class: "empty",
      text: ACT_AS_FIRST })));
    return;
  }
  const agentId = $("#layers-agent").value.trim();
  const sessionId = $("#layers-session").value.trim();
  $("#layers-title").textContent = `Layers for ${state.userId}` +
    (agentId ? ` with agent ${agentId}` : "") + (sessionId ? ` in session ${sessionId}` : "");
  body.replaceChildren(el("tr", {}, el("td", { colspan: 7, class: "loading", text: "Loading…" })));
  const data = await guarded(() => Promise.all([
    agentId ? api("GET", `/v1/agents/${encodeURIComponent(agentId)}`,
      { userIn: "none", fields: { agent_id: "Agent" } }) : Promise.resolve(null),
    api("GET", "/api/memory/v2/config"),
    sessionId ? api("GET", "/v1/config/session", { query: { session_id: sessionId },
      fields: { session_id: "Session id" } }) : Promise.resolve(null),
  ]));
  if (!data) {
    body.replaceChildren();
    return;
  }
  const [agent, user, session] = data;
  body.replaceChildren(...agentRows(agent), ...configRows(user, session));
}

// The agent's own settings have two layers: the defaults and the agent's record.
function agentRows(agent) {
  const base = defaults || { enabled: true, store: null, prefetch_limit: 5 };
  const own = agent && agent.own_settings;
  return [["enabled", "memory on (agent)"], ["prefetch_limit", "prefetch count"],
    ["store", "store"]].map(([field, label]) => {
    const value = own ? agent[field] : base[field];
    const shown = field === "store" ? storeText : (v) => v;
    return el("tr", { dataset: { setting: field } },
      el("th", { scope: "row", text: label }),
      layerCell(shown(base[field]), !own),
      layerCell(own ? shown(agent[field]) : undefined, own,
        agent ? undefined : "fill “Agent” and press “Show layers” to see its layer"),
      layerCell(undefined, false, "not a user setting"),
      layerCell(undefined, false, "not a session setting"),
      el("td", { class: "value", text: shownValue(shown(value)) }),
      el("td", {}, el("span", { class: `source ${own ? "agent" : "default"}`,
        text: own ? "agent" : "default" })));
  });
}

// The writable memory settings: the defaults (or config.yaml, or the admin's global
// overrides), then the user's override, then the session's.
function configRows(user, session) {
  return Object.entries(user.fields).filter(([, field]) => field.user_writable)
    .map(([name, field]) => {
      const fromBase = BASE_LAYERS.has(field.source);
      const overrides = session ? session.overrides : {};
      const inSession = Object.hasOwn(overrides, name);
      const final = session ? session.fields[name] : field;
      const baseTitle = fromBase ? `from ${field.source}` : "hidden under the user's value";
      return el("tr", { dataset: { setting: name } },
        el("th", { scope: "row" }, el("code", { text: name })),
        layerCell(fromBase ? field.value : "under user", BASE_LAYERS.has(final.source), baseTitle),
        layerCell(undefined, false, "not an agent setting"),
        layerCell(field.source === "user" ? field.value : undefined, final.source === "user"),
        layerCell(inSession ? overrides[name] : undefined, final.source === "session",
          session ? undefined : "fill “Session id” and press “Show layers” to see its layer"),
        el("td", { class: "value", text: shownValue(final.value) }),
        el("td", {}, el("span", { class: `source ${final.source}`, text: final.source })));
    });
}

async function load() {
  await loadAgents();
  await loadLayers();
}

function reset() {
  const body = document.querySelector("#layers-table tbody");
  if (body) body.replaceChildren();
  for (const id of ["#layers-agent", "#layers-session"]) {
    const input = document.querySelector(id);
    if (input) input.value = "";
  }
}

registerScreen({
  name: "agents",
  label: "Agents",
  admin: true,
  perUser: false,
  build,
  load,
  reset,
  wire() {
    $("#agent-form").addEventListener("submit", saveAgent);
    for (const kind of ["input", "change"]) {
      $("#agent-form").addEventListener(kind, () => { touched = true; });
    }
    $("#agent-store-kind").addEventListener("change", showStoreField);
    $("#agent-clear").addEventListener("click", () => fillForm(null));
    $("#layers-form").addEventListener("submit", (event) => {
      event.preventDefault();
      loadLayers();
    });
  },
});
