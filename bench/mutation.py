"""A mutation campaign over the core: change one operator, constant or statement at a time and see
whether the tests notice. Usage: python bench/mutation.py [--sample N] [--seed S] [--lines L,…] [module ...]

Each mutant is written into a copy of the repository (the work tree is never touched) and the
tests that guard the module run against it with -x. A mutant that no test kills is printed with
its place, for a person to judge: some are equivalent (they change nothing a test could see).
Prints the score per module and in all.
"""

from __future__ import annotations

import argparse
import ast
import copy
import random
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = {  # the tests that guard each module (the fast ones)
    "core/verify.py": ["tests/test_verdicts.py", "tests/test_verify.py", "tests/test_sequence.py", "tests/test_counted_rows.py",
                       "tests/test_hand_worked.py", "tests/test_examples.py", "tests/test_limit_games.py"],
    "core/sequence.py": ["tests/test_sequence.py", "tests/test_verify.py", "tests/test_house_rules.py",
                         "tests/test_examples.py", "tests/test_limit_games.py"],
    "core/feasibility.py": ["tests/test_counted_rows.py", "tests/test_feasibility.py", "tests/test_verify.py",
                            "tests/test_limit_games.py"],
    "core/money.py": ["tests/test_money.py", "tests/test_hand_worked.py"],
    "core/scoring.py": ["tests/test_verify.py", "tests/test_sequence.py", "tests/test_xlsx.py"],
    "club/queries.py": ["tests/test_club_figures.py", "tests/test_club.py", "tests/test_rating.py"],
    "club/rating.py": ["tests/test_rating.py", "tests/test_club_figures.py"],
}
SWAP_CMP = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
            ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In}
SWAP_BIN = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.FloorDiv, ast.FloorDiv: ast.Mult, ast.Mod: ast.FloorDiv}


@dataclass(frozen=True)
class Mutant:
    module: str
    line: int
    what: str
    index: int  # which node of the walk


def _points(tree: ast.AST) -> list[tuple[int, ast.AST, str]]:
    out = []
    for k, node in enumerate(ast.walk(tree)):
        if isinstance(node, ast.Compare) and type(node.ops[0]) in SWAP_CMP:
            out.append((k, node, f"{type(node.ops[0]).__name__} → {SWAP_CMP[type(node.ops[0])].__name__}"))
        elif isinstance(node, ast.BinOp) and type(node.op) in SWAP_BIN:
            out.append((k, node, f"{type(node.op).__name__} → {SWAP_BIN[type(node.op)].__name__}"))
        elif isinstance(node, ast.BoolOp):
            out.append((k, node, "and ↔ or"))
        elif isinstance(node, ast.Constant) and type(node.value) is int:
            out.append((k, node, f"{node.value} → {node.value + 1}"))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            out.append((k, node, "not x → x"))
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            out.append((k, node, "call deleted"))
        elif isinstance(node, ast.Return) and node.value is not None and not (
                isinstance(node.value, ast.Constant) and node.value.value is None):
            out.append((k, node, "return None"))
    return out


def _mutate(tree: ast.AST, index: int) -> ast.AST:
    tree = copy.deepcopy(tree)
    for k, node in enumerate(ast.walk(tree)):
        if k != index:
            continue
        if isinstance(node, ast.Compare):
            node.ops[0] = SWAP_CMP[type(node.ops[0])]()
        elif isinstance(node, ast.BinOp):
            node.op = SWAP_BIN[type(node.op)]()
        elif isinstance(node, ast.BoolOp):
            node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        elif isinstance(node, ast.Constant):
            node.value = node.value + 1
        elif isinstance(node, ast.UnaryOp):
            return _replace(tree, node, node.operand)
        elif isinstance(node, ast.Expr):
            return _replace(tree, node, ast.Pass())
        elif isinstance(node, ast.Return):
            node.value = ast.Constant(None)
        return tree
    raise IndexError(index)


def _replace(tree: ast.AST, old: ast.AST, new: ast.AST) -> ast.AST:
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            if value is old:
                setattr(parent, field, new)
                return tree
            if isinstance(value, list) and old in value:
                value[value.index(old)] = new
                return tree
    raise LookupError


def _docstring_lines(tree: ast.AST) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            lines.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("modules", nargs="*", default=list(TESTS))
    ap.add_argument("--sample", type=int, default=0, help="test only N mutants per module, drawn at random")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--start", type=int, default=0, help="skip the first N mutants of each module (a run in parts)")
    ap.add_argument("--count", type=int, default=0, help="test at most N mutants of each module from --start")
    ap.add_argument("--timeout", type=int, default=600, help="seconds a mutant's tests may take; past it the "
                                                              "mutant counts as killed (an endless loop)")
    ap.add_argument("--lines", default="", help="only the mutants at these lines (1,5,9): the survivors of a run, "
                                                 "once tests were written for them")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="kingsheet-mutants-"))
    for part in ("kingsheet", "tests", "templates", "examples", "pyproject.toml", "README.md", "docs"):
        src = ROOT / part
        (shutil.copytree if src.is_dir() else shutil.copy)(src, work / part)
    rng = random.Random(args.seed)
    total = killed = 0
    started = time.perf_counter()
    for module in args.modules:
        path = work / "kingsheet" / module
        original = path.read_text(encoding="utf-8")
        tree = ast.parse(original)
        skip = _docstring_lines(tree)
        points = [(k, node, what) for k, node, what in _points(tree) if getattr(node, "lineno", 0) not in skip]
        if args.lines:
            wanted = {int(x) for x in args.lines.split(",")}
            points = [(k, node, what) for k, node, what in points if getattr(node, "lineno", 0) in wanted]
        if args.sample:
            points = rng.sample(points, min(args.sample, len(points)))
        points = points[args.start:args.start + args.count if args.count else None]
        survived = []
        for k, node, what in points:
            try:
                path.write_text(ast.unparse(_mutate(tree, k)), encoding="utf-8")
                res = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
                                      "-m", "not slow", *TESTS[module]], cwd=work, capture_output=True, timeout=args.timeout)
                dead = res.returncode != 0
            except subprocess.TimeoutExpired:
                dead = True  # an endless loop is noticed too
            finally:
                path.write_text(original, encoding="utf-8")
            total += 1
            killed += dead
            if not dead:
                survived.append(Mutant(module, getattr(node, "lineno", 0), what, k))
            print(f"  {module} {args.start + total}: line {getattr(node, 'lineno', 0)} {what}: {'killed' if dead else 'SURVIVED'}",
                  file=sys.stderr, flush=True)
        n = len(points)
        print(f"{module}: {n - len(survived)} of {n} mutants killed" + (f" ({100 * (n - len(survived)) / n:.0f}%)"
                                                                     if n else ""))
        for m in survived:
            line = original.splitlines()[m.line - 1].strip() if m.line else ""
            print(f"  survived: {m.module}:{m.line} {m.what}    {line[:90]}")
        sys.stdout.flush()
    print(f"all: {killed} of {total} mutants killed in {time.perf_counter() - started:.0f} s")
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
