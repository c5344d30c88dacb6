// The memvault panel: plain ES modules, no framework, no build step, nothing fetched but
// this server's API. This module signs in, draws the navigation from the registered
// screens and routes between them; each screen lives in screens/<name>.js.

import {
  $, ApiError, KEY, SIGN_IN_AGAIN, USER, api, clearNotice, el, notify, screens,
  setUnauthorizedHandler, showError, state,
} from "./core.js";
// Import order is navigation order.
import "./screens/overview.js";
import "./screens/memories.js";
import "./screens/playground.js";
import "./screens/graph.js";
import "./screens/archive.js";
import "./screens/decisions.js";
import "./screens/workspace.js";
import "./screens/files.js";
import "./screens/config.js";
import "./screens/status.js";
import "./screens/audit.js";
import "./screens/account.js";
import "./screens/maintenance.js";
import "./screens/agents.js";
import "./screens/users.js";
import "./screens/keys.js";

const DEFAULT_SCREEN = "overview";
// An admin who has not picked a user yet lands on the list of users.
const ADMIN_LANDING = "users";
// The screens in the bar; every other one is under "More" (seven entries at most, the
// menu counted). An admin's bar trades the user's workspace and account for users and keys.
const BAR = {
  user: ["overview", "memories", "playground", "graph", "workspace", "account"],
  admin: ["users", "overview", "memories", "playground", "graph", "keys"],
};
// A deep link signs in with #key=<key>: the fragment never leaves the browser, and the
// page drops it from the address bar as soon as it has read it.
const KEY_FRAGMENT = /^#key=([^&]+)/;

// -- sign in ---------------------------------------------------------------------------

async function signIn(key) {
  state.key = key;
  try {
    await api("GET", "/v1/keys", { userIn: "none" });
    state.admin = true;
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 403) {
      state.key = null;
      throw err;
    }
    state.admin = false;
  }
  sessionStorage.setItem(KEY, key);
  if (state.admin) {
    state.userId = sessionStorage.getItem(USER);
  } else {
    state.userId = null;
    const status = await api("GET", "/api/memory/v2/status");
    state.userId = status.user_id;
    noteFeatures(status);
  }
  if (state.admin) await loadFeatures();
  renderChrome();
  route();
}

// What the acting user's setup uses: the agent's prompt files (USER.md, MEMORY.md) and
// which provider answers the agent's searches. Screens for a part nobody set up stay out.
function noteFeatures(status) {
  const usage = status.char_usage || {};
  const files = ((usage.user && usage.user.count) || 0) + ((usage.memory && usage.memory.count) || 0);
  state.features = {
    files: files > 0,
    provider: status.external ? status.external.provider : "memvault",
  };
}

async function loadFeatures() {
  state.features = { files: false, provider: "memvault" };
  if (!state.userId) return;
  try {
    noteFeatures(await api("GET", "/api/memory/v2/status"));
  } catch {
    // The screens still work; only the optional ones stay out of the menu.
  }
}

function resetScreens() {
  for (const spec of screens.values()) if (spec.reset) spec.reset();
}

function signOut() {
  sessionStorage.removeItem(KEY);
  sessionStorage.removeItem(USER);
  Object.assign(state, { key: null, admin: false, userId: null,
    features: { files: false, provider: "memvault" } });
  resetScreens();
  $("#signin-key").value = "";
  renderChrome();
  showScreen("signin");
}

function renderChrome() {
  const signedIn = Boolean(state.key);
  $("#nav").hidden = !signedIn;
  $("#who").hidden = !signedIn;
  $("#act-as").hidden = !state.admin;
  arrangeNav();
  if (!signedIn) return;
  if (state.admin) {
    $("#who-label").textContent = state.userId ? `admin, acting as ${state.userId}` : "admin";
    $("#act-as-user").value = state.userId || "";
  } else {
    $("#who-label").textContent = `signed in as ${state.userId}`;
  }
}

function available(spec) {
  if (spec.admin && !state.admin) return false;
  return !spec.optional || spec.optional(state);
}

// The bar's screens in its order, then "More" with the rest in registration order.
function arrangeNav() {
  const nav = $("#nav");
  const menu = $("#nav-more .menu");
  const bar = state.admin ? BAR.admin : BAR.user;
  const more = $("#nav-more");
  let extra = 0;
  for (const spec of screens.values()) {
    const link = nav.querySelector(`a[data-screen="${spec.name}"]`);
    link.hidden = !available(spec);
    if (!bar.includes(spec.name)) {
      menu.append(link);
      if (!link.hidden) extra += 1;
    }
  }
  for (const name of bar) nav.insertBefore(nav.querySelector(`a[data-screen="${name}"]`), more);
  more.hidden = extra === 0;
  // Left open if the person opened it: the menu is drawn again when the features of the
  // user acted for arrive, which may be just after "More" was clicked. Choosing a screen
  // or clicking elsewhere closes it.
  if (more.hidden) more.open = false;
}

// -- routing ---------------------------------------------------------------------------

function showScreen(name) {
  for (const node of document.querySelectorAll(".screen")) {
    node.hidden = node.id !== `screen-${name}`;
  }
  for (const link of document.querySelectorAll("#nav a")) {
    link.classList.toggle("active", link.dataset.screen === name);
  }
  const inMenu = Boolean(document.querySelector(`#nav-more a[data-screen="${name}"]`));
  $("#nav-more summary").classList.toggle("active", inMenu);
  $("#nav-more").open = false;
}

function route() {
  if (!state.key) {
    showScreen("signin");
    return;
  }
  const wanted = screens.get(location.hash.replace("#", ""));
  const landing = state.admin && !state.userId ? ADMIN_LANDING : DEFAULT_SCREEN;
  // A screen named in the address works even when the menu leaves it out (not set up).
  const allowed = wanted && (!wanted.admin || state.admin);
  const spec = allowed ? wanted : screens.get(landing);
  state.screen = spec.name;
  showScreen(spec.name);
  if (spec.perUser && state.admin && !state.userId) {
    notify("Enter the user id to act for in “User id” and press “Act as” (admin key).",
      "info");
    return;
  }
  clearNotice();
  spec.load();
}

// Screens without markup in index.html bring their own section and navigation link.
function mount() {
  const nav = $("#nav");
  const main = $("main");
  const more = el("details", { id: "nav-more", class: "more" },
    el("summary", { text: "More" }), el("div", { class: "menu" }));
  nav.append(more);
  for (const spec of screens.values()) {
    if (!document.getElementById(`screen-${spec.name}`)) main.append(spec.build());
    let link = nav.querySelector(`a[data-screen="${spec.name}"]`);
    if (!link) link = el("a", { href: `#${spec.name}`, dataset: { screen: spec.name } });
    link.textContent = spec.label;
    if (spec.admin) link.hidden = true;
    nav.insertBefore(link, more); // arrangeNav() sorts them into the bar and the menu
    if (spec.wire) spec.wire();
  }
}

function wire() {
  $("#signin-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    clearNotice();
    const key = $("#signin-key").value.trim();
    try {
      await signIn(key);
    } catch (err) {
      showError(err, err instanceof ApiError && err.status === 401 ? SIGN_IN_AGAIN : "");
    }
  });
  $("#sign-out").addEventListener("click", () => {
    signOut();
    notify("Signed out.", "info");
  });
  $("#act-as").addEventListener("submit", async (event) => {
    event.preventDefault();
    state.userId = $("#act-as-user").value.trim() || null;
    if (state.userId) sessionStorage.setItem(USER, state.userId);
    else sessionStorage.removeItem(USER);
    resetScreens();
    renderChrome();
    route();
    await loadFeatures(); // then the menu shows the optional screens this user has
    renderChrome();
  });
  window.addEventListener("hashchange", () => {
    if (KEY_FRAGMENT.test(location.hash)) start();
    else route();
  });
  // A screen that learns the setup uses a part redraws the menu (files.js).
  document.addEventListener("memvault:features", () => {
    arrangeNav();
    showScreen(state.screen);
  });
  // A click outside the open menu closes it.
  document.addEventListener("click", (event) => {
    const more = $("#nav-more");
    if (more.open && !more.contains(event.target)) more.open = false;
  });
}

// The key of a #key=... link, with the fragment dropped from the address and history.
function keyFromFragment() {
  const found = KEY_FRAGMENT.exec(location.hash);
  if (!found) return null;
  history.replaceState(null, "", location.pathname + location.search);
  try {
    return decodeURIComponent(found[1]).trim() || null;
  } catch {
    return null;
  }
}

let mounted = false;

async function start() {
  if (!mounted) {
    setUnauthorizedHandler(signOut);
    mount();
    wire();
    mounted = true;
  }
  const linked = keyFromFragment();
  if (linked) {
    sessionStorage.setItem(KEY, linked);
    sessionStorage.removeItem(USER);
  }
  const saved = sessionStorage.getItem(KEY);
  if (!saved) {
    signOut();
    return;
  }
  try {
    await signIn(saved);
  } catch (err) {
    signOut();
    showError(err, err instanceof ApiError && err.status === 401 ? SIGN_IN_AGAIN : "");
  }
}

start();
