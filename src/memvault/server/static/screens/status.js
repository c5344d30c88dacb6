// Status: the memory system as the agent sees it, and the provider that answers searches.
import { $, api, el, guarded, registerScreen, state, usageBar, when } from "../core.js";

async function loadStatus() {
  const box = $("#status");
  box.replaceChildren(el("p", { class: "loading", text: "Loading…" }));
  const data = await guarded(() => api("GET", "/api/memory/v2/status"));
  if (!data) {
    box.replaceChildren();
    return;
  }
  const ext = data.external;
  // Banks and the memory mode are Hindsight's: shown only to a setup that chose it.
  const hindsight = ext.provider === "hindsight";
  const provider = ext.provider === "memvault" ? "memvault, this server" : ext.provider;
  const pairs = [
    ["User", data.user_id],
    ["Prompt injection", data.injection_enabled ? "enabled" : "disabled"],
    ["Search provider", `${provider} (${ext.connected ? "connected" : "not connected"})`],
  ];
  if (hindsight) {
    pairs.push(["Memory mode", data.memory_mode], ["Bank", ext.bank],
      ["Work bank", ext.work_bank ?? "—"], ["Entries in its banks", ext.entries ?? "—"]);
  } else {
    pairs.push(["Memories it searches", ext.entries ?? "—"]);
  }
  pairs.push(["Last recall hits", ext.last_recall_hits ?? "—"]);
  if (state.features.files) {
    pairs.push(["Prompt files", data.builtin_enabled ? "enabled" : "disabled"],
      ["Prompt snapshot taken", data.snapshot_taken_at ? when(data.snapshot_taken_at) : "not yet"]);
  }
  if (ext.error) pairs.push(["External error", ext.error]);
  const list = el("dl", { class: "card pairs" });
  for (const [term, value] of pairs) {
    list.append(el("dt", { text: term }), el("dd", { text: String(value) }));
  }
  if (!state.features.files) {
    box.replaceChildren(list);
    return;
  }
  box.replaceChildren(list, el("div", { class: "card stack" },
    el("h3", { text: "USER.md" }), usageBar(data.char_usage.user, "USER.md"),
    el("h3", { text: "MEMORY.md" }), usageBar(data.char_usage.memory, "MEMORY.md")));
}

registerScreen({ name: "status", label: "Status", load: loadStatus });
