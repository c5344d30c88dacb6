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
    el("td", { text: info.admin ? "(admin)" : info.review ? `${info.user_id} (reviewer)`
      : info.user_id }),
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

// A key either acts for one user or is an admin key: the form makes the choice explicit.
// An admin key may always approve, so the reviewer box only means something for a user key.
function adminChosen() {
  const admin = $("#key-admin").checked;
  const user = $("#key-user");
  user.disabled = admin;
  user.required = !admin;
  if (admin) user.value = "";
  const review = $("#key-review");
  review.disabled = admin;
  if (admin) review.checked = false;
}

async function createKey(event) {
  event.preventDefault();
  const admin = $("#key-admin").checked;
  const user = $("#key-user").value.trim();
  if (!admin && !user) {
    notify("“For user” is empty. Enter the user the key is for, or tick “Admin key (acts for "
      + "any user)”, then press “Create key”.");
    $("#key-user").focus();
    return;
  }
  const body = { user_id: admin ? null : user, label: $("#key-label").value.trim(),
    review: !admin && $("#key-review").checked };
  const data = await guarded(() => api("POST", "/v1/keys", { body, userIn: "none",
    fields: { user_id: "For user", label: "Label", admin: "Admin key",
      review: "May approve held memories" } }));
  if (!data) return;
  $("#key-secret").textContent = data.key;
  $("#key-for").textContent = data.info.admin
    ? "An admin key: it manages keys and acts for any user it names."
    : `For ${data.info.user_id}: it reaches only that user's memories`
      + (data.info.review ? " and may approve the ones the threat scan held." : ".");
  const copy = $("#key-copy");
  copy.textContent = "Copy";
  copy.classList.remove("done");
  $("#key-new").hidden = false;
  $("#key-form").reset();
  adminChosen();
  notify(`Created key ${data.info.id} for ${data.info.admin ? "an admin" : data.info.user_id}.`,
    "info");
  await loadKeys();
}

// The clipboard needs a secure context (loopback counts); without one, select the key so
// that copying by hand is one keystroke.
async function copyKey() {
  const secret = $("#key-secret");
  const button = $("#key-copy");
  try {
    await navigator.clipboard.writeText(secret.textContent);
    button.textContent = "Copied";
    button.classList.add("done");
    notify("The key is on the clipboard: paste it into the client now.", "ok");
  } catch (err) {
    const range = document.createRange();
    range.selectNodeContents(secret);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    notify(`Could not copy (${err.message}): the key is selected, copy it with Ctrl+C.`);
  }
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
  wire: () => {
    $("#key-form").addEventListener("submit", createKey);
    $("#key-admin").addEventListener("change", adminChosen);
    $("#key-copy").addEventListener("click", copyKey);
  },
  // The secret shown once must not outlive the admin's session in this tab.
  reset: () => {
    $("#key-secret").textContent = "";
    $("#key-new").hidden = true;
  },
});
