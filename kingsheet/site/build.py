"""`kingsheet site`: the phone app as a folder of static files.

What it writes: the page (the same page as `kingsheet serve`'s, with a worker for a transport), a
web app manifest, a service worker that keeps every file for offline use, the Pyodide runtime
files it needs (nothing else of that package) and one zip of the pure-Python packages the app
runs: kingsheet's core, files, render (no PDF), application layer and the worker's bridge, with
tomlkit, openpyxl and et_xmlfile. Pyodide comes from a pinned version, checked against its
sha256: fetched from the npm registry, or taken from ``--pyodide`` (the npm package's .tgz or its
unpacked folder) or from the user's cache folder.
"""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
import zipfile
from collections.abc import Callable, Iterator
from importlib.util import find_spec
from pathlib import Path

from kingsheet.core.i18n import _
from kingsheet.core.problems import InputError
from kingsheet.core.record import Record

PYODIDE_VERSION = "314.0.8"
PYODIDE_URL = f"https://registry.npmjs.org/pyodide/-/pyodide-{PYODIDE_VERSION}.tgz"
PYODIDE_SHA256 = "9a52704e0ae5b07aaacb8e4fed9f1658e8024694a078695ea45ac79dee4cefcb"  # the .tgz
#: The runtime files the app needs, each with its sha256 (an unpacked folder is checked file by file).
RUNTIME = {
    "pyodide.mjs": "1bb8cc14f9405aaa7cd4e00c12edd0a8539de9cc026618d6ee5a9663f367dc70",
    "pyodide.asm.mjs": "22514b8be6980e28a02c8b1d6387ce8dfe666fc4edf8d547cff5dce29ff4d972",
    "pyodide.asm.wasm": "e14d49ceca9b4a0e274ea918f3a898de2d3880b6e5573a6cfe1a2267ecc70329",
    "python_stdlib.zip": "2bd3394a145bfbbe5bbc9d9d6ab9136abbb986c6fef6c142b3a2962227aa5c28",
    "pyodide-lock.json": "5dc2fc119108bc148c7457dc86e7675b5c87e1cafd420b9c34c1eaef7b36c010",
}
MAX_TGZ = 64 * 1024 * 1024
#: kingsheet's own folders the app runs (not the commands, the web server, the scanner or the fonts).
OWN = ("core", "files", "render", "table", "club", "site", "locale", "templates")  # club: the Club tab
LEFT_OUT = ("render/pdf.py", "site/build.py", "site/serving.py")
DEPENDENCIES = ("tomlkit", "openpyxl", "et_xmlfile")
PACKAGE = Path(__file__).resolve().parent.parent
STATIC = Path(__file__).resolve().parent / "static"
SERVE_STATIC = Path(__file__).resolve().parent.parent / "serve" / "static"
SHARED = ("app.js", "app.css")  # the phone page's own script and style, as `serve` sends them
OWN_FILES = ("site.js", "table.js", "worker.js", "sw.js", "manifest.webmanifest", "icon.svg")
SITE_CSP = ("default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; style-src 'self'; "
            "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; object-src 'none'")


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _cache_folder() -> Path:
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("kingsheet")) / "pyodide"


class Pinned(Record):
    """An npm package the app carries files of, pinned by the sha256 of its .tgz and of each file."""

    name: str
    version: str
    sha256: str
    files: dict[str, str]  # the path inside the package (without "package/") → its sha256
    label: str = ""  # its name as people write it

    @property
    def url(self) -> str:
        return f"https://registry.npmjs.org/{self.name}/-/{self.name}-{self.version}.tgz"

    @property
    def title(self) -> str:
        return f"{self.label or self.name} {self.version}"


PYODIDE = Pinned("pyodide", PYODIDE_VERSION, PYODIDE_SHA256, RUNTIME, "Pyodide")
#: ZXing's QR reader in WebAssembly, for the cameras that have no BarcodeDetector (Chromium on a
#: desktop, Firefox, iOS before 17): the reader-only build, its script and its module.
ZXING = Pinned("zxing-wasm", "3.1.8", "065e4b2a8130ea520428ca08510ca8ef48acb84d7900a64cfc1cf3909ed3695a", {
    "dist/iife/reader/index.js": "7eae17ea3809796ea13b63d175a404dcea1e2f737697e90656fb374b16583758",
    "dist/reader/zxing_reader.wasm": "8451d7fe72f3d8e9ced56c7b6805e8bab88a0c218bfcd25c47c0a999e8188f3d",
    "LICENSE": "fb506e4ade12d7a9efa67c9d76a9a28c8e15d347ca49a69e48e29b40b34ad2ab",
})


def runtime_files(given: Path | None = None, say: Callable[[str], None] | None = None,
                  pinned: Pinned = PYODIDE) -> dict[str, bytes]:
    """The pinned package's files, each checked: from ``given`` (a .tgz or a folder), else the
    cache, else the npm registry (then kept in the cache)."""
    if given is not None:
        if given.is_dir():
            return {name: _checked(name, _read(given / name), pinned) for name in pinned.files}
        return _from_tgz(_read(given), str(given), pinned)
    cached = _cache_folder() / f"{pinned.name}-{pinned.version}.tgz"
    if cached.is_file():
        data = _read(cached)
        if _sha256(data) == pinned.sha256:
            return _from_tgz(data, str(cached), pinned)
    if say:
        say(_("fetching {package} from the npm registry…").format(package=pinned.title))
    data = _download(pinned)
    files = _from_tgz(data, pinned.url, pinned)
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        from kingsheet.files.storage import atomic_write

        atomic_write(cached, data)
    except (OSError, InputError):
        pass  # a cache that cannot be written is only slower next time
    return files


def _read(path: Path) -> bytes:
    from kingsheet.files.gamefile import read_bounded

    return read_bounded(path, MAX_TGZ, "Pyodide")


def _download(pinned: Pinned) -> bytes:
    import urllib.error
    import urllib.request

    url = pinned.url
    try:
        with urllib.request.urlopen(url, timeout=120) as response:  # noqa: S310 - a fixed https address
            data: bytes = response.read(MAX_TGZ + 1)
    except (urllib.error.URLError, OSError) as exc:
        option = "--pyodide" if pinned is PYODIDE else "--zxing"
        raise InputError(_("cannot fetch {package} from {url} ({why}); give it with {option} FILE").format(
            package=pinned.title, url=url, why=getattr(exc, "reason", exc), option=option)) from None
    if len(data) > MAX_TGZ:
        raise InputError(_("{url}: larger than expected; not the pinned {package}").format(url=url, package=pinned.title))
    return data


def _from_tgz(data: bytes, where: str, pinned: Pinned = PYODIDE) -> dict[str, bytes]:
    if _sha256(data) != pinned.sha256:
        raise InputError(_("{where}: not {package} as pinned (its sha256 differs)").format(
            where=where, package=pinned.title))
    out: dict[str, bytes] = {}
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for member in tar.getmembers():
            name = member.name.removeprefix("package/")
            if name in pinned.files and member.isfile():
                extracted = tar.extractfile(member)
                if extracted is not None:
                    out[name] = _checked(name, extracted.read(), pinned)
    missing = [n for n in pinned.files if n not in out]
    if missing:
        raise InputError(_("{where}: {name} is missing").format(where=where, name=missing[0]))
    return out


def _checked(name: str, data: bytes, pinned: Pinned = PYODIDE, whole: bool = False) -> bytes:
    """A file checked by its own sha256 (inside a checked .tgz too)."""
    if _sha256(data) != pinned.files[name]:
        raise InputError(_("{name}: not {package}'s file (its sha256 differs)").format(
            name=name, package=pinned.title))
    return data


def _package_files(name: str) -> Iterator[tuple[str, Path]]:
    spec = find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise InputError(_("{name} is not installed").format(name=name))
    root = Path(next(iter(spec.submodule_search_locations)))
    for path in sorted(root.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix not in (".pyc", ".pyi"):
            yield f"{name}/{path.relative_to(root).as_posix()}", path


def python_zip() -> bytes:
    """kingsheet's own pure-Python layers and its dependencies, as one zip for the worker's path."""
    from kingsheet.files.templates import template_dir

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        z.write(PACKAGE / "__init__.py", "kingsheet/__init__.py")
        for arc, path in _package_files("kingsheet"):
            inner = arc.removeprefix("kingsheet/")
            if inner.split("/")[0] in OWN and inner not in LEFT_OUT:
                z.write(path, arc)
        if not any(n.startswith("kingsheet/templates/") for n in z.namelist()):  # a source tree
            for path in sorted(template_dir().glob("*.toml")):
                z.write(path, f"kingsheet/templates/{path.name}")
        # the QR encoder for the hand-over codes: reportlab's file alone (MIT, Kazuhiko Arase's port;
        # its notice is in the file), not the rest of reportlab
        import reportlab

        z.write(Path(reportlab.__file__).parent / "graphics" / "barcode" / "qrencoder.py", "kingsheet/render/_qrencoder.py")
        z.writestr(f"kingsheet-{_version()}.dist-info/METADATA",
                   f"Metadata-Version: 2.1\nName: kingsheet\nVersion: {_version()}\n")
        for dep in DEPENDENCIES:
            for arc, path in _package_files(dep):
                z.write(path, arc)
    return out.getvalue()


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("kingsheet")
    except PackageNotFoundError:  # a source tree that was never installed
        return "0+unknown"


def page_html(lang: str) -> str:
    """The serve page, with the worker for a transport: the same markup, script and style."""
    html = (SERVE_STATIC / "index.html").read_text(encoding="utf-8")
    html = html.replace('<html lang="ru">', f'<html lang="{lang}" data-transport="worker">')
    # the app's own files only, as serve's header says (a host that sends headers should add
    # frame-ancestors 'none', which a <meta> cannot say); Python runs in the module worker, whose
    # WebAssembly needs 'wasm-unsafe-eval'
    html = html.replace('<meta name="referrer" content="no-referrer">',
                        f'<meta name="referrer" content="no-referrer">\n<meta http-equiv="Content-Security-Policy" '
                        f'content="{SITE_CSP}">')
    html = html.replace('<link rel="stylesheet" href="/static/app.css?t={token}">',
                        '<link rel="manifest" href="manifest.webmanifest">\n'
                        '<link rel="icon" href="icon.svg">\n<meta name="theme-color" content="#1d3b2a">\n'
                        '<link rel="stylesheet" href="app.css">')
    html = html.replace('<script src="/static/app.js?t={token}" defer></script>',
                        '<script src="site.js" defer></script>\n<script src="app.js" defer></script>\n'
                        '<script src="zxing/reader.js" defer></script>\n<script src="table.js" defer></script>')
    # the page's words in every language, there from the first paint (Python takes seconds to start),
    # and the rule systems of the new-game form: a first visit starts a game before Python is up
    from kingsheet.core import i18n
    from kingsheet.table.actions import rule_systems, words

    both: dict[str, dict[str, object]] = {"words": {}, "rules": {}}
    for each in i18n.LANGUAGES:
        with i18n.speaking(each):
            both["words"][each] = words(each)
            both["rules"][each] = rule_systems(each)
    data = json.dumps(both, ensure_ascii=False).replace("</", "<\\/")
    html = html.replace("</head>", f'<script id="ks-words" type="application/json">{data}</script>\n</head>')
    if "{token}" in html or 'data-transport="worker"' not in html:
        raise AssertionError("the serve page changed: the site's page needs a look")  # pragma: no cover
    return html


#: zxing-wasm's files as the app serves them (the script finds its module beside it: table.js).
ZXING_AS = {"dist/iife/reader/index.js": "zxing/reader.js", "dist/reader/zxing_reader.wasm": "zxing/zxing_reader.wasm",
            "LICENSE": "zxing/LICENSE"}


def build(out: Path, lang: str, pyodide: Path | None = None, say: Callable[[str], None] | None = None,
          zxing: Path | None = None) -> dict[str, int]:
    """Write the app into ``out`` (made if need be; files of an earlier build replaced). Returns
    each file's size."""
    from kingsheet.files.storage import atomic_write

    runtime = runtime_files(pyodide, say)
    files: dict[str, bytes] = {f"pyodide/{name}": data for name, data in runtime.items()}
    for name, data in runtime_files(zxing, say, ZXING).items():
        files[ZXING_AS[name]] = data
    lock = json.loads(runtime["pyodide-lock.json"])
    # no package is loaded from the lock file: only its description of the runtime is kept
    files["pyodide/pyodide-lock.json"] = json.dumps({"info": lock["info"], "packages": {}}).encode()
    files["python.zip"] = python_zip()
    files["index.html"] = page_html(lang).encode("utf-8")
    for name in SHARED:
        files[name] = (SERVE_STATIC / name).read_bytes()
    for name in OWN_FILES:
        files[name] = (STATIC / name).read_bytes()
    stamp = _sha256(b"".join(_sha256(files[n]).encode() for n in sorted(files)))[:16]
    files["build.json"] = json.dumps({"version": stamp, "pyodide": PYODIDE_VERSION,
                                      "python": _sha256(files["python.zip"])}).encode()
    listed = sorted(n for n in files if n != "sw.js")
    files["sw.js"] = files["sw.js"].replace(b'"{version}"', json.dumps(stamp).encode()).replace(
        b"[/*files*/]", json.dumps(["./", *listed]).encode())
    try:
        out.mkdir(parents=True, exist_ok=True)
        (out / "pyodide").mkdir(exist_ok=True)
        (out / "zxing").mkdir(exist_ok=True)
    except OSError as exc:
        raise InputError(_("{path}: cannot write in {folder} ({strerror})").format(
            path=out, folder=out, strerror=exc.strerror)) from None
    for name, data in files.items():
        atomic_write(out / name, data)
    return {name: len(data) for name, data in files.items()}
