// kingsheet's Python in the phone app: Pyodide in a worker, so the page never freezes while it
// starts or checks a row. One request in (JSON), one answer out, in the order they came.
//
// Starting CPython in WebAssembly costs seconds on a phone; so at the first visit, once kingsheet
// is imported and has done one of everything, a snapshot of the worker's memory is kept in the
// browser's cache storage, keyed by this build (Pyodide's version and the Python zip's hash). Later
// starts restore it instead (well under a second of work); any trouble with it, and the plain
// start is taken and the snapshot made again.
import { loadPyodide } from "./pyodide/pyodide.mjs";
import createModule from "./pyodide/pyodide.asm.mjs";

const INDEX = new URL("./pyodide/", import.meta.url).href;
const LIB = "/kingsheet-lib";
const SNAPSHOTS = "kingsheet-snapshots";
let handle = null;
const started = performance.now();

async function bytes(name) {
  const r = await fetch(new URL(name, import.meta.url));
  if (!r.ok) throw new Error(name + ": " + r.status);
  return new Uint8Array(await r.arrayBuffer());
}

// the snapshot's memory is larger than a fresh module's: grow the heap before it is laid back
function growingTo(size) {
  return async (settings) => {
    const mod = await createModule(settings);
    const held = [];
    while (mod.HEAP8.length < size && held.length < 512) {
      const p = mod._malloc(4 << 20);
      if (!p) break;
      held.push(p);
    }
    for (const p of held) mod._free(p);
    return mod;
  };
}

async function fromSnapshot(cache, key, zip) {
  const hit = cache && await cache.match(key);
  if (!hit) return null;
  try {
    const snap = new Uint8Array(await hit.arrayBuffer());
    const py = await loadPyodide({indexURL: INDEX, _loadSnapshot: snap, createPyodideModule: growingTo(snap.length),
      stdout: () => {}, stderr: () => {}});
    py.unpackArchive(zip, "zip", {extractDir: LIB});  // the files: the snapshot holds memory only
    return py;
  } catch (e) {
    postMessage({snapshotFailed: String(e && e.message || e)});
    await cache.delete(key);
    return null;
  }
}

const ready = (async () => {
  const build = JSON.parse(new TextDecoder().decode(await bytes("./build.json")));
  const zip = await bytes("./python.zip");
  const cache = self.caches ? await caches.open(SNAPSHOTS).catch(() => null) : null;
  const key = new URL("./snapshot-" + build.version, import.meta.url).href;
  let py = await fromSnapshot(cache, key, zip);
  let how = "snapshot";
  if (!py) {
    how = "plain";
    py = await loadPyodide({indexURL: INDEX, _makeSnapshot: !!cache, stdout: () => {}, stderr: () => {}});
    py.unpackArchive(zip, "zip", {extractDir: LIB});
    py.runPython(`import sys\nsys.path.insert(0, ${JSON.stringify(LIB)})\nfrom kingsheet.site import bridge\nbridge.warm()`);
    if (cache) {
      const snap = py.makeMemorySnapshot();
      for (const old of await cache.keys()) if (old.url !== key) await cache.delete(old);
      cache.put(key, new Response(snap)).then(  // no room: the next start is a plain one
        () => postMessage({snapshot: true}), () => postMessage({snapshot: false}));
    }
  }
  handle = py.runPython("from kingsheet.site.bridge import handle\nhandle");
  return how;
})();

ready.then(
  (how) => postMessage({ready: true, how, ms: Math.round(performance.now() - started)}),
  (e) => postMessage({ready: false, error: String(e && e.message || e)}));

self.onmessage = async (ev) => {
  const {id, request} = ev.data;
  try {
    await ready;
  } catch (e) {
    postMessage({id, error: String(e && e.message || e)});
    return;
  }
  const t0 = performance.now();
  try {
    const response = handle(JSON.stringify(request));
    postMessage({id, response, ms: performance.now() - t0});
  } catch (e) {
    postMessage({id, error: String(e && e.message || e)});
  }
};
