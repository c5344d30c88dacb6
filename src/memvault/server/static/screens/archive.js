// Archive: the memories maintenance moved down the tiers (cold, then archive), one tier at a
// time and paged, each with "Restore" (back to active) and its history.
import {
  $, agentOf, api, el, guarded, loading, newest, notify, pager, pagerRow, plural,
  registerScreen, section, when,
} from "../core.js";
import { historyButton } from "../history.js";

const PAGE = 20;
const TIERS = ["cold", "archive"]; // model.Tier below active
const view = { offset: 0 };
const loads = newest(); // a late answer for a tier no longer chosen draws nothing
const paging = pager(["#archive-prev", "#archive-next", "#archive-page"], view, PAGE, load,
  { showFrom: PAGE + 1 });

function build() {
  const tiers = el("select", { id: "archive-tier", "aria-label": "Tier" },
    ...TIERS.map((tier) => el("option", { value: tier, text: tier })));
  return section("archive", "Archive",
    el("p", { class: "hint", text: "A memory nobody wrote, changed or recalled for its "
      + "class's window goes cold, and after a long idle time into the archive. Recall still "
      + "finds these, after the active ones. “Restore” puts one back in the active tier; the "
      + "change is kept in its history, so “Undo last change” takes it back." }),
    el("div", { class: "row archive-filter" }, el("label", {}, "Tier", tiers)),
    el("p", { id: "archive-summary", class: "summary" }),
    el("ul", { id: "archive-list", class: "entries" }),
    pagerRow("archive"));
}


async function load() {
  const list = $("#archive-list");
  const tier = $("#archive-tier").value;
  const current = loads();
  loading(list);
  $("#archive-summary").textContent = "";
  const data = await guarded(() => api("GET", "/v1/memories",
    { query: { tier, limit: PAGE, offset: view.offset } }));
  if (!current()) return;
  if (!data) {
    list.replaceChildren();
    paging.show(null);
    return;
  }
  if (!data.items.length && view.offset > 0 && data.total > 0) {
    view.offset = Math.floor((data.total - 1) / PAGE) * PAGE; // the page emptied: the last one
    await load();
    return;
  }
  $("#archive-summary").textContent = `${plural(data.total, "memory", "memories")} in ${tier}`;
  list.replaceChildren(...(data.items.length ? data.items.map(archiveItem)
    : [el("li", { class: "empty", text: `No memory is in the ${tier} tier.` })]));
  paging.show(data);
}

function archiveItem(entry) {
  const meta = [
    entry.kind,
    entry.mem_class,
    `tier ${entry.tier}`,
    entry.agent_id && `agent ${entry.agent_id}`,
    `updated ${when(entry.updated_at)}`,
    `last recalled ${when(entry.last_accessed_at)}`,
  ].filter(Boolean);
  const restore = el("button", { type: "button", text: "Restore",
    title: "move it back to the active tier" });
  restore.addEventListener("click", async () => {
    restore.disabled = true;
    const done = await guarded(() => api("PATCH", `/v1/memories/${encodeURIComponent(entry.id)}`,
      { body: { tier: "active", ...agentOf(entry) }, userIn: "body" }));
    restore.disabled = false;
    if (!done) return;
    await load();
    notify("Restored to the active tier: “History” shows the change, and “Undo last change” "
      + "takes it back.", "ok");
  });
  return el("li", { class: "entry", dataset: { id: entry.id } },
    el("span", { class: `badge tier-${entry.tier}`, text: entry.tier }),
    el("p", { class: "content", text: entry.content }),
    el("p", { class: "meta" }, meta.join(" · "), " · ", el("code", { text: entry.id })),
    el("div", { class: "row actions" }, restore, historyButton(entry, load)));
}

function wire() {
  $("#archive-tier").addEventListener("change", () => {
    view.offset = 0;
    load();
  });
  paging.wire();
}

function reset() {
  loads(); // a load still on its way (for the previous user) draws nothing now
  view.offset = 0;
  $("#archive-tier").value = TIERS[0];
  $("#archive-list").replaceChildren();
  $("#archive-summary").textContent = "";
  paging.show(null);
}

registerScreen({ name: "archive", label: "Archive", build, wire, load, reset });
