"""Where rules come from: the bundled templates and template files beside the games, found by a
reference (``blank-4``, ``house.toml``), read once and again when the file changes."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path

from kingsheet.core.i18n import _
from kingsheet.core.record import replace
from kingsheet.core.rules import MAX_TEMPLATE_BYTES, Rules, RulesError, Template
from kingsheet.core.templates import read_template, resolve


@cache
def template_dir() -> Path:
    """Where the bundled templates live: inside the package when installed, else the repo."""
    here = Path(__file__).resolve().parent.parent  # the package
    packaged = here / "templates"
    return packaged if packaged.is_dir() else here.parent / "templates"


def template_ids() -> list[str]:
    return sorted(p.stem for p in template_dir().glob("*.toml"))


def is_template_path(ref: str) -> bool:
    """A rules reference names a file (``house.toml``, ``rules/ours.toml``), not a bundled id."""
    return ref.endswith(".toml") or "/" in ref or "\\" in ref


def template_path(ref: str) -> Path:
    """Where a rules reference's template lives; RulesError when there is none."""
    path = Path(ref) if is_template_path(ref) else template_dir() / f"{ref}.toml"
    if path.exists() and not path.is_file():
        raise RulesError(_("template {ref} is not a regular file (a folder, a device or a pipe)").format(ref=ref))
    if not path.is_file():
        if is_template_path(ref):
            raise RulesError(_("template file {ref} not found").format(ref=ref))
        import difflib

        close = difflib.get_close_matches(ref.casefold(), template_ids(), n=1, cutoff=0.6)
        hint = _("did you mean '{id}'? ").format(id=close[0]) if close else ""
        raise RulesError(_("unknown rules '{ref}'; {hint}known: {value}").format(
            ref=ref, hint=hint, value=', '.join(template_ids())))
    return path


def _stamp(path: Path) -> tuple[int, int]:
    """When a template file last changed: a running process (``play``, a server) sees edits."""
    try:
        st = path.stat()
    except OSError as exc:
        raise RulesError(_("cannot read template {path}: {strerror}").format(path=path, strerror=exc.strerror)) from None
    return st.st_mtime_ns, st.st_size


_TEMPLATES: dict[tuple[str, int, int], Template] = {}
_RULES: dict[tuple[object, ...], Rules] = {}
_CACHE_SIZE = 64


def load_template(ref: str) -> Template:
    """A bundled template by id, or a template file by path; read again when the file changes."""
    path = template_path(ref)
    key = (str(path.resolve()), *_stamp(path))
    if key not in _TEMPLATES:
        if len(_TEMPLATES) >= _CACHE_SIZE:
            _TEMPLATES.clear()
        try:
            with path.open("rb") as fh:  # never more than the limit, whatever the file claims
                data = fh.read(MAX_TEMPLATE_BYTES + 1)
            text = data.decode("utf-8-sig")
        except (OSError, UnicodeDecodeError) as exc:
            raise RulesError(_("cannot read template {ref}: {exc}").format(ref=ref, exc=exc)) from None
        _TEMPLATES[key] = replace(read_template(text, path), stamp=key[1:])
    return _TEMPLATES[key]


def load_rules(ref: str, options: Mapping[str, str] | None = None) -> Rules:
    """The rules of a game: a template with its options chosen. Rules are immutable, so a batch of
    game files of one system resolves it once; an edited template file is read again."""
    template = load_template(ref)
    key = (template.id, str(template.path), template.stamp, tuple(sorted((options or {}).items())))
    if key not in _RULES:
        if len(_RULES) >= _CACHE_SIZE:
            _RULES.clear()
        _RULES[key] = resolve(template, dict(options or {}))
    return _RULES[key]


def rules_beside(folder: Path | None) -> Callable[[str, Mapping[str, str]], Rules]:
    """How a game file finds its rules: a bundled id, or a template file named relative to the
    file's own folder."""
    def find(ref: str, options: Mapping[str, str]) -> Rules:
        if is_template_path(ref) and folder is not None and not Path(ref).is_absolute():
            ref = str(folder / ref)
        return load_rules(ref, options)

    return find
