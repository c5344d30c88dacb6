// What every screen of the panel shares: the signed-in state, DOM helpers, the API call
// with its errors, notices, and the screen registry app.js routes between.
// User content is only ever set with textContent or form values, never parsed as HTML.

export const KEY = "memvault.key";
export const USER = "memvault.user";

// features: what the acting user's setup uses (app.js fills it after sign-in).
export const state = {
  key: null, admin: false, userId: null, screen: null,
  features: { files: false, provider: "memvault" },
};

export const $ = (sel) => document.querySelector(sel);

export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (name === "text") node.textContent = value;
    else if (name === "class") node.className = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (name === "dataset") Object.assign(node.dataset, value);
    else if (value !== undefined && value !== null && value !== false) {
      node.setAttribute(name, value === true ? "" : String(value));
    }
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

// SVG elements need their namespace; attributes are set, never markup.
export function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (name === "text") node.textContent = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (value !== undefined && value !== null) node.setAttribute(name, String(value));
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

// "2026-11-30T00:43:02.97+00:00" -> "2026-11-30 00:43:02 UTC" (as the server stores it)
export function when(iso) {
  return iso ? `${iso.slice(0, 19).replace("T", " ")} UTC` : "never";
}

export function plural(count, one, many) {
  return `${count} ${count === 1 ? one : many}`;
}

// fields: the form's labels by HTTP field name, to say the server's message in its words.
export class ApiError extends Error {
  constructor(status, code, message, fields = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.fields = fields;
  }
}

// -- notices ---------------------------------------------------------------------------

export function notify(message, kind = "error") {
  const box = $("#notice");
  box.textContent = message;
  box.className = `notice ${kind}`;
  box.hidden = false;
}

export function clearNotice() {
  $("#notice").hidden = true;
}

// -- the server's words in the panel's --------------------------------------------------
//
// The server names the fields of its HTTP API (`content`, `agent_id`, body.label); a form
// passes api() its labels ({ agent_id: "Agent" }) and the notice names those instead.

const quote = (label) => `“${label}”`;
const escaped = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const MALFORMED = "request is malformed: ";

// One of FastAPI's "body.label: String should have at most 200 characters" problems.
function problemInWords(problem, fields) {
  const found = /^(?:body|query|path)\.([\w.-]+?)(?:\.\d+)?: (.*)$/.exec(problem);
  if (!found || !Object.hasOwn(fields, found[1])) return null;
  const what = found[2] === "Field required" ? "is required"
    : found[2].replace(/^(?:String|Input|Value) should/, "should");
  return `${quote(fields[found[1]])} ${what}`;
}

// A name the server used as a field: quoted or backticked anywhere, at the start of the
// message or of one of its "; " parts ("content: …" loses its colon; "decisions[0]" and
// "fields.branch" name a line and a key of it), or anywhere when it is an identifier.
function renamed(message, name, label) {
  const n = escaped(name);
  const start = (part) => part
    .replace(new RegExp(`^${n}\\[(\\d+)\\]`), (_, i) => `line ${Number(i) + 1} of ${quote(label)}`)
    .replace(new RegExp(`^${n}\\.([\\w.@-]+)`), (_, key) => `${quote(label)} of ${key}`)
    .replace(new RegExp(`^${n}(?::(?= )|(?=[ (]|$))`), quote(label));
  let text = message.split("; ").map(start).join("; ");
  text = text.replace(new RegExp(`[\`'‘]${n}[\`'’]`, "g"), quote(label));
  if (/[_.]/.test(name)) {
    text = text.replace(new RegExp(`(?<![\\w.“])${n}(?![\\w”])`, "g"), quote(label));
  }
  return text;
}

// `message` with the HTTP field names of `fields` said as the form's labels.
export function inPanelWords(message, fields = {}) {
  let text = message;
  if (text.startsWith(MALFORMED)) {
    const problems = text.slice(MALFORMED.length).split("; ");
    const said = problems.map((p) => problemInWords(p, fields));
    const rest = problems.map((p, i) => said[i] || p).join("; ");
    text = said.every(Boolean) ? rest : MALFORMED + rest;
  }
  const names = Object.keys(fields).sort((a, b) => b.length - a.length);
  for (const name of names) text = renamed(text, name, fields[name]);
  return text;
}

// todo: what to do about it, in the panel's words, when the server's message cannot say.
export function showError(err, todo = "") {
  if (err instanceof ApiError) {
    const words = inPanelWords(err.message, err.fields) + (todo ? `: ${todo}` : "");
    notify(`${words} (${err.code}, HTTP ${err.status})`);
  } else {
    notify(`Could not reach the server: ${err.message}`);
  }
}

// -- the API ---------------------------------------------------------------------------

// Who the panel speaks for: the key and the user it acts for.
function identity() {
  return JSON.stringify([state.key, state.userId]);
}

// An answer to a request asked for someone the panel no longer speaks for (signed out, or
// an admin acting for another user since) never reaches the screen that asked: it would
// draw one user's data in front of the next. The caller's promise is left pending; the
// screens were reset when the identity changed, so nothing waits on it.
function unanswered() {
  return new Promise(() => {});
}

// userIn: where an admin's "act as" user goes — "query", "body" or "none" (admin routes).
// raw: return the Response (for downloads) instead of parsed JSON.
// fields: the labels of the form that sent the request, by HTTP field name, for errors.
export async function api(method, path, { query = {}, body, userIn = "query", raw = false,
  text, fields = {} } = {}) {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== "") params.set(name, value);
  }
  const actingAs = state.admin && userIn !== "none";
  const labels = actingAs ? { user_id: "User id", ...fields } : fields; // the "Act as" box
  if (actingAs && state.userId) {
    if (userIn === "body") body = { ...body, user_id: state.userId };
    else params.set("user_id", state.userId);
  }
  // X-Memvault-Client: what the panel writes is recorded with source "panel".
  const headers = { Authorization: `Bearer ${state.key}`, "X-Memvault-Client": "panel" };
  let payload;
  if (text !== undefined) {
    headers["Content-Type"] = "application/x-ndjson";
    payload = text;
  } else if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    payload = JSON.stringify(body);
  }
  const qs = params.toString();
  const asked = identity();
  const res = await fetch(qs ? `${path}?${qs}` : path, { method, headers, body: payload });
  if (identity() !== asked) return unanswered();
  if (res.ok && raw) return res;
  if (res.status === 204) return null;
  let data = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  if (identity() !== asked) return unanswered();
  if (!res.ok) {
    const detail = data && data.error ? data.error : {};
    throw new ApiError(res.status, detail.code || `http_${res.status}`,
      detail.message || res.statusText || "request failed", labels);
  }
  return data;
}

export const SIGN_IN_AGAIN = "paste a live key in “API key” and press “Sign in”";

let onUnauthorized = () => {};

export function setUnauthorizedHandler(handler) {
  onUnauthorized = handler;
}

// Run an action with the notice cleared first and errors shown; a 401 signs out.
export async function guarded(action) {
  clearNotice();
  try {
    return await action();
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      onUnauthorized();
      notify(`Signed out: ${err.message}: ${SIGN_IN_AGAIN}.`);
    } else {
      showError(err);
    }
    return undefined;
  }
}

export function loading(container) {
  const tag = container.tagName === "UL" || container.tagName === "OL" ? "li" : "p";
  container.replaceChildren(el(tag, { class: "loading", text: "Loading…" }));
}

// Two clicks for anything destructive, no native confirm() dialog: the first click arms the
// button (its text becomes `armedText`), the second runs `action`.
export function armed(button, armedText, action) {
  const idle = button.textContent;
  button.addEventListener("click", async () => {
    if (!button.classList.contains("armed")) {
      button.classList.add("armed");
      button.textContent = armedText;
      return;
    }
    button.disabled = true;
    const ok = await action();
    button.disabled = false;
    if (!ok) {
      button.classList.remove("armed");
      button.textContent = idle;
    }
  });
  return button;
}

export function usageBar(usage, label) {
  const percent = Math.min(100, Math.round((usage.chars / Math.max(usage.limit, 1)) * 100));
  const level = percent >= 90 ? "high" : percent >= 70 ? "mid" : "low";
  const fill = el("div", { class: `fill ${level}` });
  fill.style.width = `${percent}%`;
  return el("div", { class: "usage" },
    el("div", {
      class: "track", role: "progressbar", "aria-label": `${label} usage`,
      "aria-valuemin": 0, "aria-valuemax": usage.limit, "aria-valuenow": usage.chars,
    }, fill),
    el("span", { class: "meta", text:
      `${usage.chars} / ${usage.limit} characters (${percent}%) · ${plural(usage.count, "entry",
        "entries")}` }));
}

// -- screens ---------------------------------------------------------------------------
//
// A screen module calls registerScreen({ name, label, load, ... }) when imported:
//   name     the hash (#name) and the section id (screen-name)
//   label    the navigation link's text
//   build()  optional: returns the <section> when index.html has none for it
//   wire()   optional: attach listeners once, at start
//   load()   fill the screen each time it is shown
//   reset()  optional: forget per-user state (search boxes, pages) on sign-out or "Act as"
//   admin    only for admin keys;  perUser: false when it needs no user to act for
//   optional(state)  optional: false leaves the screen out of the menu (a part not set up)
// The order of registration is the order of the navigation.

export const screens = new Map();

export function registerScreen(spec) {
  if (screens.has(spec.name)) throw new Error(`screen ${spec.name} registered twice`);
  screens.set(spec.name, { admin: false, perUser: true, ...spec });
}

export function section(name, title, ...children) {
  return el("section", { id: `screen-${name}`, class: "screen", hidden: true },
    el("h2", { text: title }), ...children);
}

// An entry in an agent's own store is reached through that agent: the query for its routes.
export function agentOf(entry) {
  return entry.agent_id ? { agent_id: entry.agent_id } : {};
}

// -- paging ----------------------------------------------------------------------------

// The Previous / label / Next row whose ids pager() takes: #<name>-prev, -page, -next.
export function pagerRow(name) {
  return el("div", { class: "row pager" },
    el("button", { type: "button", id: `${name}-prev`, class: "quiet", text: "← Previous" }),
    el("span", { id: `${name}-page` }),
    el("button", { type: "button", id: `${name}-next`, class: "quiet", text: "Next →" }));
}

// Answers can come back out of order (a slow first load, then the person picks another
// filter): a screen's loads take a ticket, and only the newest may still draw. Usage:
// `const loads = newest();` once, then in the load: `const current = loads();` before the
// request and `if (!current()) return;` after it.
export function newest() {
  let last = 0;
  return () => {
    const mine = ++last;
    return () => mine === last;
  };
}

// Previous / Next over `view.offset` in steps of `size`, for the list routes' answers
// ({ offset, items, total }). `ids` names the two buttons and the label; the controls show
// once the total reaches `showFrom` (0: always). Call wire() once, show(page) after a load.
export function pager(ids, view, size, load, { showFrom = 1 } = {}) {
  const [prevId, nextId, labelId] = ids;
  return {
    wire() {
      $(prevId).addEventListener("click", () => {
        view.offset = Math.max(0, view.offset - size);
        load();
      });
      $(nextId).addEventListener("click", () => {
        view.offset += size;
        load();
      });
    },
    show(page) {
      const prev = $(prevId);
      const next = $(nextId);
      const shown = Boolean(page) && page.total >= showFrom;
      prev.hidden = next.hidden = !shown;
      const first = page && page.items.length ? page.offset + 1 : 0;
      $(labelId).textContent = shown && page.total
        ? `${first}–${page.offset + page.items.length} of ${page.total}` : "";
      if (!shown) return;
      prev.disabled = page.offset === 0;
      next.disabled = page.offset + page.items.length >= page.total;
    },
  };
}
