// kingsheet on a phone: the live sheet, the next deal, corrections, the money, a new game.
// Every word comes from the server (its catalog); every name is written as text, never as markup.
// One page, two transports: HTTP to `kingsheet serve`, or (in the phone app of `kingsheet site`)
// kingsheet's Python in a worker, given by site.js as window.KS_TRANSPORT. Both answer the same
// questions with the same functions (kingsheet.table.actions).
"use strict";

const $ = (id) => document.getElementById(id);
let S = null;            // the latest state from /api/state
let view = "sheet";
let lang = localStorage.getItem("kingsheet-lang") || document.documentElement.lang || "ru";
let mode = "points";     // or "taken" (what each took, for games that count several things)
let editing = null;      // the number of the deal being corrected, or null for the next deal
let formFor = null;      // the deal number the form was filled for: another phone may take it
let source = null;       // the live stream
// A save refused because the sheet changed meanwhile (409): its sentence stays on this phone until the
// person acts again, not wiped by the live stream's redraw a moment later (the other phone's deal).
let told = "";
// this phone's own deal on its way: a redraw asked meanwhile (another tab, Python just started) waits
// for its answer, which redraws the sheet itself, so that it is never taken for another phone's deal
let submitting = false, reloadAsked = false;
// The token came in the printed address; it goes out in a header, never in a cookie (a cookie
// reaches every port of the host). Only the stream and the downloads, which cannot add a header,
// carry it in the address.
const TOKEN = new URLSearchParams(location.search).get("t") || "";
const LOCAL = window.KS_TRANSPORT || null;  // the phone app: no server
// The phone app (kingsheet site) sent the phone here to photograph the blank: its address, to go
// back to with the checked sheet (HTTPS, or this computer's own). A phone app cannot send the photo
// itself: an HTTPS page may not fetch from a plain-HTTP address on the Wi-Fi, but it may go there.
const FOR_APP = LOCAL ? null : appAddress(new URLSearchParams(location.hash.slice(1)).get("app"));
const APP_PLAYERS = (() => {
  try {
    const given = JSON.parse(new URLSearchParams(location.hash.slice(1)).get("players") || "[]");
    return Array.isArray(given) ? given.filter((n) => typeof n === "string").map((n) => n.slice(0, 60)) : [];  // a name at most NAME_LIMIT (core.game)
  } catch (e) { return []; }
})();
const READ_KEY = "kingsheet-read";  // the sheet the computer read, as it came back to the phone app
// The app takes a sheet back only from the page it sent the phone to: a one-time word it made then
// comes back with the sheet (a link from any other page lacks it), and the computer it went to is
// what the app names as the sheet's source (never what the link says).
const PENDING_KEY = "kingsheet-read-pending";
const FROM_KEY = "kingsheet-read-from";
const READ_SECONDS = 3600;  // a photo read and confirmed within an hour of leaving the app
const APP_NONCE = (() => {
  const n = new URLSearchParams(location.hash.slice(1)).get("nonce") || "";
  return /^[0-9a-f]{32}$/.test(n) ? n : "";
})();

function appAddress(given) {
  if (!given) return null;
  try {
    const u = new URL(given);
    const own = ["localhost", "127.0.0.1", "[::1]"].includes(u.hostname);
    if (u.protocol !== "https:" && !(u.protocol === "http:" && own)) return null;
    u.hash = "";
    return u;
  } catch (e) { return null; }
}

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}
function fill(template, values) {
  return template.replace(/\{(\w+)\}/g, (m, k) => (k in values ? String(values[k]) : m));
}
// the languages the catalog speaks (kingsheet.core.i18n.LANGUAGES), as the words say: the button
// offers the next one
function languages() { const l = W("languages"); return l === "languages" ? ["ru", "en"] : l.split(","); }
function nextLanguage() { const all = languages(); return all[(all.indexOf(lang) + 1) % all.length]; }
function W(key) { return (S && S.words && S.words[key]) || key; }
function url(path) { return path + (path.includes("?") ? "&" : "?") + "lang=" + encodeURIComponent(lang); }
function tokenUrl(path) { return url(path) + "&t=" + encodeURIComponent(TOKEN); }

async function api(path, body) {
  if (LOCAL) return LOCAL.call(path, body, lang);
  const headers = {"X-Kingsheet-Token": TOKEN};
  const opts = body === undefined ? {headers} : {
    method: "POST", headers: {...headers, "Content-Type": "application/json"}, body: JSON.stringify(body)};
  opts.credentials = "omit";
  let res;
  try {
    res = await fetch(url(path), opts);
  } catch (e) {  // no network (a phone asleep, out of the Wi-Fi): said, and tried again by the stream
    $("offline").hidden = false;
    $("offline").textContent = W("offline");
    return {status: 0, data: {ok: false, error: W("offline")}};
  }
  $("offline").hidden = true;
  let data = null;
  try { data = await res.json(); } catch (e) { data = {ok: false, error: res.statusText}; }
  return {status: res.status, data};
}

async function load() {
  if (submitting) { reloadAsked = true; return; }
  const {status, data} = await api("/api/state");
  if (LOCAL && data.none) {  // the phone app with no game open: the list of games, or a new one
    S = data;
    if (view === "sheet" || view === "money") {  // a fresh phone opens where a first game is started
      let stored = [];
      try { stored = await LOCAL.games(); } catch (e) { stored = []; }
      view = stored.length ? "games" : "new";
    }
    render();
    if (view === "games") renderGames();
    if (view === "new") { loadRules(); renderBack(); }
    return;
  }
  if (status === 0) return;  // offline: the sheet as last seen stays
  const before = S;
  S = data;
  document.documentElement.lang = S.lang || lang;
  let typed = null;
  if (before && before.deals !== S.deals && formFor !== null && editing === null &&
      S.next && S.next.number !== formFor && before.deals < S.deals) {
    // another phone (or a terminal) saved the deal being typed here: what was typed stays, and
    // the phone says so, rather than the numbers vanishing under the person's thumbs
    typed = typedValues();
    const kept = typed.values.some((v) => v.value !== "");
    notice(fill(W(kept ? "elsewhere_kept" : "elsewhere"), {number: formFor}));
    resetForm();
  }
  render();
  if (typed) restoreTyped(typed);
  if (view === "money") loadMoney();
  if (LOCAL && view === "new" && sessionStorage.getItem(READ_KEY)) { loadRules(); renderBack(); }
}

function typedValues() {
  return {mode, values: [...$("cells").querySelectorAll("input")].map(
    (i) => ({player: i.dataset.player, count: i.dataset.count || null, value: i.value}))};
}

function restoreTyped(typed) {
  if (typed.mode !== mode && gameInfo($("game").value).counts.length) {
    mode = typed.mode;
    buildInputs(target());
    renderForm();
  }
  for (const i of $("cells").querySelectorAll("input")) {
    const was = typed.values.find((v) => v.player === i.dataset.player && v.count === (i.dataset.count || null));
    if (was) i.value = was.value;
  }
}

function notice(text) {
  const n = $("notice");
  n.textContent = text;
  n.hidden = !text;
}

function render() {
  $("tab-sheet").textContent = W("sheet");
  $("tab-money").textContent = W("money");
  $("tab-new").textContent = W("new");
  $("lang").textContent = nextLanguage().toUpperCase();
  $("lang").setAttribute("aria-label", W("language"));
  for (const b of document.querySelectorAll(".tab")) {
    b.classList.toggle("on", b.dataset.view === view);
    b.setAttribute("aria-current", b.dataset.view === view ? "page" : "false");
  }
  for (const e of document.querySelectorAll(".site-only")) e.hidden = !LOCAL;
  for (const e of document.querySelectorAll(".server-only")) e.hidden = !!LOCAL;
  $("photo-back").hidden = !LOCAL || !sessionStorage.getItem(READ_KEY);
  for (const v of ["sheet", "money", "new", "games", "club", "table"]) $("view-" + v).hidden = v !== view;
  $("tab-club").textContent = W("club");
  $("tab-games").textContent = W("games");
  if (window.KS_TABLE) window.KS_TABLE.render();
  if (!LOCAL) {
    $("pdf").href = tokenUrl("/download/pdf");
    $("xlsx").href = tokenUrl("/download/xlsx");
    $("toml").href = tokenUrl("/download/toml");
  }
  $("share").textContent = W("share");
  $("print").textContent = W("print");
  $("undo").textContent = W("undo");
  if (LOCAL) {  // Python starting: the stored sheet is shown, the form waits for it
    $("save").disabled = !!S.failed;  // while Python starts, a deal is taken and checked once it is up
    if (S.waiting || S.failed) notice(S.failed || W("loading"));
    else if ($("notice").textContent === W("loading")) notice("");
  }
  if (!S.ok) {
    $("title").textContent = "kingsheet";
    $("error").hidden = false;
    $("error").textContent = S.error;
    return;
  }
  $("title").textContent = S.title;
  showTold();
  renderSheet();
  renderForm();
}

function renderSheet() {
  const t = $("sheet");
  t.replaceChildren();
  // a real table for a screen reader: its caption, header cells with their scope, each mark in words
  t.append(el("caption", S.title + ". " + S.status, "sr"));
  const head = el("tr");
  for (const h of [W("deal"), W("game"), W("points"), ...S.players, "✓"]) {
    const th = el("th", h);
    th.scope = "col";
    head.append(th);
  }
  t.append(head);
  for (const r of S.rows) {
    const tr = el("tr");
    if (r.played) tr.classList.add("played");
    if (r.played && !r.ok) tr.classList.add("bad");
    if (S.next && r.number === S.next.number && editing === null) tr.classList.add("next");
    if (r.stage_start) tr.classList.add("stage");
    tr.append(el("td", r.number, "n"), el("td", r.game, "g"), el("td", r.points === null ? "" : r.points, "n"));
    for (const c of r.cells) tr.append(el("td", c, "n"));
    const mark = el("td", r.played ? (r.ok ? "✓" : "✗") : "", "mark");
    if (r.played) mark.append(el("span", " " + (r.ok ? W("row_ok") : (r.mark || W("row_bad"))), "sr"));
    if (r.played && !r.ok) mark.title = r.mark;
    tr.append(mark);
    if (r.played) {  // a played row opens for correction: by a tap, or by Enter where it has the focus
      tr.tabIndex = 0;
      tr.setAttribute("aria-label", fill(W("edit"), {number: r.number, game: r.game}));
      tr.addEventListener("click", () => startEdit(r.number));
      tr.addEventListener("keydown", (ev) => { if (ev.key === "Enter") startEdit(r.number); });
    }
    t.append(tr);
  }
  for (const row of S.totals) {
    const tr = el("tr", null, "sum");
    tr.append(el("td", ""), el("td", row[0], "g"), el("td", ""));
    for (const v of row.slice(1)) tr.append(el("td", v, "n"));
    tr.append(el("td", ""));
    t.append(tr);
  }
  $("problems").replaceChildren(...S.problems.map((p) => el("li", p)));
  $("status").textContent = S.status;
  $("hint").textContent = S.deals ? W("tap_to_edit") : "";
  $("undo").disabled = S.deals === 0;
  $("complete").hidden = !S.complete || editing !== null;
  // a finished sheet with problems is not a success: said so, not in green
  $("complete").textContent = S.sheet_ok === false ? W("complete_problems") : W("complete");
  $("complete").className = S.sheet_ok === false ? "error" : "done";
}

function target() {
  if (editing !== null) {
    const r = S.rows.find((x) => x.number === editing);
    return {number: editing, game: r.game_id, row: r};
  }
  if (!S.next) return null;
  return {number: S.next.number, game: S.next.game, row: null};
}

function gameInfo(id) { return S.games.find((g) => g.id === id) || S.games[0]; }

function renderForm() {
  const form = $("deal");
  const t = target();
  form.hidden = t === null;
  if (t === null) return;
  const select = $("game");
  const keep = formFor === t.number && select.value;
  if (!keep) {
    select.replaceChildren(...S.games.map((g) => { const o = el("option", g.label + " (" + g.total + ")"); o.value = g.id; return o; }));
    select.value = t.game || S.games[0].id;
    formFor = t.number;
    buildInputs(t);
  }
  select.disabled = editing === null && t.game !== null;
  $("game-label").textContent = W("game");
  const g = gameInfo(select.value);
  $("deal-head").textContent = editing !== null ? fill(W("edit"), {number: t.number, game: g.label})
    : (t.game ? fill(W("next"), {number: t.number, game: g.label, dealer: S.next.dealer})
      : fill(W("next_free"), {number: t.number, dealer: S.next.dealer}));
  $("save").textContent = editing !== null ? W("save_edit") : W("save");
  $("cancel").textContent = W("cancel");
  $("cancel").hidden = editing === null;
  $("mode").hidden = g.counts.length === 0;
  $("mode-points").textContent = W("by_points");
  $("mode-taken").textContent = W("taken");
  $("mode-points").classList.toggle("on", mode === "points");
  $("mode-taken").classList.toggle("on", mode === "taken");
}

function numberInput(value) {
  const i = el("input");
  i.type = "text";
  i.inputMode = "numeric";
  i.pattern = "[0-9]*";
  i.value = value === undefined || value === null ? "" : String(value);
  return i;
}

function buildInputs(t) {
  const g = gameInfo($("game").value);
  if (g.counts.length === 0) mode = "points";
  const cells = $("cells");
  cells.replaceChildren();
  const values = t.row && t.row.values ? t.row.values : null;
  if (mode === "taken") {
    // a count a row, a player a column: four or five players fit a phone's width, six counts do not
    const grid = el("table", null, "grid");
    const head = el("tr");
    head.append(el("th", ""));
    for (const p of S.players) head.append(el("th", p));
    grid.append(head);
    for (const c of g.counts) {
      const tr = el("tr");
      tr.append(el("th", W("count_" + c)));
      S.players.forEach((p, i) => {
        const inp = numberInput("");
        inp.dataset.player = i;
        inp.dataset.count = c;
        inp.setAttribute("aria-label", p + ": " + W("count_" + c));
        tr.append(el("td"));
        tr.lastChild.append(inp);
      });
      grid.append(tr);
    }
    cells.append(grid);
  } else {
    S.players.forEach((p, i) => {
      const line = el("label", null, "cell");
      const sign = g.sign === -1 ? "−" : (g.sign === 1 ? "+" : "");
      const v = values ? values[i] : "";
      const inp = numberInput(values ? (g.sign === null ? v : Math.abs(v)) : "");
      if (g.sign === null) { inp.inputMode = "text"; inp.removeAttribute("pattern"); }
      inp.dataset.player = i;
      line.append(el("span", p, "name"), el("span", sign, "sign"), inp);
      cells.append(line);
    });
  }
  const extras = $("extras");
  extras.replaceChildren();
  const old = t.row;
  for (const key of [...g.extras, "note"]) {
    const label = el("label", null, "row");
    label.append(el("span", W(key)));
    const field = fieldOf(key);
    let input;
    if (field.kind === "player") {
      input = el("select");
      if (key === "buyer") { const o = el("option", W("nobody")); o.value = ""; input.append(o); }
      for (const p of S.players) { const o = el("option", p); o.value = p; input.append(o); }
      input.value = key === "buyer" ? "" : (old && old.who ? old.who : (S.next ? S.next.on_turn : S.players[0]));
    } else if (field.kind === "whole") {
      input = numberInput("");
      input.maxLength = String(field.limit).length;
    } else {
      input = el("input");
      input.type = "text";
      input.maxLength = field.limit;
    }
    input.id = "x-" + key;
    label.append(input);
    extras.append(label);
  }
  showTold();
}

function showTold() {
  $("error").hidden = !told;
  if (told) $("error").textContent = told;
}

function resetForm() { formFor = null; editing = null; mode = "points"; }

function startEdit(number) {
  told = "";
  editing = number;
  formFor = null;
  mode = "points";
  notice("");
  render();
  $("deal").scrollIntoView({behavior: "smooth"});
}

function collect() {
  const t = target();
  const body = {seen: S.deals, game: $("game").value};
  if (editing !== null) body.number = editing;
  if (mode === "taken") {
    body.taken = S.players.map(() => ({}));
    for (const inp of $("cells").querySelectorAll("input")) {
      const v = inp.value.trim();
      if (v !== "") body.taken[+inp.dataset.player][inp.dataset.count] = /^\d+$/.test(v) ? +v : v;
    }
  } else {
    body.points = [...$("cells").querySelectorAll("input")].map((i) => i.value.trim());
  }
  for (const inp of $("extras").querySelectorAll("input, select")) {
    const key = inp.id.slice(2);
    if (inp.value.trim() !== "") body[key] = fieldOf(key).kind === "whole" && /^\d+$/.test(inp.value.trim()) ? +inp.value.trim() : inp.value.trim();
  }
  return {t, body};
}

async function submit(ev) {
  ev.preventDefault();
  told = "";
  const {body} = collect();
  $("save").disabled = true;
  submitting = true;
  try {
    const {status, data} = await api(editing !== null ? "/api/edit" : "/api/deal", body);
    submitting = false;
    if (data.ok) {
      notice(data.message);
      resetForm();
      await load();
      return;
    }
    $("error").hidden = false;
    $("error").textContent = data.error;
    if (status === 409) {  // another phone or tab wrote first: told, and the numbers typed stay
      told = data.error;
      const typed = editing === null ? typedValues() : null;
      resetForm();
      await load();
      if (typed) restoreTyped(typed);
      showTold();
      if (S && S.complete) notice(data.error);  // the form is gone on a full sheet: said where it shows
    }
  } finally {
    submitting = false;
    $("save").disabled = false;
    if (reloadAsked) { reloadAsked = false; load(); }
  }
}

async function undo() {
  if (!window.confirm(W("undo_confirm"))) return;
  const {data} = await api("/api/undo", {seen: S.deals});
  notice(data.ok ? data.message : data.error);
  resetForm();
  await load();
}

async function loadMoney() {
  const {data} = await api("/api/money");
  const box = $("money");
  box.replaceChildren();
  box.className = "money";
  $("money-final").hidden = data.final !== false;
  $("money-final").textContent = W("not_final");
  if (!data.ok) { box.append(el("p", data.error, "error")); return; }
  for (const method of ["pairwise", "pot"]) {
    const m = data[method];
    box.append(el("h3", W(method) + " · " + W("stake") + " " + m.stake));
    const t = el("table");
    const head = el("tr");
    for (const [h, cls] of [[W("player"), ""], [W("total_word"), "n"], [W("balance"), "n"]]) head.append(el("th", h, cls));
    t.append(head);
    for (const [name, total, bal] of m.rows) {
      const tr = el("tr");
      tr.append(el("td", name), el("td", total, "n"), el("td", bal, "n"));
      t.append(tr);
    }
    box.append(t);
    if (m.pairs && m.pairs.length) {  // pair by pair: what every pair settles, before the fewest transfers
      box.append(el("h3", W("pairs")), payments(m.pairs));
    }
    box.append(el("h3", W("transfers")), payments(m.transfers));
    for (const n of m.notes) box.append(el("p", n, "hint"));
  }
}

// who pays whom, a line each (or that nobody owes anything)
function payments(list) {
  const t = el("table");
  if (list.length === 0) t.append(el("tr")), t.lastChild.append(el("td", W("nobody_owes")));
  for (const [from, to, amount] of list) {
    const tr = el("tr");
    tr.append(el("td", from + " → " + to), el("td", amount, "n"));
    t.append(tr);
  }
  return t;
}

async function loadRules() {
  const {data} = await api("/api/rules");
  if (!Array.isArray(data)) return;  // offline: the form stays as it was
  const select = $("rules");
  select.replaceChildren(...data.map((r) => { const o = el("option", r.name + " (" + r.id + ")"); o.value = r.id; o.dataset.players = r.players; return o; }));
  // the open game's rules, else the paper blank most tables play (blank-4), else the first
  const known = (id) => id && data.some((r) => r.id === id);
  select.value = known(S && S.rules) ? S.rules : known("blank-4") ? "blank-4" : data[0].id;
  renderNames();
  $("rules-label").textContent = W("rules");
  $("players-label").textContent = W("players_in_order");
  $("stake-label").textContent = W("stake");
  $("template-label").textContent = W("template_in");
  $("photo-head").textContent = W("photo_head");
  $("photo-take").textContent = W("photo_take");
  $("photo-hint").textContent = W("photo_hint");
  $("photo-keep").textContent = FOR_APP ? fill(W("photo_to_app"), {host: FOR_APP.host}) : W("photo_keep");
  $("photo-for-app").hidden = !FOR_APP;
  if (FOR_APP) $("photo-for-app").textContent = fill(W("photo_for_app"), {host: FOR_APP.host});
  $("photo-app-head").textContent = W("photo_head");
  $("photo-app-hint").textContent = W("photo_app_hint");
  $("computer-label").textContent = W("computer");
  if (!$("computer").value) $("computer").value = localStorage.getItem("kingsheet-computer") || "";
  $("photo-go").textContent = W("photo_take");
  $("start").textContent = W("start");
}

// a deal's fields and a name's limit as the game file takes them: the table sent in `state`
// (core.game.DEAL_EXTRAS); before the first state, a text of the file's longest
function fieldOf(key) {
  return ((S && S.fields) || []).find((f) => f.name === key) || {name: key, kind: "text", limit: 500};
}
function nameLimit() { return (S && S.name_limit) || 60; }

function renderNames() {
  const select = $("rules");
  const n = +(select.selectedOptions[0] ? select.selectedOptions[0].dataset.players : 4);
  const box = $("names");
  const old = [...box.querySelectorAll("input")].map((i) => i.value);
  box.replaceChildren();
  for (let i = 0; i < n; i++) {
    const inp = el("input");
    inp.type = "text";
    inp.maxLength = nameLimit();
    inp.value = old[i] !== undefined ? old[i] : (S && S.players && S.players[i]) || "";
    inp.setAttribute("aria-label", W("player") + " " + (i + 1));
    const line = el("label", null, "cell");
    line.append(el("span", String(i + 1), "name"), inp);
    inp.style.width = "70%";
    box.append(line);
  }
}

async function startGame(ev) {
  ev.preventDefault();
  // the names are the last game's, to save typing: a tap too quick must not leave an unfinished game
  if (S && S.ok && !S.none && S.deals > 0 && !S.complete
      && !window.confirm(fill(W("new_confirm"), {title: S.title || S.file, deals: S.deals}))) return;
  const body = {rules: $("rules").value, players: [...$("names").querySelectorAll("input")].map((i) => i.value),
    stake: $("stake").value};
  const template = LOCAL && $("template").files[0];
  if (template) body.template = {name: template.name, text: await template.text()};
  await toNewGame((await api("/api/new", body)).data, "new-error");
}

// a new game made (typed, photographed or brought in): its sheet shown; else the reason, where it was asked
async function toNewGame(data, errorBox) {
  $(errorBox).hidden = !!data.ok;
  if (!data.ok) { $(errorBox).textContent = data.error; return false; }
  notice(data.message);
  resetForm();
  view = "sheet";
  await load();
  return true;
}

function show(v) {
  if (view === "table" && v !== "table" && window.KS_TABLE) window.KS_TABLE.leave();  // the camera off
  view = v;
  render();
  if (v === "table" && window.KS_TABLE) window.KS_TABLE.render();
  if (v === "money") loadMoney();
  if (v === "new") { loadRules(); renderBack(); }
  if (v === "games") renderGames();
  if (v === "club") loadClub();
}

// ---- a photographed blank: read on the computer, confirmed here, kept as a new game --------------

let photoRead = null;

function asDataUrl(file) {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(String(r.result));
    r.onerror = () => reject(r.error);
    r.readAsDataURL(file);
  });
}

async function readPhoto() {
  const files = [...$("photo-in").files];
  $("photo-in").value = "";
  if (!files.length) return;
  $("photo-error").hidden = true;
  $("photo-rows").replaceChildren(el("p", W("photo_reading"), "hint"));
  $("photo-names").replaceChildren();
  $("photo-keep").hidden = true;
  $("photo-fill").hidden = true;
  const {data} = await api("/api/photo", {photos: await Promise.all(files.map(asDataUrl))});
  $("photo-rows").replaceChildren();
  if (!data.ok) { $("photo-error").hidden = false; $("photo-error").textContent = data.error; return; }
  photoRead = data;
  const box = $("photo-rows");
  box.append(el("p", data.name + " (" + data.rules + ")", "hint"));
  for (const line of data.summary.filter((l) => !/^\s*\d/.test(l))) box.append(el("p", line, "hint"));
  for (const r of data.rows) {
    const line = el("div", null, r.sure ? "read sure" : "read unsure");
    line.append(el("div", r.number + " · " + r.game + ": " + r.cells.join(" ")
      + (r.sure ? "  ✓" + (r.corrected ? " " + W("photo_corrected") : "") : r.doubted ? "  ? " + W("photo_read_well") : "  ?")));
    if (!r.sure) {
      if (r.crop) { const img = el("img"); img.src = r.crop; img.alt = W("photo_paper"); img.className = "crop"; line.append(img); }
      const pick = el("select");
      pick.dataset.number = r.number;
      r.options.forEach(([game, cells], k) => { const o = el("option", (game === r.game ? "" : game + ": ") + cells.join(" ")); o.value = String(k); pick.append(o); });
      const leave = el("option", W("photo_leave")); leave.value = "leave"; pick.append(leave);
      const typed = el("input");
      typed.type = "text";
      typed.inputMode = "text";
      typed.placeholder = W("photo_typed");
      typed.dataset.number = r.number;
      typed.maxLength = 120;
      line.append(pick, typed);
    }
    box.append(line);
  }
  const names = $("photo-names");
  names.append(el("p", W("players_in_order"), "hint"));
  // the players of the game open on the phone app that sent the phone here, else of this page's game
  const known = FOR_APP && APP_PLAYERS.length ? APP_PLAYERS : (S && S.players) || [];
  for (let i = 0; i < data.players; i++) {
    const inp = el("input");
    inp.type = "text";
    inp.maxLength = nameLimit();
    inp.value = known.length === data.players ? known[i] : "";
    inp.setAttribute("aria-label", W("player") + " " + (i + 1));
    const line = el("label", null, "cell");
    line.append(el("span", String(i + 1), "name"), inp);
    names.append(line);
  }
  $("photo-keep").hidden = false;
  // the open game, played by the same rules, has not played every row the photo holds: fill them in
  // (not for the phone app: its game is on the phone, and is filled in there)
  $("photo-fill").hidden = !data.fill || !!FOR_APP;
  if (data.fill) $("photo-fill").textContent = fill(W("photo_fill"), data.fill);
}

// each unsure row as the person chose it: a reading, the row typed in, or left marked
function photoChoices() {
  const choices = {};
  for (const sel of $("photo-rows").querySelectorAll("select")) {
    const typed = $("photo-rows").querySelector(`input[data-number="${sel.dataset.number}"]`).value.trim();
    if (typed) choices[sel.dataset.number] = {typed};
    else if (sel.value !== "leave") choices[sel.dataset.number] = {option: +sel.value};
  }
  return choices;
}

function photoDone() {  // the reading is used up: the form is cleared for the next blank
  photoRead = null;
  $("photo-rows").replaceChildren();
  $("photo-names").replaceChildren();
  $("photo-keep").hidden = true;
  $("photo-fill").hidden = true;
}

async function keepPhoto(ev) {
  ev.preventDefault();
  if (!photoRead) return;
  const players = [...$("photo-names").querySelectorAll("input")].map((i) => i.value);
  const body = {read: photoRead.read, players, choices: photoChoices()};
  if (FOR_APP) {  // the checked sheet goes back to the phone app, which keeps it; nothing is kept here
    const {data} = await api("/api/photo/text", body);
    $("photo-error").hidden = !!data.ok;
    if (!data.ok) { $("photo-error").textContent = data.error; return; }
    photoDone();
    location.assign(FOR_APP.href + "#" + new URLSearchParams({[READ_KEY]: data.text, nonce: APP_NONCE}));
    return;
  }
  const {data} = await api("/api/photo/keep", body);
  if (data.ok) photoDone();
  await toNewGame(data, "photo-error");
}

// ---- the phone app: the photo is read by a computer running kingsheet serve, and comes back ----

function toComputer(ev) {
  ev.preventDefault();
  const box = $("photo-app-error");
  let u = null;
  try { u = new URL($("computer").value.trim()); } catch (e) { u = null; }
  const token = u && u.searchParams.get("t");
  if (!u || !["http:", "https:"].includes(u.protocol) || !token) {
    box.hidden = false;
    box.textContent = W("computer_bad");
    return;
  }
  box.hidden = true;
  localStorage.setItem("kingsheet-computer", u.href);
  const here = new URL(location.href);
  here.hash = "";
  here.search = "";
  const players = S && S.ok && Array.isArray(S.players) ? S.players : [];
  const nonce = [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, "0")).join("");
  localStorage.setItem(PENDING_KEY, JSON.stringify({nonce, computer: u.host, at: Date.now()}));
  location.assign(u.origin + u.pathname + "?" + new URLSearchParams({t: token, lang}) + "#"
    + new URLSearchParams({app: here.href, players: JSON.stringify(players), nonce}));
}

// the sheet came back in the address: kept for this tab until it is saved or dropped (a reload
// keeps it), the address cleared; it is never taken in without a tap
function arrived() {
  if (!LOCAL) return false;
  const params = new URLSearchParams(location.hash.slice(1));
  const text = params.get(READ_KEY);
  if (text === null) return false;
  history.replaceState(null, "", location.pathname + location.search);
  let pending = null;
  try { pending = JSON.parse(localStorage.getItem(PENDING_KEY) || "null"); } catch (e) { pending = null; }
  const fresh = pending && typeof pending.nonce === "string" && typeof pending.computer === "string"
    && Date.now() - Number(pending.at) < READ_SECONDS * 1000;
  if (!fresh || params.get("nonce") !== pending.nonce) {  // not from the page this app opened
    pendingNotice = "photo_foreign";
    return false;
  }
  localStorage.removeItem(PENDING_KEY);  // good for one sheet
  sessionStorage.setItem(READ_KEY, text.slice(0, 4 * 1024 * 1024));
  sessionStorage.setItem(FROM_KEY, pending.computer.slice(0, 300));
  view = "new";
  return true;
}
let pendingNotice = null;

let backFill = null;
async function renderBack() {
  const text = sessionStorage.getItem(READ_KEY);
  if (!LOCAL || !text || !LOCAL.isReady()) return;
  $("photo-back-head").textContent = W("photo_back");
  $("photo-back-new").textContent = W("photo_keep");
  $("photo-back-drop").textContent = W("photo_drop");
  const {data} = await api("/app/photo", {text});
  $("photo-back-error").hidden = !!data.ok;
  $("photo-back-new").hidden = !data.ok;
  if (!data.ok) {
    $("photo-back-error").textContent = data.error;
    $("photo-back-what").textContent = "";
    $("photo-back-fill").hidden = true;
    return;
  }
  $("photo-back-what").textContent = data.name + " (" + data.rules + "): " + fill(W("photo_rows"), {rows: data.deals})
    + " " + fill(W("photo_from"), {host: sessionStorage.getItem(FROM_KEY) || "?"});
  backFill = data.fill;
  $("photo-back-fill").hidden = !data.fill;
  if (data.fill) $("photo-back-fill").textContent = fill(W("photo_fill"), data.fill);
}

function backDone() {
  sessionStorage.removeItem(READ_KEY);
  sessionStorage.removeItem(FROM_KEY);
  backFill = null;
  $("photo-back").hidden = true;
}

async function backAsNew() {
  const text = sessionStorage.getItem(READ_KEY);
  if (!text) return;
  const data = await LOCAL.bringIn(new File([text], "photo.toml", {type: "application/toml"}), lang);
  if (data.ok) backDone();
  await toNewGame(data, "photo-back-error");
}

async function backFillIn() {
  const text = sessionStorage.getItem(READ_KEY);
  if (!text || !backFill) return;
  const {data} = await api("/app/photo/fill", {text, seen: backFill.seen});
  if (data.ok) backDone();
  await toNewGame(data, "photo-back-error");
}

async function fillFromPhoto() {
  if (!photoRead || !photoRead.fill) return;
  const {data} = await api("/api/photo/fill", {read: photoRead.read, seen: photoRead.fill.seen,
    choices: photoChoices()});
  if (data.ok) photoDone();
  await toNewGame(data, "photo-error");
}

// ---- the club: every evening of the game's folder (kingsheet club), or of this phone ----------

async function loadClub(said) {
  const box = $("club");
  const {data} = await api("/api/club");
  box.replaceChildren();
  if (!data || !data.ok) { box.append(el("p", (data && data.error) || W("offline"), "error")); return; }
  showClub(box, data, said);
}

function showClub(box, data, said) {
  box.replaceChildren();
  box.append(el("h3", data.name + " · " + W("standings")));
  const t = el("table");
  const head = el("tr");
  for (const [h, cls] of [["#", "n"], [W("player"), ""], [W("evenings"), "n"], [W("won"), "n"], [W("money_word"), "n"],
                          [W("rating"), "n"]]) head.append(el("th", h, cls));
  t.append(head);
  for (const [place, name, evenings, won, money, rating] of data.standings) {
    const tr = el("tr");
    const who = el("td");
    const open = el("button", name, "link");  // a player's own figures, below the standings
    open.type = "button";
    open.addEventListener("click", () => showPlayer(name));
    who.append(open);
    tr.append(el("td", place, "n"), who, el("td", evenings, "n"), el("td", won, "n"), el("td", money, "n"),
              el("td", rating, "n rating"));
    t.append(tr);
  }
  box.append(t);
  if (data.rating_note) box.append(el("p", data.rating_note, "hint"));
  if (data.standings.length) box.append(el("p", W("club_player_hint"), "hint"));
  const figures = el("div");
  figures.id = "club-player";
  box.append(figures);
  if (data.chart && data.chart.dates.length > 2) box.append(moneyChart(data.chart));
  for (const led of data.ledgers) {
    box.append(el("h3", W("who_owes") + " (" + led.currency + ")"));
    const b = el("table");
    for (const [name, amount] of led.balances) {
      const tr = el("tr");
      tr.append(el("td", name), el("td", amount, "n"));
      b.append(tr);
    }
    box.append(b, el("p", W("to_settle"), "hint"), transfers(led));
  }
  if (data.players.length > 1) box.append(paymentForm(data, said));
  if (data.payments.length) {
    box.append(el("h3", W("payments_recorded")));
    const p = el("table");
    for (const [date, from, to, amount] of data.payments) {
      const tr = el("tr");
      tr.append(el("td", date), el("td", from + " → " + to), el("td", amount, "n"));
      p.append(tr);
    }
    box.append(p);
    if (LOCAL) {
      const out = el("button", W("club_file"));
      out.type = "button";
      out.addEventListener("click", (ev) => fileOut(ev, "club"));
      box.append(out);
    }
  }
  for (const line of data.not_counted) box.append(el("p", line, "hint"));
}

// the ledger's transfers, each with a button that puts it in the payment form
function transfers(led) {
  const t = el("table");
  if (led.transfers.length === 0) t.append(el("tr")), t.lastChild.append(el("td", W("nobody_owes")));
  for (const [from, to, amount, plain] of led.transfers) {
    const tr = el("tr");
    const cell = el("td");
    const take = el("button", W("paid_this"));
    take.type = "button";
    take.setAttribute("aria-label", W("paid_this") + ": " + from + " → " + to + " " + amount);
    take.addEventListener("click", () => {
      $("pay-from").value = from; $("pay-to").value = to; $("pay-amount").value = plain;
      if ($("pay-currency")) $("pay-currency").value = led.currency;
      $("pay-amount").focus();
    });
    cell.append(take);
    tr.append(el("td", from + " → " + to), el("td", amount, "n"), cell);
    t.append(tr);
  }
  return t;
}

function paymentForm(data, said) {
  const form = el("form");
  form.id = "pay-form";
  form.append(el("h3", W("record_payment")));
  const field = (label, input) => { const l = el("label", label); l.append(input); form.append(l); return input; };
  const pick = (id) => {
    const s = el("select");
    s.id = id;
    for (const name of data.players) { const o = el("option", name); o.value = name; s.append(o); }
    return s;
  };
  const from = field(W("paid_from"), pick("pay-from"));
  const to = field(W("paid_to"), pick("pay-to"));
  if (data.players.length > 1) to.value = data.players[1];
  const amount = el("input");
  amount.id = "pay-amount";
  amount.inputMode = "decimal";
  amount.autocomplete = "off";
  field(W("amount") + (data.ledgers.length > 1 ? "" : " (" + data.currency + ")"), amount);
  if (data.ledgers.length > 1) {
    const cur = el("select");
    cur.id = "pay-currency";
    for (const led of data.ledgers) { const o = el("option", led.currency); o.value = led.currency; cur.append(o); }
    cur.value = data.currency;
    field(W("currency"), cur);
  }
  const date = el("input");
  date.id = "pay-date";
  date.type = "date";
  date.value = new Date().toISOString().slice(0, 10);
  field(W("paid_on"), date);
  const go = el("button", W("record_payment"));
  go.type = "submit";
  form.append(go);
  const out = el("p", said || "", said ? "ok" : "hint");
  out.id = "pay-said";
  out.setAttribute("role", "status");
  form.append(out);
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    go.disabled = true;
    try {
      const body = {from: from.value, to: to.value, amount: amount.value, date: date.value,
        currency: $("pay-currency") ? $("pay-currency").value : data.currency};
      const {data: answer} = await api("/api/club/paid", body);
      if (answer && answer.ok) { showClub($("club"), answer, answer.message); return; }
      out.className = "error";
      out.setAttribute("role", "alert");
      out.textContent = (answer && answer.error) || W("offline");  // the form keeps what was typed
    } finally { go.disabled = false; }
  });
  return form;
}

async function showPlayer(name) {
  const box = $("club-player");
  const {data} = await api("/api/club/player", {player: name});
  box.replaceChildren();
  if (!data || !data.ok) { box.append(el("p", (data && data.error) || W("offline"), "error")); return; }
  box.append(el("h3", data.heading), el("p", data.summary));
  const table = (part) => {
    const t = el("table");
    if (part.title) t.append(el("caption", part.title));
    const head = el("tr");
    part.head.forEach((h, k) => { const th = el("th", h, k ? "n" : ""); th.scope = "col"; head.append(th); });
    t.append(head);
    for (const row of part.rows) {
      const tr = el("tr");
      row.forEach((v, k) => tr.append(el("td", v, k ? "n" : "")));
      t.append(tr);
    }
    return t;
  };
  for (const part of data.tables) box.append(table(part));
  for (const line of data.lines) box.append(el("p", line));
  if (data.head_to_head) box.append(table(data.head_to_head));
  box.scrollIntoView({block: "start"});
}

// each player's money added up evening by evening, as lines: drawn as SVG from the numbers (names
// are text nodes, never markup), with a legend that says each player's last amount in words
const COLOURS = ["#1b6ac9", "#c0392b", "#2e8b57", "#8e44ad", "#d35400", "#16a085", "#7f8c8d", "#b7950b"];
function moneyChart(chart) {
  const NS = "http://www.w3.org/2000/svg";
  const svgEl = (tag, attrs) => {
    const e = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    return e;
  };
  const wrap = el("figure", null, "chart");
  const title = W("money_over_time") + " (" + chart.currency + ")";
  const players = Object.keys(chart.money);
  const values = players.flatMap((p) => chart.money[p].map(Number));
  const top = Math.max(0, ...values), low = Math.min(0, ...values);
  const W_ = 360, H = 180, L = 44, R = 8, T = 8, B = 22;
  const n = chart.dates.length - 1;
  const x = (k) => L + (W_ - L - R) * k / Math.max(1, n);
  const y = (v) => T + (H - T - B) * (top === low ? 0.5 : (top - v) / (top - low));
  const svg = svgEl("svg", {viewBox: `0 0 ${W_} ${H}`, width: "100%", role: "img"});
  svg.setAttribute("aria-label", title);
  svg.append(svgEl("line", {x1: L, x2: W_ - R, y1: y(0), y2: y(0), stroke: "#999", "stroke-width": 1}));
  const label = (text, attrs) => { const t = svgEl("text", {"font-size": 11, fill: "#555", ...attrs}); t.textContent = text; svg.append(t); };
  const number = (v) => (v < 0 ? "−" : v > 0 ? "+" : "") + Math.abs(Math.round(v));
  label(number(top), {x: L - 4, y: y(top) + 4, "text-anchor": "end"});
  if (low < 0) label(number(low), {x: L - 4, y: y(low) + 4, "text-anchor": "end"});
  label("0", {x: L - 4, y: y(0) + 4, "text-anchor": "end"});
  label(chart.dates[1] || "", {x: x(1), y: H - 6, "text-anchor": "start"});
  if (n > 1) label(chart.dates[n] || "", {x: x(n), y: H - 6, "text-anchor": "end"});
  const legend = el("ul", null, "legend");
  players.forEach((p, k) => {
    const colour = COLOURS[k % COLOURS.length];
    const line = svgEl("polyline", {fill: "none", stroke: colour, "stroke-width": 2,
      points: chart.money[p].map((v, i) => `${x(i).toFixed(1)},${y(Number(v)).toFixed(1)}`).join(" ")});
    if (k >= COLOURS.length) line.setAttribute("stroke-dasharray", "5 3");
    line.setAttribute("data-player", p);
    svg.append(line);
    const li = el("li");
    const mark = el("span", "", "swatch");
    mark.style.background = colour;
    li.append(mark, el("span", p + ": " + chart.last[p]));
    legend.append(li);
  });
  const caption = el("figcaption", title);
  wrap.append(caption, svg, legend);
  return wrap;
}

// ---- the phone app's own: its games, files out and in ----------------------------------------

async function renderGames() {
  const list = $("games");
  const games = await LOCAL.games();
  list.replaceChildren();
  $("file-in-label").textContent = W("file_in");
  $("file-in").accept = W("file_types");
  if (games.length === 0) list.append(el("li", W("no_games"), "hint"));
  for (const g of games) {
    const li = el("li");
    if (g.id === LOCAL.currentId()) li.classList.add("on");
    const st = g.state || {};
    const problems = (st.problems || []).length;
    li.append(el("div", g.title || g.file, "what"),
      el("div", (st.players || []).join(", "), "who"),
      el("div", [st.date || (g.updated || "").slice(0, 10), g.rules,
        fill(W("deals_of"), {deals: g.deals, total: g.total || "?"}), g.file].join(" · "), "hint"));
    if (problems) li.append(el("div", fill(W("problems_n"), {n: problems}), "error"));
    const buttons = el("div", null, "buttons");
    const open = el("button", W("open"));
    open.type = "button";
    open.addEventListener("click", async () => { LOCAL.open(g.id); resetForm(); view = "sheet"; await load(); });
    const del = el("button", W("delete"));
    del.type = "button";
    del.addEventListener("click", async () => {
      if (!window.confirm(fill(W("delete_confirm"), {title: g.title || g.file}))) return;
      await LOCAL.remove(g.id);
      await load();
      renderGames();
    });
    buttons.append(open, del);
    li.append(buttons);
    list.append(li);
  }
}

async function bringIn() {
  const file = $("file-in").files[0];
  if (!file) return;
  // a workbook takes seconds (openpyxl is imported for it): said after half a second
  const slow = setTimeout(() => { $("games-error").hidden = false; $("games-error").className = "hint";
    $("games-error").textContent = fill(W("reading_file"), {file: file.name}); }, 500);
  let data;
  try { data = await LOCAL.bringIn(file, lang); } finally { clearTimeout(slow); $("games-error").className = "error"; }
  $("file-in").value = "";
  await toNewGame(data, "games-error");
}

async function fileOut(ev, kind) {
  if (!LOCAL) return;  // the server's links download by themselves
  ev.preventDefault();
  try { await LOCAL.download(kind, lang); } catch (e) { notice(String(e.message || e)); }
}

// the screen stays on while the sheet is open (where the browser can), and again after a return
let wake = null;
async function keepAwake() {
  if (!("wakeLock" in navigator) || document.visibilityState !== "visible" || wake) return;
  try {
    wake = await navigator.wakeLock.request("screen");
    wake.addEventListener("release", () => { wake = null; });
  } catch (e) { wake = null; }
}

function listen() {
  if (LOCAL) return;  // the phone app: every change is made on this phone
  if (source) source.close();
  source = new EventSource(tokenUrl("/api/events"));
  source.addEventListener("change", () => load());
  source.onopen = () => { $("offline").hidden = true; };
  source.onerror = async () => {
    $("offline").hidden = false;
    $("offline").textContent = W("offline");
    const {status, data} = await api("/api/room");  // turned away because the server is full: say so
    if (status === 200 && data && data.ok === false && data.error) {
      $("offline").hidden = false;
      $("offline").textContent = data.error;
    }
  };
}

document.addEventListener("DOMContentLoaded", () => {
  for (const b of document.querySelectorAll(".tab")) b.addEventListener("click", () => show(b.dataset.view));
  $("lang").addEventListener("click", () => { lang = nextLanguage(); localStorage.setItem("kingsheet-lang", lang); formFor = null; notice(""); told = ""; $("error").hidden = true; load(); if (view === "new") loadRules(); });
  $("deal").addEventListener("submit", submit);
  $("game").addEventListener("change", () => { buildInputs(target()); renderForm(); });
  $("mode-points").addEventListener("click", () => { mode = "points"; buildInputs(target()); renderForm(); });
  $("mode-taken").addEventListener("click", () => { mode = "taken"; buildInputs(target()); renderForm(); });
  $("cancel").addEventListener("click", () => { resetForm(); render(); });
  $("undo").addEventListener("click", undo);
  $("rules").addEventListener("change", renderNames);
  $("newgame").addEventListener("submit", startGame);
  $("file-in").addEventListener("change", bringIn);
  $("photo-in").addEventListener("change", readPhoto);
  $("photo").addEventListener("submit", keepPhoto);
  $("photo-fill").addEventListener("click", fillFromPhoto);
  $("photo-app").addEventListener("submit", toComputer);
  $("computer").addEventListener("input", () => { $("photo-app-error").hidden = true; });
  $("photo-back-new").addEventListener("click", backAsNew);
  $("photo-back-fill").addEventListener("click", backFillIn);
  $("photo-back-drop").addEventListener("click", () => { backDone(); });
  $("xlsx").addEventListener("click", (ev) => fileOut(ev, "xlsx"));
  $("toml").addEventListener("click", (ev) => fileOut(ev, "toml"));
  $("share").addEventListener("click", () => LOCAL && LOCAL.share(lang));
  $("print").addEventListener("click", () => window.print());
  window.kingsheetReload = load;
  window.kingsheetClubChanged = () => { if (view === "club") loadClub(); };
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") { if (!source || source.readyState === 2) listen(); load(); keepAwake(); }
  });
  arrived();
  window.addEventListener("hashchange", () => {  // the app's tab was open
    if (arrived()) show("new");
    else if (pendingNotice) { notice(W(pendingNotice)); pendingNotice = null; }
  });
  if (FOR_APP) view = "new";
  load().then(() => {
    if (view === "new") show("new");
    if (pendingNotice) { notice(W(pendingNotice)); pendingNotice = null; }
  }).then(listen).then(keepAwake);
});
