// Audit: reveal attempts, grants, reveals and unlocks of sensitive entries.
import { $, api, el, guarded, registerScreen } from "../core.js";

async function loadAudit() {
  const body = $("#audit-table tbody");
  $("#audit-empty").hidden = true;
  body.replaceChildren(el("tr", {}, el("td", { colspan: 6, class: "loading", text: "Loading…" })));
  const data = await guarded(() => api("GET", "/v1/sensitive/audit", { query: { limit: 100 } }));
  if (!data) {
    body.replaceChildren();
    return;
  }
  body.replaceChildren(...data.items.map((item) => el("tr", {},
    ...[item.seq, item.at, item.entry_id, item.actor, item.action, item.outcome].map((value) =>
      el("td", { text: String(value ?? "") })))));
  $("#audit-empty").hidden = data.items.length > 0;
}

registerScreen({ name: "audit", label: "Audit", load: loadAudit });
