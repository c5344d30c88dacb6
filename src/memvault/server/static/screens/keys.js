// API keys (admin keys only): create, list, revoke.
import { $, api, el, guarded, notify, registerScreen, when } from "../core.js";

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

registerScreen({
  name: "keys",
  label: "Keys",
  admin: true,
  perUser: false,
  load: loadKeys,
  wire: () => $("#key-form").addEventListener("submit", createKey),
});
