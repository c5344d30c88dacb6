// Status: the memory system as the agent sees it, and the external provider.
import { $, api, el, guarded, registerScreen, usageBar, when } from "../core.js";

async function loadStatus() {
  const box = $("#status");
  box.replaceChildren(el("p", { class: "loading", text: "Loading…" }));
  const data = await guarded(() => api("GET", "/api/memory/v2/status"));
  if (!data) {
    box.replaceChildren();
    return;
  }
  const ext = data.external;
  const pairs = [
    ["User", data.user_id],
    ["Built-in memory", data.builtin_enabled ? "enabled" : "disabled"],
    ["Prompt injection", data.injection_enabled ? "enabled" : "disabled"],
    ["Memory mode", data.memory_mode],
    ["External provider", `${ext.provider} (${ext.connected ? "connected" : "not connected"})`],
    ["Bank", ext.bank],
    ["Work bank", ext.work_bank ?? "—"],
    ["Entries in its banks", ext.entries ?? "—"],
    ["Last recall hits", ext.last_recall_hits ?? "—"],
    ["Prompt snapshot taken", data.snapshot_taken_at ? when(data.snapshot_taken_at) : "not yet"],
  ];
  if (ext.error) pairs.push(["External error", ext.error]);
  const list = el("dl", { class: "card pairs" });
  for (const [term, value] of pairs) {
    list.append(el("dt", { text: term }), el("dd", { text: String(value) }));
  }
  box.replaceChildren(list, el("div", { class: "card stack" },
    el("h3", { text: "USER.md" }), usageBar(data.char_usage.user, "USER.md"),
    el("h3", { text: "MEMORY.md" }), usageBar(data.char_usage.memory, "MEMORY.md")));
}

registerScreen({ name: "status", label: "Status", load: loadStatus });
