// Maintenance (admin keys): a dry run first, to see which entries would move down the
// tiers and why, then the real run, which is offered only for what the dry run covered.
import {
  $, api, el, guarded, notify, plural, registerScreen, section, state, when,
} from "../core.js";

// The scope of the last dry run ("" = every user); Run now repeats exactly that one.
let checked = null;

function build() {
  return section("maintenance", "Maintenance",
    el("p", { class: "hint", text: "Maintenance moves entries down the tiers (active → cold → " +
      "archive) once they have been idle longer than their class allows, and folds old " +
      "conversation turns into summaries. Nothing is deleted. Start with a dry run: it " +
      "shows what would change and writes nothing; “Run now” then does it." }),
    el("form", { id: "maint-form", class: "card row" },
      el("label", {}, "Users", el("select", { id: "maint-scope" })),
      el("button", { type: "submit", id: "maint-dry", text: "Dry run" }),
      el("button", { type: "button", id: "maint-run", class: "danger", text: "Run now",
        disabled: true })),
    el("div", { id: "maint-report", class: "stack" }));
}

function scopeOptions() {
  const select = $("#maint-scope");
  const keep = select.value;
  const options = [el("option", { value: "", text: "Every user" })];
  if (state.userId) {
    options.push(el("option", { value: state.userId, text: `Only ${state.userId} (acting user)` }));
  }
  select.replaceChildren(...options);
  select.value = options.some((o) => o.value === keep) ? keep : "";
}

function setChecked(scope) {
  checked = scope;
  $("#maint-run").disabled = scope === null;
  $("#maint-run").title = scope === null ? "Press “Dry run” first" : "";
}

async function run(dryRun) {
  const scope = dryRun ? $("#maint-scope").value : checked;
  const body = { dry_run: dryRun };
  if (scope) body.user_id = scope;
  const button = dryRun ? $("#maint-dry") : $("#maint-run");
  button.disabled = true;
  const report = await guarded(() =>
    api("POST", "/v1/maintenance/run", { body, userIn: "none", fields: { user_id: "Users" } }));
  button.disabled = false;
  if (!report) {
    setChecked(dryRun ? null : checked);
    return;
  }
  renderReport(report, scope);
  if (dryRun) {
    setChecked(scope);
    notify(report.moved || report.compressed
      ? "Dry run done: nothing was written. “Run now” makes these changes (and whatever " +
        "else is due by then)."
      : "Dry run done: nothing would change.", "info");
  } else {
    setChecked(null);
    notify(`Maintenance done: ${plural(report.moved, "entry", "entries")} moved, ` +
      `${plural(report.compressed, "summary", "summaries")} written.`, "ok");
  }
}

function renderReport(report, scope) {
  const verb = report.dry_run ? "would move" : "moved";
  const who = scope ? `user ${scope}` : plural(report.users, "user", "users");
  const folded = report.dry_run ? "would be compressed" : "compressed";
  const head = el("p", { id: "maint-summary", class: "summary", text:
    `${report.dry_run ? "Dry run" : "Run"} as of ${when(report.now)} over ${who}: ` +
    `${plural(report.scanned, "entry", "entries")} looked at, ${report.moved} ${verb}, ` +
    `${plural(report.compressed, "session", "sessions")} ${folded}.` });
  const parts = [head];
  const counts = Object.entries(report.counts);
  if (counts.length) {
    parts.push(el("div", { class: "table-wrap" }, el("table", { id: "maint-counts" },
      el("thead", {}, el("tr", {},
        el("th", { text: "Transition" }), el("th", { text: "Entries" }))),
      el("tbody", {}, ...counts.map(([move, count]) => el("tr", {},
        el("td", { text: move.replace("->", " → ") }), el("td", { text: String(count) })))))));
  }
  if (report.moves.length) {
    parts.push(el("h3", { text: report.dry_run ? "What would move" : "What moved" }));
    parts.push(el("div", { class: "table-wrap" }, el("table", { id: "maint-moves" },
      el("thead", {}, el("tr", {}, ...["User", "Entry", "Move", "Why"].map((name) =>
        el("th", { text: name })))),
      el("tbody", {}, ...report.moves.map((move) => el("tr", { dataset: { entry: move.entry_id } },
        el("td", { text: move.user_id }),
        el("td", {}, el("code", { text: move.entry_id })),
        el("td", { text: `${move.from} → ${move.to}` }),
        el("td", { text: `${move.mem_class} entry idle ${move.idle_days} days` })))))));
    if (report.moves_truncated) {
      parts.push(el("p", { class: "hint", text:
        `The first ${report.moves.length} moves are listed; the counts above are complete.` }));
    }
  } else {
    parts.push(el("p", { class: "empty", text: report.dry_run
      ? "No entry is due to move." : "No entry moved." }));
  }
  if (report.compressions.length) {
    parts.push(el("h3", { text: report.dry_run ? "Sessions to compress" : "Sessions compressed" }));
    parts.push(el("ul", { class: "entries" }, ...report.compressions.map((c) => el("li",
      { class: "entry" }, el("p", { class: "content", text:
        `${c.user_id} · session ${c.session_id}${c.agent_id ? ` · agent ${c.agent_id}` : ""}: ` +
        `${plural(c.sources, "turn", "turns")} into one summary (${c.method})` })))));
  }
  $("#maint-report").replaceChildren(...parts);
}

function load() {
  scopeOptions();
}

function reset() {
  setChecked(null);
  const box = $("#maint-report");
  if (box) box.replaceChildren();
}

registerScreen({
  name: "maintenance",
  label: "Maintenance",
  admin: true,
  perUser: false,
  build,
  load,
  reset,
  wire() {
    $("#maint-form").addEventListener("submit", (event) => {
      event.preventDefault();
      run(true);
    });
    $("#maint-run").addEventListener("click", () => run(false));
    $("#maint-scope").addEventListener("change", () => setChecked(null));
  },
});
