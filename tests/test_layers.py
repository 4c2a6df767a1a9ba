"""The layers of the package, one import rule to a folder, and the version taken from one place."""

from __future__ import annotations

import ast
import importlib.metadata
from pathlib import Path

import pytest

import kingsheet
from conftest import ROOT

PACKAGE = ROOT / "kingsheet"
ALLOWED = {
    "core": {"core"},
    "files": {"core", "files"},
    "render": {"core", "render"},
    "club": {"core", "files", "club"},  # a club's history: the index and its queries (pure Python)
    "table": {"core", "files", "render", "club", "scan", "table"},  # (scan only inside the photo flow)  # the application layer: every flow a screen starts
    "serve": {"core", "files", "render", "table", "serve"},  # the phone page: a layer beside the command line
    "site": {"core", "files", "render", "table", "site"},  # the phone app, offline in the browser
    "scan": {"core", "files", "render", "scan"},  # the photographed blank, read back
    "cli": {"core", "files", "render", "club", "table", "serve", "scan", "site", "cli"},
}


def imports_of(path: Path, root: Path = ROOT) -> list[tuple[int, str]]:
    """Every kingsheet module a file imports, at the top or inside a function, as a dotted name."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    here = path.relative_to(root).with_suffix("").parts
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against the file's package
                base = list(here[:-1])[: len(here) - node.level]
                name = ".".join([*base, *([node.module] if node.module else [])])
            else:
                name = node.module or ""
            out.append((node.lineno, name))
        elif isinstance(node, ast.Import):
            out.extend((node.lineno, alias.name) for alias in node.names)
    return [(line, name) for line, name in out if name == "kingsheet" or name.startswith("kingsheet.")]


MODULES = sorted(p for p in PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_each_folder_imports_only_what_its_rule_allows(path):
    layer = path.relative_to(PACKAGE).parts[0]
    if layer == "__init__.py":
        assert imports_of(path) == []
        return
    assert layer in ALLOWED, f"{path}: a module outside the layers"
    for line, name in imports_of(path):
        parts = name.split(".")
        assert len(parts) >= 2 and parts[1] in ALLOWED[layer], \
            f"{path.relative_to(ROOT)}:{line} imports {name}; {layer} may import only {sorted(ALLOWED[layer])}"


def test_the_rule_sees_imports_inside_functions_and_relative_ones(tmp_path):
    """The checker itself: a core module that imports render late, or by a relative name, is seen."""
    fake = tmp_path / "kingsheet" / "core" / "verify.py"
    fake.parent.mkdir(parents=True)
    fake.write_text("from ..render import text\n\ndef _x():\n    from kingsheet.files.storage import locked\n",
                    encoding="utf-8")
    assert imports_of(fake, tmp_path) == [(1, "kingsheet.render"), (4, "kingsheet.files.storage")]


def test_the_sheets_and_screens_ask_a_game_what_it_is_not_its_kind():
    """Renderers and the application layer read a game's properties (``declared``, ``counted``,
    ``rules.trump_game``), never its ``Kind``: a new kind of game is the core's business alone."""
    found = [f"{path.relative_to(ROOT)}:{node.lineno}"
             for folder in ("render", "table", "serve", "site")
             for path in sorted((PACKAGE / folder).rglob("*.py"))
             for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
             if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "Kind"]
    assert not found, found


def test_the_version_comes_from_the_installed_metadata():
    assert kingsheet.__version__ == importlib.metadata.version("kingsheet")


def test_the_suite_runs_against_the_package_it_means():
    """CI runs the suite twice: on the source tree, and with KINGSHEET_TEST_INSTALLED=1 against the
    installed wheel. Each run must import the kingsheet it means to test."""
    import os

    where = Path(kingsheet.__file__).resolve()
    if os.environ.get("KINGSHEET_TEST_INSTALLED"):
        assert "site-packages" in where.parts, where
    else:
        assert where.is_relative_to(ROOT), where


def test_the_heavy_extras_load_only_in_their_command():
    """Starlette and uvicorn (kingsheet[serve]), the scanner and the phone app's builder are not
    imported by the CLI's start nor by any other command."""
    import subprocess
    import sys

    code = ("import sys, kingsheet.cli.app; "
            "print(sorted(m for m in ('starlette', 'uvicorn', 'kingsheet.serve', 'cv2', 'numpy', 'kingsheet.scan', "
            "'kingsheet.site', 'kingsheet.table', 'tarfile', 'zipfile') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_reader_weights_are_the_file_model_md_describes():
    """MODEL.md records the shipped weights' sha256: a changed file without its record fails here."""
    import hashlib
    import re

    model = (PACKAGE / "scan" / "MODEL.md").read_text(encoding="utf-8")
    recorded = re.search(r"\| sha256 \| `([0-9a-f]{64})`", model)
    assert recorded, "MODEL.md names the weights' sha256"
    assert hashlib.sha256((PACKAGE / "scan" / "digits.npz").read_bytes()).hexdigest() == recorded.group(1)
