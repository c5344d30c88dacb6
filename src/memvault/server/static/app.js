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
  }
  renderChrome();
  route();
}

function resetScreens() {
  for (const spec of screens.values()) if (spec.reset) spec.reset();
}

function signOut() {
  sessionStorage.removeItem(KEY);
  sessionStorage.removeItem(USER);
  Object.assign(state, { key: null, admin: false, userId: null });
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
  for (const spec of screens.values()) {
    if (spec.admin) $(`#nav a[data-screen="${spec.name}"]`).hidden = !state.admin;
  }
  if (!signedIn) return;
  if (state.admin) {
    $("#who-label").textContent = state.userId ? `admin, acting as ${state.userId}` : "admin";
    $("#act-as-user").value = state.userId || "";
  } else {
    $("#who-label").textContent = `signed in as ${state.userId}`;
  }
}

// -- routing ---------------------------------------------------------------------------

function showScreen(name) {
  for (const node of document.querySelectorAll(".screen")) {
    node.hidden = node.id !== `screen-${name}`;
  }
  for (const link of document.querySelectorAll("#nav a")) {
    link.classList.toggle("active", link.dataset.screen === name);
  }
}

function route() {
  if (!state.key) {
    showScreen("signin");
    return;
  }
  const wanted = screens.get(location.hash.replace("#", ""));
  const spec = wanted && (!wanted.admin || state.admin) ? wanted : screens.get(DEFAULT_SCREEN);
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
  for (const spec of screens.values()) {
    if (!document.getElementById(`screen-${spec.name}`)) main.append(spec.build());
    let link = nav.querySelector(`a[data-screen="${spec.name}"]`);
    if (!link) link = el("a", { href: `#${spec.name}`, dataset: { screen: spec.name } });
    link.textContent = spec.label;
    if (spec.admin) link.hidden = true;
    nav.append(link); // re-appended in registration order
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
  $("#act-as").addEventListener("submit", (event) => {
    event.preventDefault();
    state.userId = $("#act-as-user").value.trim() || null;
    if (state.userId) sessionStorage.setItem(USER, state.userId);
    else sessionStorage.removeItem(USER);
    resetScreens();
    renderChrome();
    route();
  });
  window.addEventListener("hashchange", route);
}

async function start() {
  setUnauthorizedHandler(signOut);
  mount();
  wire();
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
