// kingsheet's Python in the phone app: Pyodide in a worker, so the page never freezes while it
// starts or checks a row. One request in (JSON), one answer out, in the order they came.
import { loadPyodide } from "./pyodide/pyodide.mjs";

let handle = null;
const started = performance.now();
const ready = (async () => {
  const py = await loadPyodide({
    indexURL: new URL("./pyodide/", import.meta.url).href,
    stdout: () => {}, stderr: () => {},
  });
  const zip = await fetch(new URL("./python.zip", import.meta.url));
  if (!zip.ok) throw new Error("python.zip: " + zip.status);
  py.unpackArchive(await zip.arrayBuffer(), "zip", {extractDir: "/kingsheet-lib"});
  py.runPython("import sys; sys.path.insert(0, '/kingsheet-lib')");
  handle = py.runPython("from kingsheet.site.bridge import handle\nhandle");
  handle(JSON.stringify({op: "rules", lang: "ru"}));  // the first call imports the rest: before the first deal
})();

ready.then(
  () => postMessage({ready: true, ms: Math.round(performance.now() - started)}),
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
