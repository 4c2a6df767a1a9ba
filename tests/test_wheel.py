"""The built wheel carries the templates: install it apart from the source tree and list them."""

from __future__ import annotations

import subprocess
import sys
import zipfile

import pytest

from conftest import ROOT

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    try:
        subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(ROOT)],
                       check=True, capture_output=True, text=True, timeout=300)
    except subprocess.CalledProcessError as exc:  # pragma: no cover - shows why in CI
        pytest.fail(f"building the wheel failed: {exc.stderr[-2000:]}")
    return next(out.glob("kingsheet-*.whl"))


def test_wheel_holds_every_template(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    packaged = {n.split("/")[-1][:-5] for n in names if n.startswith("kingsheet/templates/") and n.endswith(".toml")}
    in_repo = {p.stem for p in (ROOT / "templates").glob("*.toml")}
    assert packaged == in_repo and len(in_repo) >= 17
    fonts = {n.split("/")[-1] for n in names if n.startswith("kingsheet/fonts/")}
    assert {"DejaVuSansCondensed.ttf", "DejaVuSansCondensed-Bold.ttf", "LICENSE-DejaVu.txt"} <= fonts


def test_installed_wheel_lists_templates(wheel, tmp_path):
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(wheel)],
                   check=True, capture_output=True, timeout=300)
    code = ("import kingsheet.files.templates as r, sys; assert 'site' in r.__file__, r.__file__; "
            "print(' '.join(r.template_ids())); print(r.load_rules('ordered-56').stage_total(0)); "
            "from kingsheet.render.pdf import blank_pdf; assert len(blank_pdf(r.load_rules('blank-4'))) > 10000")
    env = {"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env,
                         check=True)
    ids, total = out.stdout.splitlines()
    assert "blank-4" in ids.split() and len(ids.split()) >= 17
    assert total == "-768"


def test_every_install_line_of_the_docs_resolves_from_a_clone():
    """Each `pip install` of the README and docs/, run as written in the clone (a dry run: what it
    would install, resolved for real)."""
    from test_readme import install_specs

    for spec in sorted({spec for _where, spec in install_specs()}):
        r = subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "-q", "--no-deps", spec], cwd=ROOT,
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, (spec, r.stderr[-1500:])
