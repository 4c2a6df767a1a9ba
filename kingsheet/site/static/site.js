// The phone app's transport: the page (app.js, the same as `kingsheet serve`'s) asks the same
// questions; here they go to kingsheet's Python in a worker instead of a server, and every game
// lives in the browser's storage (IndexedDB), one record a game, each change stored in one
// transaction. The page shows the stored sheet at once; the form waits until Python is ready.
"use strict";

(() => {
  const DB = "kingsheet", STORE = "games", CURRENT = "kingsheet-current";
  let db = null, worker = null, ready = false, failed = null, next = 1;
  let isUp;
  const started = new Promise((resolve) => { isUp = resolve; });  // Python ready, or failed to start
  const up = async () => { if (!ready && !failed) await started; return ready; };
  const waiting = new Map();
  const timings = {ready: null, how: null, snapshot: null, calls: []};

  function openDb() {
    return new Promise((resolve, reject) => {
      const req = indexedDB.open(DB, 1);
      req.onupgradeneeded = () => req.result.createObjectStore(STORE, {keyPath: "id"});
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
  }
  let opened = null;
  // A full disk makes the browser close the database (seen in Chromium: "IO error …
  // FILE_ERROR_NO_SPACE", then every transaction "the database connection is closing"): it is
  // opened again for the next request, so that the phone goes on once space is freed.
  function connect() {
    opened = openDb().then((d) => { db = d; d.onclose = () => { db = null; }; },
      (e) => { failed = String(e && e.message || e); }).then(() => db && restore().catch(() => {}));
    return opened;
  }
  async function tx(mode, work, again = true) {
    await opened;
    if (!db && again) await connect();
    return run(mode, work, again);
  }
  function run(mode, work, again) {
    let t;
    try {
      t = db.transaction(STORE, mode);
    } catch (e) {
      if (again && e && e.name === "InvalidStateError") { db = null; return connect().then(() => run(mode, work, false)); }
      throw e;
    }
    return new Promise((resolve, reject) => {
      let out;
      t.oncomplete = () => resolve(out);
      t.onerror = () => reject(t.error);
      t.onabort = () => reject(t.error || new DOMException("aborted", "AbortError"));
      const req = work(t.objectStore(STORE));
      if (req) req.onsuccess = () => { out = req.result; };
    });
  }
  const getAll = () => tx("readonly", (s) => s.getAll());
  const getOne = (id) => tx("readonly", (s) => s.get(id));
  // Every game is also kept, without its computed state, in localStorage: when a phone's disk
  // fills, Chromium gives up the origin's IndexedDB and opens it again empty (seen here: every game
  // gone after one refused write), while localStorage keeps what it held. A game missing from
  // IndexedDB is put back from there when the database opens.
  const MIRROR = "kingsheet-game-";
  function mirror(rec) {
    try {
      const {state, ...kept} = rec;
      void state;
      localStorage.setItem(MIRROR + rec.id, JSON.stringify(kept));
    } catch (e) { /* localStorage full: IndexedDB still holds the game */ }
  }
  async function restore() {  // (inside the opening: run, not tx, which waits for it)
    const have = new Set((await run("readonly", (s) => s.getAll())).map((r) => r.id));
    for (let k = 0; k < localStorage.length; k++) {
      const key = localStorage.key(k);
      if (!key || !key.startsWith(MIRROR) || have.has(key.slice(MIRROR.length))) continue;
      try { await run("readwrite", (s) => s.put(JSON.parse(localStorage.getItem(key)))); } catch (e) { /* full still */ }
    }
  }
  const putOne = async (rec) => { await tx("readwrite", (s) => s.put(rec)); mirror(rec); };
  const delOne = async (id) => { await tx("readwrite", (s) => s.delete(id)); localStorage.removeItem(MIRROR + id); };

  function startWorker() {
    worker = new Worker("worker.js", {type: "module"});
    worker.onmessage = (ev) => {
      const m = ev.data;
      if (m.snapshot !== undefined) { timings.snapshot = m.snapshot; return; }
      if (m.snapshotFailed !== undefined) { timings.snapshotFailed = m.snapshotFailed; return; }
      if (m.ready !== undefined) {
        ready = m.ready;
        failed = m.ready ? null : m.error;
        isUp();
        timings.ready = m.ms || null;
        timings.how = m.how || null;
        if (window.kingsheetReload) window.kingsheetReload();
        return;
      }
      const done = waiting.get(m.id);
      waiting.delete(m.id);
      if (!done) return;
      if (m.error) done.reject(new Error(m.error));
      else { timings.calls.push(m.ms); done.resolve(JSON.parse(m.response)); }
    };
    worker.onerror = (ev) => { failed = ev.message || "worker"; isUp(); if (window.kingsheetReload) window.kingsheetReload(); };
  }
  function python(request) {
    return new Promise((resolve, reject) => {
      const id = next++;
      waiting.set(id, {resolve, reject});
      worker.postMessage({id, request});
    });
  }

  function currentId() { return localStorage.getItem(CURRENT); }
  async function current() {
    const id = currentId();
    return id ? await getOne(id) : undefined;
  }
  function gameOf(rec) { return rec ? {file: rec.file, text: rec.text, template: rec.template || null} : null; }
  async function takenNames() { return (await getAll()).map((r) => r.file); }

  // Another tab of this app (or the installed app beside a tab) told of a change: it reloads
  // the sheet at once, as serve's phones hear of each other's deals.
  const channel = "BroadcastChannel" in window ? new BroadcastChannel("kingsheet-games") : null;
  if (channel) channel.onmessage = (ev) => {
    if (ev.data && ev.data.id === currentId() && window.kingsheetReload) window.kingsheetReload();
    if (ev.data && ev.data.club && window.kingsheetClubChanged) window.kingsheetClubChanged();
  };

  // a new game's record: its own id, and when it was made
  function fresh() {
    return {id: String(Date.now()) + "-" + Math.random().toString(36).slice(2, 8), created: new Date().toISOString()};
  }

  // A change is kept only if the game is still as it was read for it, checked inside the same
  // transaction that writes it: of two tabs writing one game, one wins and the other is told.
  async function store(rec, game, open = true) {
    const next = {...(rec || fresh()), ...game, updated: new Date().toISOString()};
    let moved = false;
    try {
      await tx("readwrite", (s) => {
        if (!rec) return s.put(next);
        const read = s.get(rec.id);
        read.onsuccess = () => {
          const now = read.result;
          if (!now || now.text !== rec.text) { moved = true; return; }  // changed since it was read
          s.put(next);
        };
        return null;
      });
      if (!moved) mirror(next);
    } catch (e) {
      const full = e && (e.name === "QuotaExceededError" || /quota|no_space|no space|disk/i.test(String(e.message)));
      return {ok: false, error: full ? word("storage_full") : String(e && e.message || e)};
    }
    if (moved) return {ok: false, conflict: true, error: word("changed_elsewhere")};
    if (open) localStorage.setItem(CURRENT, next.id);
    if (channel) channel.postMessage({id: next.id});
    return {ok: true, rec: next};
  }

  // the page's words and rule systems as the build wrote them into the page, until Python answers
  const BUILT = (() => {
    try { return JSON.parse(document.getElementById("ks-words").textContent); } catch (e) { return {}; }
  })();
  const pageLang = () => localStorage.getItem("kingsheet-lang") || document.documentElement.lang || "ru";
  const builtWords = BUILT.words || {}, builtRules = BUILT.rules || {};
  let lastWords = JSON.parse(localStorage.getItem("kingsheet-words") || "null") || builtWords[pageLang()] || {};
  function word(key) { return lastWords[key] || key; }
  function wordsIn(lang) { return builtWords[lang] || lastWords; }
  function remember(state) {
    if (state && state.words) { lastWords = state.words; localStorage.setItem("kingsheet-words", JSON.stringify(state.words)); }
  }

  const OPS = {"/api/state": "state", "/api/money": "money", "/api/rules": "rules", "/api/deal": "deal",
    "/api/edit": "edit", "/api/undo": "undo", "/api/new": "new", "/api/club": "club",
    "/api/club/player": "club_player", "/api/club/paid": "club_paid",
    "/app/photo": "photo", "/app/photo/fill": "photo_fill",  // a sheet a computer read, brought back
    "/app/codes": "codes", "/app/signal": "signal"};  // the game as codes; a join code (table.js)

  // opts.id: the game to ask about (the table's game, whichever is open here); opts.dry: check only,
  // store nothing (a phone at a live table checks a deal itself before it goes to the keeper)
  async function call(path, body, lang, opts = {}) {
    const op = OPS[path];
    const rec = opts.id ? await getOne(opts.id) : await current();
    if (op === "state" && !ready) {  // Python is starting: the stored sheet, and the form waits
      if (!rec) return {status: 200, data: {ok: false, none: true, waiting: !failed, words: wordsIn(lang), lang,
        error: failed ? word("ready_failed").replace("{error}", failed) : word("no_games")}};
      return {status: 200, data: {...rec.state, words: wordsIn(lang), waiting: !failed,
        failed: failed ? word("ready_failed").replace("{error}", failed) : null}};
    }
    if (!ready && op === "rules" && builtRules[lang]) return {status: 200, data: builtRules[lang]};
    // anything else waits for Python: a deal typed on a first visit is checked once it has started
    if (!(await up())) return {status: 0, data: {ok: false, error: word("ready_failed").replace("{error}", failed)}};
    if (op === "state" && !rec) {
      const answer = await python({op: "words", lang});
      remember(answer.data);
      return {status: 200, data: answer.data};
    }
    if (op.startsWith("club")) return club(op, body, lang);
    const answer = await python({op, lang, body: body || {}, game: op === "new" ? null : gameOf(rec),
      taken_names: op === "new" ? await takenNames() : []});
    if (op === "state") remember(answer.data);
    if (answer.game && !opts.dry) {
      const stored = await store(op === "new" ? null : rec, answer.game, !opts.id);
      if (!stored.ok) return {status: stored.conflict ? 409 : 507, data: {ok: false, error: stored.error}};
      remember(answer.game.state);
    }
    return {status: answer.status, data: answer.data};
  }

  // Every game on this phone is the club; its club.toml (the payments recorded between evenings)
  // is kept in localStorage. A payment is recorded under a lock shared by the phone's tabs, and
  // only onto the club file it was computed from: a tab that recorded one meanwhile is not undone.
  const CLUB = "kingsheet-club";
  async function club(op, body, lang) {
    const work = async () => {
      const before = localStorage.getItem(CLUB) || "";
      const answer = await python({op, lang, body: body || {}, club: before, games: (await getAll()).map(gameOf)});
      if (op === "club_paid" && answer.status === 200 && typeof answer.data.club_text === "string") {
        if ((localStorage.getItem(CLUB) || "") !== before) {
          return {status: 409, data: {ok: false, error: word("changed_elsewhere")}};
        }
        try { localStorage.setItem(CLUB, answer.data.club_text); } catch (e) {
          return {status: 507, data: {ok: false, error: word("storage_full")}};
        }
        if (channel) channel.postMessage({club: true});
      }
      return {status: answer.status, data: answer.data};
    };
    if (op === "club_paid" && navigator.locks) return navigator.locks.request(CLUB, work);
    return work();
  }

  function save(name, blob) {
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = name;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 60000);
  }

  async function fileOf(kind, lang) {
    if (kind === "club") return new File([localStorage.getItem(CLUB) || ""], "club.toml", {type: "application/toml"});
    const rec = await current();
    if (!rec) return null;
    if (kind === "toml") return new File([rec.text], rec.file, {type: "application/toml"});
    const answer = await python({op: "export", lang, suffix: "." + kind, game: gameOf(rec)});
    if (answer.status !== 200) throw new Error(answer.data.error);
    const bytes = Uint8Array.from(atob(answer.data.b64), (c) => c.charCodeAt(0));
    return new File([bytes], answer.data.name, {type: answer.data.media});
  }

  window.KS_TRANSPORT = {
    timings,
    isReady: () => ready,
    call,
    async download(kind, lang) { const f = await fileOf(kind, lang); if (f) save(f.name, f); },
    async share(lang) {
      const f = await fileOf("toml", lang);
      if (!f) return;
      if (navigator.canShare && navigator.canShare({files: [f]})) await navigator.share({files: [f], title: f.name});
      else save(f.name, f);
    },
    async games() { return (await getAll()).sort((a, b) => (b.updated || "").localeCompare(a.updated || "")); },
    currentId,
    open(id) { localStorage.setItem(CURRENT, id); },
    async remove(id) { await delOne(id); if (currentId() === id) localStorage.removeItem(CURRENT); },
    // codes the camera read (table.js): a game handed over, or a phone's code to join its table
    async receive(texts, lang) {
      if (!(await up())) return {ok: false, error: word("ready_failed").replace("{error}", failed)};
      const all = await getAll();
      const answer = await python({op: "receive", lang, body: {codes: texts},
        games: all.map((r) => ({id: r.id, file: r.file, text: r.text})), taken_names: all.map((r) => r.file)});
      if (answer.status !== 200) return answer.data;
      if (answer.game) {
        const rec = answer.data.kind === "further" ? all.find((r) => r.id === answer.data.match) : null;
        const stored = await store(rec || null, answer.game);
        if (!stored.ok) return stored;
      } else if (answer.data.match) localStorage.setItem(CURRENT, answer.data.match);  // it opens here
      return answer.data;
    },
    // the table's game as the keeping phone sent it: kept in this phone's record of that table
    // (made the first time), the phone's own copy replaced; opened when nothing else is open
    async keep(game, table, lang) {
      if (!(await up())) return {ok: false, error: word("ready_failed").replace("{error}", failed)};
      const all = await getAll();
      const rec = all.find((r) => r.table === table);
      if (rec && rec.text === game.text) return {ok: true, id: rec.id, same: true};
      const answer = await python({op: "keep", lang, game: {file: rec ? rec.file : game.file, text: game.text,
        template: game.template || null}, taken_names: all.filter((r) => r !== rec).map((r) => r.file)});
      if (!answer.game) return answer.data;
      const next = {...(rec || fresh()), ...answer.game, table, updated: new Date().toISOString()};
      try { await putOne(next); } catch (e) { return {ok: false, error: word("storage_full")}; }
      if (!currentId() || !rec) localStorage.setItem(CURRENT, next.id);
      if (channel) channel.postMessage({id: next.id});
      return {ok: true, id: next.id};
    },
    async record(id) { return id ? await getOne(id) : await current(); },
    async mark(id, table) { const rec = await getOne(id); if (rec) await putOne({...rec, table}); },
    async bringIn(file, lang) {
      if (!(await up())) return {ok: false, error: word("ready_failed").replace("{error}", failed)};
      const data = new Uint8Array(await file.arrayBuffer());
      let bin = "";
      for (let i = 0; i < data.length; i += 0x8000) bin += String.fromCharCode(...data.subarray(i, i + 0x8000));
      const answer = await python({op: "import", lang, name: file.name, data: btoa(bin), taken_names: await takenNames()});
      if (!answer.game) return answer.data;
      const stored = await store(null, answer.game);
      return stored.ok ? answer.data : stored;
    },
  };

  connect();
  startWorker();
  if ("serviceWorker" in navigator && (location.protocol === "https:" || location.hostname === "localhost" ||
      location.hostname === "127.0.0.1")) {
    navigator.serviceWorker.register("sw.js").catch(() => {});
  }
  if (navigator.storage && navigator.storage.persist) navigator.storage.persist().catch(() => {});
})();
