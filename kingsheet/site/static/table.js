// The phones together, with no server (the phone app's Table tab).
//
// 1. A game handed over by QR codes: this phone shows the open game as codes (kingsheet's own
//    format, docs/game-file.md «Game codes»: made and read by kingsheet's Python in the worker),
//    another phone reads them with its camera and keeps the game: a new one, or the same one
//    brought up to date; never over deals it has that the codes lack.
// 2. A live table over WebRTC: a phone at the table invites another by showing its offer as a
//    code; the other reads it and shows its answer as a code; once the first reads that, a data
//    channel joins the two (DTLS-encrypted; no signalling server, no STUN or TURN on one Wi-Fi). The
//    phones already at the table then join the newcomer through the phone that invited it, so every
//    phone is linked to every other. The phone that came first keeps the game; a deal entered on any
//    phone is checked there by the same verifier, sent to the keeper, and kept only if it names the
//    deals it saw (serve's `seen` rule). Every phone holds the whole game: when the keeper leaves, the
//    next phone in order keeps it, as it was.
// Codes are read with the browser's BarcodeDetector where it reads QR codes, else with ZXing's
// reader in WebAssembly (zxing/, pinned by sha256 in the build, kept offline by the service worker).
"use strict";

(() => {
  const T = window.KS_TRANSPORT;
  if (!T) return;
  const $ = (id) => document.getElementById(id);
  const say = (key, values) => fill(W(key), values || {});  // app.js's words, in the page's language
  const hex = (bytes) => [...crypto.getRandomValues(new Uint8Array(bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");
  const MOST_MESSAGE = 4 * 1024 * 1024;

  // ---- codes on the screen ------------------------------------------------------------------------

  let showing = null;  // {codes, k, timer}

  function draw(rows) {
    const canvas = $("table-code");
    const n = rows.length, quiet = 4;
    const side = Math.min(360, Math.max(240, document.documentElement.clientWidth - 40));
    const scale = Math.max(2, Math.floor(side / (n + 2 * quiet)));
    canvas.width = canvas.height = scale * (n + 2 * quiet);
    const g = canvas.getContext("2d");
    g.fillStyle = "#fff";
    g.fillRect(0, 0, canvas.width, canvas.height);
    g.fillStyle = "#000";
    rows.forEach((row, r) => {
      for (let c = 0; c < n; c++) if (row[c] === "1") g.fillRect((c + quiet) * scale, (r + quiet) * scale, scale, scale);
    });
  }

  function showCodes(codes, hint) {
    stopShowing();
    showing = {codes, k: 0, timer: null};
    $("table-show").hidden = false;
    $("table-hint").textContent = hint;
    const turn = () => {
      const {codes: all, k} = showing;
      draw(all[k].rows);
      $("table-code").dataset.text = all[k].text;  // what the code says, for a screen reader's sake too
      $("table-code").setAttribute("aria-label", all.length > 1 ? say("code_of", {n: k + 1, of: all.length}) : W("table"));
      $("table-caption").textContent = all.length > 1 ? say("code_of", {n: k + 1, of: all.length}) : "";
      showing.k = (k + 1) % all.length;
    };
    turn();
    if (codes.length > 1) showing.timer = setInterval(turn, 900);  // the codes take turns
  }

  function stopShowing() {
    if (showing && showing.timer) clearInterval(showing.timer);
    showing = null;
    $("table-show").hidden = true;
    $("table-hint").textContent = "";
  }

  // ---- the camera ---------------------------------------------------------------------------------

  let camera = null;  // {stream, timer}
  const reading = {texts: [], done: new Set()};
  let detector;  // undefined: not yet asked; null: none, ZXing instead

  async function detect(source, width, height) {
    if (detector === undefined) {
      detector = null;
      try {
        if ("BarcodeDetector" in window && (await BarcodeDetector.getSupportedFormats()).includes("qr_code")) {
          detector = new BarcodeDetector({formats: ["qr_code"]});
        }
      } catch (e) { detector = null; }
      if (!detector && window.ZXingWASM) {
        ZXingWASM.prepareZXingModule({overrides: {locateFile: (path, prefix) =>
          path.endsWith(".wasm") ? new URL("zxing/" + path, location.href).href : prefix + path}});
      }
    }
    if (detector) return (await detector.detect(source)).map((c) => c.rawValue);
    if (!window.ZXingWASM) throw new Error(W("no_reader"));
    const canvas = document.createElement("canvas");
    canvas.width = width;
    canvas.height = height;
    const g = canvas.getContext("2d", {willReadFrequently: true});
    g.drawImage(source, 0, 0, width, height);
    const found = await ZXingWASM.readBarcodes(g.getImageData(0, 0, width, height),
      {formats: ["QRCode"], tryHarder: true, maxNumberOfSymbols: 4});
    return found.filter((c) => c.isValid).map((c) => c.text);
  }

  async function startCamera() {
    stopCamera();
    $("table-error").hidden = true;
    $("table-camera").hidden = false;
    $("table-read").textContent = W("read_hint");
    let stream;
    try {
      stream = await navigator.mediaDevices.getUserMedia({video: {facingMode: "environment"}, audio: false});
    } catch (e) {
      $("table-read").textContent = say("camera_off", {why: (e && e.name) || String(e)});
      return;
    }
    const video = $("table-video");
    video.srcObject = stream;
    await video.play().catch(() => {});
    camera = {stream, timer: null};
    const look = async () => {
      if (!camera) return;
      try {
        if (video.videoWidth) for (const text of await detect(video, video.videoWidth, video.videoHeight)) await onText(text);
      } catch (e) { $("table-read").textContent = String(e && e.message || e); }
      if (camera) camera.timer = setTimeout(look, 150);
    };
    look();
  }

  function stopCamera() {
    if (camera) {
      clearTimeout(camera.timer);
      for (const t of camera.stream.getTracks()) t.stop();
    }
    camera = null;
    $("table-video").srcObject = null;
    $("table-camera").hidden = true;
    reading.texts = [];
    reading.done.clear();
  }

  async function fromPicture() {
    const file = $("table-picture").files[0];
    $("table-picture").value = "";
    if (!file) return;
    try {
      const bitmap = await createImageBitmap(file);
      const texts = await detect(bitmap, bitmap.width, bitmap.height);
      if (!texts.length) { $("table-read").textContent = W("no_code_seen"); return; }
      for (const text of texts) await onText(text);
    } catch (e) { $("table-read").textContent = String(e && e.message || e); }
  }

  async function onText(raw) {
    const text = String(raw).replace(/^[\r\n\t]+|[\r\n\t]+$/g, "");  // a space is a letter of the code
    if (!text || reading.done.has(text)) return;
    reading.done.add(text);
    if (text.startsWith("KSJ")) {  // a phone's code to join its table
      const data = await T.receive([text], lang);
      if (!data.ok) { $("table-read").textContent = data.error; return; }
      await onSignal(data.signal);
      return;
    }
    const data = await T.receive([...reading.texts, text], lang);
    if (!data.ok) { $("table-read").textContent = data.error; return; }
    reading.texts.push(text);
    if (data.partial) { $("table-read").textContent = data.message; return; }
    stopCamera();
    notice(data.message);
    if (data.kind !== "same" && data.kind !== "behind") {
      const rec = await T.record();
      if (live.key && rec && rec.id === live.gameId) broadcastGame();
    }
    await load();
    renderTable();
    $("table-status").textContent = data.message;
  }

  // ---- the live table -----------------------------------------------------------------------------

  const live = {
    me: hex(4).toUpperCase(),  // this phone, as the others know it
    key: null,                 // the table (kept in the game's record, to find it again)
    gameId: null,              // the table's game on this phone
    rank: null,                // the order of coming: the lowest keeps the game
    peers: new Map(),          // id -> {pc, dc, rank, open}
    invites: new Map(),        // session -> {pc, dc}: an offer shown, waiting for its answer
    linking: new Map(),        // id -> pc: a link to a phone of the table being made through another
    waiting: new Map(),        // rid -> resolve: a deal sent to the keeper
    next: 1,
    queue: Promise.resolve(),  // the keeper's writes, one after another
  };

  function newPc() { return new RTCPeerConnection({iceServers: []}); }  // one Wi-Fi: host addresses

  function gathered(pc) {
    return new Promise((resolve) => {
      if (pc.iceGatheringState === "complete") { resolve(); return; }
      const timer = setTimeout(resolve, 3000);
      pc.addEventListener("icegatheringstatechange", () => {
        if (pc.iceGatheringState === "complete") { clearTimeout(timer); resolve(); }
      });
    });
  }

  function keeperId() {
    let best = live.rank === null ? null : [live.rank, live.me];
    for (const [id, p] of live.peers) {
      if (!p.open || p.rank === null) continue;
      if (!best || p.rank < best[0] || (p.rank === best[0] && id < best[1])) best = [p.rank, id];
    }
    return best ? best[1] : null;
  }
  const amKeeper = () => !!live.key && keeperId() === live.me;
  const openPeers = () => [...live.peers.entries()].filter(([, p]) => p.open);

  function send(p, msg) {
    try { if (p && p.dc && p.dc.readyState === "open") { p.dc.send(JSON.stringify(msg)); return true; } } catch (e) { /* closed */ }
    return false;
  }

  async function tableGame() {
    const rec = await T.record(live.gameId);
    return rec ? {file: rec.file, text: rec.text, template: rec.template || null} : null;
  }

  async function broadcastGame(except) {
    const game = await tableGame();
    if (!game) return;
    for (const [id, p] of openPeers()) if (id !== except) send(p, {t: "game", key: live.key, game});
  }

  // role: "inviter" (this phone showed the offer), "joiner" (this phone read it) or "link" (two
  // phones of the table joined through a third)
  function attach(pc, dc, id, rank, role) {
    const p = {pc, dc, rank, open: false, role};
    const opened = () => {
      if (p.open) return;
      p.open = true;
      if (role === "joiner") send(p, {t: "hello", id: live.me});
      if (role === "link") send(p, {t: "hi", id: live.me, rank: live.rank});
      renderTable();
    };
    dc.onopen = opened;
    // a channel the other phone opened may be open already when it is announced (a busy phone)
    if (dc.readyState === "open") queueMicrotask(opened);
    dc.onmessage = (ev) => {
      if (typeof ev.data !== "string" || ev.data.length > MOST_MESSAGE) return;
      let msg;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      if (msg && typeof msg === "object") onMessage(p, msg).catch((e) => console.warn(e));
    };
    const gone = () => {
      if (!p.open && !p.id) return;
      const wasKeeper = p.id && keeperId() === p.id;
      p.open = false;
      if (p.id && live.peers.get(p.id) === p) live.peers.delete(p.id);
      try { pc.close(); } catch (e) { /* closed */ }
      if (wasKeeper && live.key) {
        const k = keeperId();
        notice(say("keeper_gone", {keeper: k === live.me ? W("this_phone") : say("phone_named", {id: k})}));
      }
      renderTable();
    };
    dc.onclose = gone;
    pc.addEventListener("connectionstatechange", () => {
      if (pc.connectionState === "failed" || pc.connectionState === "closed") gone();
      if (pc.connectionState === "connected" && p.open && live.key && !amKeeper()) {  // back after a gap
        const k = live.peers.get(keeperId());
        send(k, {t: "sync"});
      }
    });
    if (id !== null) { p.id = id; live.peers.set(id, p); }
    return p;
  }

  async function invite() {
    $("table-error").hidden = true;
    if (!("RTCPeerConnection" in window)) { fail(W("no_rtc")); return; }
    const rec = await T.record(live.key ? live.gameId : undefined);
    if (!rec) { fail(W("no_game_to_share")); return; }
    if (!live.key) {  // this phone starts the table with its open game
      live.key = rec.table || hex(8);
      live.gameId = rec.id;
      live.rank = 0;
      if (rec.table !== live.key) await T.mark(rec.id, live.key);
    }
    const session = hex(4).toUpperCase();
    const pc = newPc();
    const dc = pc.createDataChannel("kingsheet", {ordered: true});
    const p = attach(pc, dc, null, null, "inviter");
    live.invites.set(session, {pc, p});
    setTimeout(() => {  // an invitation not answered in ten minutes is closed: the code is dead
      if (live.invites.get(session)) { live.invites.delete(session); if (!p.open) pc.close(); }
    }, 600000);
    await pc.setLocalDescription(await pc.createOffer());
    await gathered(pc);
    const {data} = await T.call("/app/signal", {kind: "offer", session, sdp: pc.localDescription.sdp}, lang);
    if (!data.ok) { fail(data.error); return; }
    showCodes(data.codes, W("invite_hint"));
    renderTable();
    startCamera();  // then the answer is read here
  }

  async function onSignal(signal) {
    if (signal.kind === "answer") {
      const inv = live.invites.get(signal.session);
      if (!inv) { $("table-read").textContent = W("code_used"); return; }
      live.invites.delete(signal.session);  // a code is good for one join
      stopCamera();
      stopShowing();
      try {
        await inv.pc.setRemoteDescription({type: "answer", sdp: signal.sdp});
      } catch (e) { fail(W("rtc_failed")); return; }
      setTimeout(() => { if (!inv.p.open) { try { inv.pc.close(); } catch (e) { /* closed */ } fail(W("rtc_failed")); } }, 20000);
      return;
    }
    if (!("RTCPeerConnection" in window)) { fail(W("no_rtc")); return; }
    if (live.invites.has(signal.session)) return;  // this phone's own code, seen in a mirror or a photo
    if (live.key) { $("table-read").textContent = W("at_a_table"); return; }  // one table at a time
    stopCamera();
    const pc = newPc();
    pc.ondatachannel = (ev) => { attach(pc, ev.channel, null, null, "joiner"); };
    try {
      await pc.setRemoteDescription({type: "offer", sdp: signal.sdp});
      await pc.setLocalDescription(await pc.createAnswer());
    } catch (e) { fail(W("rtc_failed")); return; }
    await gathered(pc);
    const {data} = await T.call("/app/signal", {kind: "answer", session: signal.session, sdp: pc.localDescription.sdp}, lang);
    if (!data.ok) { fail(data.error); return; }
    showCodes(data.codes, W("answer_hint"));
    // not at the table a minute later (no link, or linked but never welcomed): said, so the phones try again
    setTimeout(() => { if (!live.key) { try { pc.close(); } catch (e) { /* closed */ } fail(W("rtc_failed")); } }, 60000);
  }

  function fail(text) {
    $("table-error").textContent = text;
    $("table-error").hidden = false;
  }

  function newRank() {
    let most = live.rank || 0;
    for (const [, p] of live.peers) if (p.rank !== null && p.rank > most) most = p.rank;
    return most + 1;
  }

  async function onMessage(p, msg) {
    const t = msg.t;
    if (t === "hello") {  // the phone this one invited: it gets its place and the game
      if (p.role !== "inviter" || typeof msg.id !== "string" || !/^[0-9A-F]{8}$/.test(msg.id) || p.id) return;
      p.id = msg.id;
      p.rank = newRank();
      const others = openPeers();
      live.peers.set(p.id, p);
      send(p, {t: "welcome", key: live.key, rank: p.rank, you: p.id, keeper: keeperId(),
        roster: [[live.me, live.rank], ...others.map(([id, q]) => [id, q.rank])], game: await tableGame()});
      for (const [, q] of others) send(q, {t: "peer", id: p.id, rank: p.rank});  // the others link to it
      renderTable();
      return;
    }
    if (t === "welcome") {
      if (p.role !== "joiner" || p.id || !msg.game || typeof msg.key !== "string" || !Array.isArray(msg.roster)) return;
      live.key = msg.key;
      live.rank = msg.rank;
      const [firstId, firstRank] = (msg.roster || [])[0] || [];
      p.id = firstId;
      p.rank = firstRank;
      live.peers.set(p.id, p);
      for (const [id, rank] of msg.roster || []) if (id !== p.id && id !== live.me) live.peers.set(id, live.peers.get(id) || {rank, open: false, id});
      const kept = await T.keep(msg.game, live.key, lang);
      if (kept.ok) { live.gameId = kept.id; T.open(kept.id); }
      stopShowing();
      notice(W("joined"));
      await load();
      renderTable();
      return;
    }
    if (t === "hi") {  // a phone of the table linked to this one directly
      if (typeof msg.id === "string" && !p.id) { p.id = msg.id; live.peers.set(p.id, p); }
      if (p.id && typeof msg.rank === "number") p.rank = msg.rank;
      renderTable();
      return;
    }
    if (t === "peer") {  // a newcomer, invited by p: this phone links to it through p
      if (typeof msg.id !== "string" || msg.id === live.me) return;
      const pc = newPc();
      const dc = pc.createDataChannel("kingsheet", {ordered: true});
      attach(pc, dc, msg.id, msg.rank, "link");
      live.linking.set(msg.id, pc);
      await pc.setLocalDescription(await pc.createOffer());
      await gathered(pc);
      send(p, {t: "signal", to: msg.id, from: live.me, kind: "offer", sdp: pc.localDescription.sdp});
      return;
    }
    if (t === "signal") {
      if (msg.to !== live.me) {  // passed on: this phone joins two phones of its table
        send(live.peers.get(msg.to), msg);
        return;
      }
      if (msg.kind === "offer") {
        const pc = newPc();
        pc.ondatachannel = (ev) => { attach(pc, ev.channel, msg.from, live.peers.get(msg.from)?.rank ?? null, "link"); };
        await pc.setRemoteDescription({type: "offer", sdp: msg.sdp});
        await pc.setLocalDescription(await pc.createAnswer());
        await gathered(pc);
        send(p, {t: "signal", to: msg.from, from: live.me, kind: "answer", sdp: pc.localDescription.sdp});
      } else if (msg.kind === "answer") {
        const pc = live.linking.get(msg.from);
        live.linking.delete(msg.from);
        if (pc) await pc.setRemoteDescription({type: "answer", sdp: msg.sdp});
      }
      return;
    }
    if (t === "write") {  // a deal from a phone of the table: kept here if this phone keeps the game
      if (!amKeeper()) { send(p, {t: "result", rid: msg.rid, status: 0, data: {ok: false, error: W("no_answer")}}); return; }
      live.queue = live.queue.then(async () => {
        const r = await plain(String(msg.path), msg.body || {}, languages().includes(msg.lang) ? msg.lang : languages()[0], {id: live.gameId});
        const game = await tableGame();
        send(p, {t: "result", rid: msg.rid, status: r.status, data: r.data, game});
        if (r.status === 200 && r.data && r.data.ok) {
          broadcastGame(p.id);
          if (T.currentId() === live.gameId) await load();
        }
      });
      return;
    }
    if (t === "result") {
      const done = live.waiting.get(msg.rid);
      live.waiting.delete(msg.rid);
      if (done) done(msg);
      return;
    }
    if (t === "game") {  // the table's game as the keeper has it now
      if (msg.key !== live.key || !msg.game || p.id !== keeperId()) return;
      await T.keep(msg.game, live.key, lang);
      if (T.currentId() === live.gameId) await load();
      return;
    }
    if (t === "sync") {
      if (amKeeper()) send(p, {t: "game", key: live.key, game: await tableGame()});
      return;
    }
    if (t === "bye") {
      try { p.pc.close(); } catch (e) { /* closed */ }
      if (p.dc && p.dc.onclose) p.dc.onclose();
    }
  }

  function ask(msg) {
    const k = live.peers.get(keeperId());
    const rid = live.next++;
    if (!send(k, {...msg, rid})) return Promise.resolve(null);
    return new Promise((resolve) => {
      const timer = setTimeout(() => { live.waiting.delete(rid); resolve(null); }, 10000);
      live.waiting.set(rid, (m) => { clearTimeout(timer); resolve(m); });
    });
  }

  function leave() {
    for (const [, p] of live.peers) { send(p, {t: "bye"}); try { p.pc && p.pc.close(); } catch (e) { /* closed */ } }
    for (const [, inv] of live.invites) { try { inv.pc.close(); } catch (e) { /* closed */ } }
    live.peers.clear();
    live.invites.clear();
    live.linking.clear();
    live.key = null;
    live.gameId = null;
    live.rank = null;
    renderTable();
  }

  // a deal, a correction or an undo of the table's game goes to the keeper; everything else, and a
  // game not the table's, stays on this phone as before
  const WRITES = new Set(["/api/deal", "/api/edit", "/api/undo", "/app/photo/fill"]);
  const plain = T.call;
  T.call = async (path, body, language, opts = {}) => {
    if (!live.key || !WRITES.has(path) || opts.id || T.currentId() !== live.gameId) return plain(path, body, language, opts);
    if (amKeeper()) {
      let r;
      live.queue = live.queue.then(async () => {
        r = await plain(path, body, language, {id: live.gameId});
        if (r.status === 200 && r.data && r.data.ok) await broadcastGame();
      });
      await live.queue;
      return r;
    }
    if (!live.peers.get(keeperId())?.open) return {status: 0, data: {ok: false, error: W("table_lost")}};
    const check = await plain(path, body, language, {id: live.gameId, dry: true});  // the verifier, here
    if (check.status !== 200 || !check.data.ok) return check;
    const answer = await ask({t: "write", path, body, lang: language});
    if (!answer) return {status: 0, data: {ok: false, error: W("no_answer")}};
    if (answer.game) await T.keep(answer.game, live.key, language);
    return {status: answer.status, data: answer.data};
  };

  // ---- the tab ------------------------------------------------------------------------------------

  function renderTable() {
    $("tab-table").textContent = W("table");
    $("table-share").textContent = W("table_share");
    $("table-join").textContent = W("table_join");
    $("table-live").textContent = W("table_live");
    $("table-stop").textContent = W("table_stop");
    $("table-picture-label").textContent = W("table_picture");
    const open = openPeers();
    const status = $("table-status");
    if (!live.key) status.textContent = W("table_alone");
    else if (amKeeper()) status.textContent = say("table_keeper", {n: open.length + 1});
    else {
      const k = keeperId();
      status.textContent = say("table_member", {n: open.length + 1, keeper: say("phone_named", {id: k})});
    }
    status.dataset.phones = String(live.key ? open.length + 1 : 1);
    status.dataset.keeper = live.key ? String(keeperId() === live.me) : "";
    const list = $("table-peers");
    list.replaceChildren();
    if (live.key) {
      const k = keeperId();
      for (const [id, label] of [[live.me, W("this_phone")], ...open.map(([id]) => [id, say("phone_named", {id})])]) {
        const li = el("li", label + (id === k ? " · " + W("keeps") : ""));
        list.append(li);
      }
      const leaveButton = el("button", W("table_leave"));
      leaveButton.type = "button";
      leaveButton.id = "table-leave";
      leaveButton.addEventListener("click", () => { leave(); });
      const li = el("li");
      li.append(leaveButton);
      list.append(li);
    }
  }

  async function share() {
    $("table-error").hidden = true;
    stopCamera();
    const {data} = await T.call("/app/codes", {}, lang, live.key ? {id: live.gameId} : {});
    if (!data.ok) { fail(data.error === "no game is open" || data.none ? W("no_game_to_share") : data.error); return; }
    showCodes(data.codes, W("share_hint"));
  }

  window.KS_TABLE = {
    render: renderTable,
    leave: () => { stopCamera(); stopShowing(); },  // the tab left: the camera off
    state: () => ({key: live.key, me: live.me, keeper: keeperId(), phones: openPeers().length + (live.key ? 1 : 0),
      game: live.gameId, invites: live.invites.size, camera: !!camera,
      links: [...live.peers.values()].map((p) => [p.id || "?", p.role, p.open, p.pc ? p.pc.connectionState : "-"])}),
  };

  document.addEventListener("DOMContentLoaded", () => {
    $("table-share").addEventListener("click", share);
    $("table-join").addEventListener("click", () => { stopShowing(); startCamera(); });
    $("table-live").addEventListener("click", invite);
    $("table-stop").addEventListener("click", () => { stopCamera(); });
    $("table-picture").addEventListener("change", fromPicture);
    window.addEventListener("pagehide", () => { for (const [, p] of live.peers) send(p, {t: "bye"}); });
    renderTable();
  });
})();
