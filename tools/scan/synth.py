"""Photos of filled blanks, made here: the project's own blank, a simulated legal game written in
with a handwriting font, then photographed as a phone would (perspective, rotation, uneven light,
blur, noise, JPEG). For the bench and the tests of `kingsheet scan`."""

from __future__ import annotations

import io
import random
import subprocess
import sys
import tempfile
from functools import cache
from pathlib import Path
from typing import NamedTuple

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

sys.path.insert(0, str(Path(__file__).resolve().parent))
from handwriting import DigitsHand, FontHand  # noqa: E402

DPI = 300  # a 12-megapixel phone photo of A4 has about this


@cache
def blank_pages(rules_id: str, lang: str = "ru") -> tuple[bytes, ...]:
    """The blank's pages as PNG bytes at DPI (pdftoppm)."""
    from kingsheet.files.templates import load_rules
    from kingsheet.render.pdf import blank_pdf

    with tempfile.TemporaryDirectory() as d:
        pdf = Path(d) / "b.pdf"
        pdf.write_bytes(blank_pdf(load_rules(rules_id), None, lang))
        subprocess.run(["pdftoppm", "-r", str(DPI), "-gray", "-png", str(pdf), str(Path(d) / "p")], check=True)
        return tuple(p.read_bytes() for p in sorted(Path(d).glob("p-*.png")))


class Written(NamedTuple):
    """A row as it was written: its game and its (signed) points."""

    game: str
    points: tuple[int, ...]


class Pen(NamedTuple):
    """What a blank is filled in with, for photos in colour: the ink's colour (RGB) where it lies
    thick; how much of it a stroke lays down (a pencil's graphite: about half, and uneven); how many
    pixels (at DPI) a stroke loses on each side (a fine pen's or a hard pencil's line)."""

    colour: tuple[int, int, int]
    strength: float = 1.0
    thin: int = 0


#: Pens by name. A hard pencil's line is also thinner than the font draws it: on hands whose strokes are
#: already thin (a script font) it is a hairline, a test harder than a card table's pencils.
PENS = {"black": Pen((25, 25, 30)), "blue": Pen((30, 50, 140)), "light blue": Pen((60, 110, 210)),
        "violet": Pen((85, 50, 145)), "red": Pen((190, 30, 40)), "pencil": Pen((60, 60, 65), strength=0.6),
        "hard pencil": Pen((60, 60, 65), strength=0.6, thin=1)}
#: How often each pen fills a blank in the bench's and the tools' photos: mostly blue and black, and
#: a pencil now and then (the table's score is often kept in pencil, to be rubbed out).
USUAL_PENS = ("blue", "blue", "black", "black", "violet", "light blue", "pencil")


def usual_pen(rng: random.Random) -> Pen:
    """A pen drawn as people's pens go (USUAL_PENS)."""
    return PENS[rng.choice(USUAL_PENS)]


#: Habits people have on paper, each a share (of the cells, or of the pages for a ring or a fold):
#: ``touching``: a number written low or high in its cell, its digits running into the cell's line;
#: ``across``: a number written across the border of its cell and the next (the last cell: the one
#: before); ``ring``: a coffee cup's ring on the page; ``fold``: the page folded in half (or in
#: quarters) before it was photographed, its crease and its facets in different light.
HABITS = ("touching", "across", "ring", "fold", "shadow", "shaken", "small")
#: A table's sheets as the world has them, every habit at once at about the rate an outside trial met
#: them (issue 68): `bench.py scan --scan-table`. Of the cells: touching, across; of the pages: ring,
#: fold, shadow; of the photos: shaken (moved 3–6 px), small (2,000 px on the long side).
TABLE = {"touching": 0.05, "across": 0.02, "ring": 0.1, "fold": 0.2, "shadow": 0.2, "shaken": 0.2, "small": 0.3}
TABLE_CROSSED = 0.02  # and this share of the cells crossed out and written again
#: The habits the last sheet made here took (filled_sheet starts it afresh, photograph adds to it),
#: each named once, "crossed" too: the bench's figures habit by habit.
TOOK: set[str] = set()


def filled_sheet(rules_id: str, hand: Path | FontHand | DigitsHand, rng: random.Random, lang: str = "ru",
                 deals: int | None = None, totals: bool = False, pen: Pen | None = None, crossed: float = 0.0,
                 habits: dict[str, float] | None = None) -> tuple[list[Image.Image], list[Written]]:
    """The blank's pages with a simulated legal game written in by ``hand`` (a font's path, or a
    hand of handwriting.py), and the game's rows. On an ordered blank the game column holds the
    game's number, as the blank asks; ``totals``: the ИТОГО lines are filled in at the end, each
    player's sums (−, +, all) as the table adds them up. ``pen``: written with it (RGB pages; else
    grey ink on grey pages). ``crossed``: the share of the cells where a wrong number of two digits
    or more is written first, ruled through, and the right one written beside it or above it.
    ``habits``: HABITS by name, each with its share (drawn from ``rng`` only where asked for: the
    same seed without habits makes the same sheet as before)."""
    from kingsheet.core.rules import Order
    from kingsheet.core.simulate import play_game
    from kingsheet.files.templates import load_rules
    from kingsheet.render.pdf import blank_boxes, ordered_games

    rules = load_rules(rules_id)
    TOOK.clear()
    layout, total_boxes = blank_boxes(rules, False, lang)
    pages = [Image.open(io.BytesIO(b)).convert("L") for b in blank_pages(rules_id, lang)]
    printed = pages
    if pen is not None:  # the handwriting on layers of its own, coloured at the end
        pages = [Image.new("L", p.size, 255) for p in printed]
    writer = FontHand(hand) if isinstance(hand, Path) else hand
    px = DPI / 25.4
    numbers = {gid: k for k, gid in enumerate(ordered_games(rules), 1)}
    rows = []
    for k, (played, _who) in enumerate(play_game(rules, rng), 1):
        if deals is not None and k > deals:
            break
        where = layout[k]
        page = pages[where.page - 1]
        ink = rng.randint(10, 70)

        def write(box: tuple[float, ...], centred: bool = False, *, text: str) -> None:
            x0, y0, x1, y1 = box
            if centred:  # (a hand of its own, as bench and tests may give, may not know how)
                writer.write(page, (x0 * px, y0 * px, x1 * px, y1 * px), text, rng, ink=ink,  # noqa: B023
                             centred=True)
                return
            writer.write(page, (x0 * px, y0 * px, x1 * px, y1 * px), text, rng, ink=ink)  # noqa: B023

        if rules.order not in (Order.FIXED, Order.TO_LIMIT):  # the blank prints no game: its number is written
            write(where.game, text=str(numbers[played.game]))
        for value, box in zip(played.points, where.cells):
            if value == 0 and rng.random() < 0.5:
                continue  # a zero left empty
            text = str(abs(value)) if value >= 0 or rng.random() < 0.75 else f"-{abs(value)}"
            if crossed and rng.random() < crossed:
                cross_out(page, writer, [v * px for v in box], text, rng, ink)
                TOOK.add("crossed")
                continue
            write(*_slipped(box, where.cells, text, habits or {}, rng), text=text)
        rows.append(Written(played.game, played.points))
    if totals and total_boxes and len(rows) == len(rules.slots):
        sums = [[sum(r.points[j] for r in rows if rules.stage_of(r.game) == stage) for j in range(rules.players)]
                for stage in (0, 1)]
        sums.append([a + b for a, b in zip(*sums)])
        for where, line in zip(total_boxes, sums):
            page = pages[where.page - 1]
            for value, (x0, y0, x1, y1) in zip(line, where.cells):
                text = str(abs(value)) if value >= 0 or rng.random() < 0.6 else f"-{abs(value)}"
                writer.write(page, (x0 * px, y0 * px, x1 * px, y1 * px), text, rng, ink=rng.randint(10, 70))
    if pen is not None:
        pages = [_in_colour(p, layer, pen, rng) for p, layer in zip(printed, pages)]
    habits = habits or {}
    for k in range(len(pages)):
        if habits.get("ring") and rng.random() < habits["ring"]:
            pages[k] = coffee_ring(pages[k], rng)
            TOOK.add("ring")
        if habits.get("fold") and rng.random() < habits["fold"]:
            pages[k] = folded(pages[k], rng)
            TOOK.add("fold")
        if habits.get("shadow") and rng.random() < habits["shadow"]:
            pages[k] = hard_shadow(pages[k], rng)
            TOOK.add("shadow")
    return pages, rows


def _slipped(box: tuple[float, ...], row: tuple[tuple[float, ...], ...], text: str, habits: dict[str, float],
             rng: random.Random) -> tuple[tuple[float, ...], bool]:
    """Where a number is written when a habit takes the hand (mm): low or high in its cell, so that
    its digits run into the cell's line, or across the border with the next cell; else its cell. And
    whether it is written centred there (astride the line: since 2026-12-07, so that it is astride it,
    not pushed wholly into the next cell by the hand's habit of writing towards the right, where no
    one could tell it from that cell's number)."""
    x0, y0, x1, y1 = box
    h = y1 - y0
    if habits.get("touching") and rng.random() < habits["touching"]:
        TOOK.add("touching")
        if rng.random() < 0.35:  # (since 2026-12-07) pressed to the right, onto the line at the cell's side
            dx = h * rng.uniform(0.1, 0.25)
            return (x0 + dx, y0, x1 + dx, y1), False
        dy = h * rng.uniform(0.12, 0.22) * (1 if rng.random() < 0.7 else -1)  # mostly low, on the line below
        return (x0, y0 + dy, x1, y1 + dy), False
    if habits.get("across") and rng.random() < habits["across"]:  # astride the line: on neither cell alone
        border = x0 if box == row[-1] else x1
        half = 0.3 * h * len(text) * rng.uniform(0.8, 1.1)  # about the number's own width: it has no room to move
        # its digits astride the line (a minus before them on one side and the digits on the other is
        # what a dash for a zero beside a number looks like: the paper itself says otherwise)
        shift = 0.3 * h if text.startswith("-") else 0.0
        # ... towards its own cell (until 2026-12-07 always to the left: a last cell's number, written across
        # the line on its left, was pushed wholly into the cell before it, its ink not even touching its own,
        # where no one could read it as that cell's: three rows of 30 validation sheets, `validate.py --google
        # --habit across=0.1 30 63000`, read "wrong" and sure were −16 and −8 lying in the other cell)
        if border == x0:
            shift = -shift
        TOOK.add("across")
        return (border - half - shift, y0, border + half - shift, y1), True
    return box, False


def coffee_ring(page: Image.Image, rng: random.Random) -> Image.Image:
    """A coffee cup's ring on the page: a brown circle 6–9 cm across, darker at its rim, uneven
    round it and broken in places, a faint stain inside, laid on as a dye (over print and ink)."""
    arr = np.asarray(page, np.float32)
    h, w = arr.shape[:2]
    px = DPI / 25.4
    r = rng.uniform(30, 45) * px
    cx, cy = rng.uniform(0.1, 0.9) * w, rng.uniform(0.1, 0.9) * h
    ys, xs = np.ogrid[:h, :w]
    dist = np.sqrt((xs - cx) ** 2 + (ys - cy) ** 2)
    angle = np.arctan2(ys - cy, xs - cx)
    width = rng.uniform(1.0, 3.0) * px
    k1, k2, p1, p2 = rng.randint(2, 5), rng.randint(5, 11), rng.uniform(0, 6.3), rng.uniform(0, 6.3)
    along = np.clip(0.6 + 0.5 * np.sin(k1 * angle + p1) + 0.3 * np.sin(k2 * angle + p2), 0, 1)  # uneven, broken
    rim = np.exp(-(((dist - r) / width) ** 2)) * along
    inside = (dist < r) * rng.uniform(0.03, 0.1)
    stain = np.clip(rim * rng.uniform(0.25, 0.5) + inside, 0, 0.6)
    if arr.ndim == 3:  # coffee's brown: absorbs blue most
        absorb = np.array([0.35, 0.6, 0.9], np.float32)
        out = arr * (1 - stain[..., None] * absorb)
        return Image.fromarray(np.clip(out, 0, 255).astype(np.uint8), page.mode)
    return Image.fromarray(np.clip(arr * (1 - stain * 0.6), 0, 255).astype(np.uint8), page.mode)


def hard_shadow(page: Image.Image, rng: random.Random, at: float | None = None) -> Image.Image:
    """A hard-edged shadow on part of the page (the phone's, or an arm's, under a lamp): a straight
    edge at a slant, ``at`` pixels down the page's middle (else anywhere in its lower two thirds),
    the page beyond it a quarter to a half darker, the edge softened by a pixel or three."""
    import cv2

    arr = np.asarray(page, np.float32)
    h, w = arr.shape[:2]
    at = h * rng.uniform(0.35, 0.9) if at is None else at
    slope = rng.uniform(-0.1, 0.1)
    ys, xs = np.mgrid[:h, :w].astype(np.float32)
    shade = (ys > at + slope * (xs - w / 2)).astype(np.float32) * rng.uniform(0.25, 0.5)
    shade = cv2.GaussianBlur(shade, (0, 0), rng.uniform(0.8, 2.5))
    out = arr * (1 - (shade[..., None] if arr.ndim == 3 else shade))
    return Image.fromarray(np.clip(out, 0, 255).astype(np.uint8), page.mode)


def folded(page: Image.Image, rng: random.Random, creases: list[tuple[str, float]] | None = None) -> Image.Image:
    """The page folded in half across (or in quarters) and opened again: each crease a thin dark
    line with a bright edge beside it, the facets on either side lit a little differently, and the
    page bent at the crease, so that a printed line is no longer straight across it. ``creases``:
    (way, pixels) of each, "across" or "down" (else the halves and quarters)."""
    import cv2

    arr = np.asarray(page, np.float32)
    h, w = arr.shape[:2]
    if creases is None:  # in half across, and in quarters (down too) two times in five
        creases = [("across", h * rng.uniform(0.45, 0.55))]
        if rng.random() < 0.4:
            creases.append(("down", w * rng.uniform(0.45, 0.55)))
    ys, xs = np.mgrid[:h, :w].astype(np.float32)
    map_x, map_y = xs.copy(), ys.copy()
    light = np.ones((h, w), np.float32)
    for way, at in creases:
        pos, other = (ys, xs) if way == "across" else (xs, ys)
        beyond = pos > at
        bend = rng.uniform(0.002, 0.006) * rng.choice((-1, 1))  # the far facet leans: lines kink at the crease
        if way == "across":
            map_x -= np.where(beyond, (pos - at) * bend, 0)
        else:
            map_y -= np.where(beyond, (pos - at) * bend, 0)
        light *= np.where(beyond, rng.uniform(0.85, 0.97), 1.0)
        light *= 1 - rng.uniform(0.15, 0.35) * np.exp(-(((pos - at) / 2.5) ** 2))  # the crease's shadow
        light *= 1 + rng.uniform(0.03, 0.08) * np.exp(-(((pos - at - 6) / 4) ** 2))  # its lit edge
    bent = cv2.remap(arr, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    out = bent * (light[..., None] if arr.ndim == 3 else light)
    return Image.fromarray(np.clip(out, 0, 255).astype(np.uint8), page.mode)


#: The share of numbers crossed out that are one digit (a −8 made −4).
SINGLE = 0.3


def cross_out(page: Image.Image, writer: FontHand | DigitsHand, box: list[float], text: str, rng: random.Random,
              ink: int) -> str:
    """A wrong number written in the cell (one digit in SINGLE of them, else two or three), ruled
    through, and ``text`` written beside it (to its right) or above it, as people correct a number on
    paper; the wrong number."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    if rng.random() < SINGLE:
        wrong = str(rng.randint(1, 9))
    else:
        wrong = str(rng.randint(10, 99) if len(text.lstrip("-")) < 3 or rng.random() < 0.5 else rng.randint(100, 199))
    if wrong == text.lstrip("-"):
        wrong = str(int(wrong) + 2)
    above = rng.random() < 0.5
    old_box = (x0, y0 + 0.4 * h, x0 + 0.6 * w, y1) if above else (x0, y0, x0 + 0.5 * w, y1)
    new_box = (x0 + 0.35 * w, y0, x1, y0 + 0.62 * h) if above else (x0 + 0.5 * w, y0, x1, y1)
    region = tuple(int(v) for v in old_box)
    before = np.asarray(page.crop(region), np.int16)
    writer.write(page, old_box, wrong, rng, ink=ink)
    wrote = np.abs(np.asarray(page.crop(region), np.int16) - before) > 30
    changed = np.nonzero(wrote)
    if len(changed[0]):
        top, bottom = region[1] + changed[0].min(), region[1] + changed[0].max()
        left, right = region[0] + changed[1].min(), region[0] + changed[1].max()
        mid, tilt = (top + bottom) / 2 + rng.uniform(-0.1, 0.1) * (bottom - top), rng.uniform(-0.2, 0.2) * (bottom - top)
        reach = rng.uniform(0.05, 0.2) * (bottom - top)
        ImageDraw.Draw(page).line([(left - reach, mid + tilt), (right + reach, mid - tilt)], fill=ink,
                                  width=max(2, round(stroke_width(wrote) * rng.uniform(0.6, 1.0))))
    writer.write(page, new_box, text, rng, ink=ink)
    return wrong


def stroke_width(ink: np.ndarray) -> float:
    """About how wide the strokes of a mask of ink are: twice its area over its outline (a stroke's
    outline runs along both its sides). The rule through a number crossed out is drawn with the same
    pen, not a hairline."""
    inner = ink.copy()
    inner[1:] &= ink[:-1]
    inner[:-1] &= ink[1:]
    inner[:, 1:] &= ink[:, :-1]
    inner[:, :-1] &= ink[:, 1:]
    outline = int((ink & ~inner).sum())
    return 2.0 * float(ink.sum()) / outline if outline else 1.0


def _in_colour(printed: Image.Image, ink: Image.Image, pen: Pen, rng: random.Random) -> Image.Image:
    """The printed page (grey) with the handwriting's layer laid on it with the pen: each absorbs
    light as ink does."""
    if pen.thin:
        ink = ink.filter(ImageFilter.MaxFilter(2 * pen.thin + 1))  # the strokes, thinner on each side
    base = np.asarray(printed, np.float32)[..., None] / 255
    dark = 1 - np.asarray(ink, np.float32)[..., None] / 255
    if pen.strength < 1:  # graphite: pale, and grainy along the stroke
        grain = np.random.default_rng(rng.randrange(1 << 30)).uniform(0.7, 1.0, dark.shape).astype(np.float32)
        dark *= pen.strength * grain
    colour = np.array(pen.colour, np.float32) / 255
    return Image.fromarray(np.clip(base * (1 - dark * (1 - colour)) * 255, 0, 255).astype(np.uint8), "RGB")


def photograph(page: Image.Image, rng: random.Random, quality: tuple[int, int] = (55, 85),
               habits: dict[str, float] | None = None) -> bytes:
    """A phone's photo of the page on a table: tilted, in perspective, unevenly lit, a little blurred
    and noisy, saved as JPEG. A page in colour (RGB) is photographed in colour, under light a little
    warm or cool."""
    import cv2

    img = np.asarray(page, np.float32)
    h, w = img.shape[:2]
    colour = img.shape[2:]  # () grey, (3,) RGB
    canvas_w, canvas_h = int(w * 1.25), int(h * 1.2)
    table = np.full((canvas_h, canvas_w, *colour), rng.uniform(60, 140), np.float32)
    if colour:
        table *= np.array([1.0, rng.uniform(0.75, 0.95), rng.uniform(0.55, 0.85)], np.float32)  # a wooden table
    table += np.random.default_rng(rng.randrange(1 << 30)).standard_normal(table.shape, np.float32) * 6
    src = np.array([(0, 0), (w, 0), (w, h), (0, h)], np.float32)
    jitter = 0.04
    cx, cy = canvas_w / 2, canvas_h / 2
    angle = np.deg2rad(rng.uniform(-8, 8))
    scale = rng.uniform(0.76, 0.86) * min(canvas_w / w, canvas_h / h)  # the whole page in the frame
    dst = []
    for x, y in src:
        x2, y2 = (x - w / 2) * scale, (y - h / 2) * scale
        xr = x2 * np.cos(angle) - y2 * np.sin(angle)
        yr = x2 * np.sin(angle) + y2 * np.cos(angle)
        dst.append((cx + xr + rng.uniform(-jitter, jitter) * w, cy + yr + rng.uniform(-jitter, jitter) * h))
    matrix = cv2.getPerspectiveTransform(src, np.array(dst, np.float32))
    warped = cv2.warpPerspective(img, matrix, (canvas_w, canvas_h), flags=cv2.INTER_LINEAR,
                                 borderValue=(-1, -1, -1) if colour else -1)
    photo = np.where(warped < 0, table, warped)
    gx = np.arange(canvas_w, dtype=np.float32)[None, :] / canvas_w  # the light, by broadcasting (no full grids)
    gy = np.arange(canvas_h, dtype=np.float32)[:, None] / canvas_h
    depth, along_x, along_y = rng.uniform(0.1, 0.4), rng.uniform(-1, 1), rng.uniform(-1, 1)
    light = 1 - depth * (gx * along_x + gy * along_y + 1) / 2
    if colour:  # a lamp's warm light, or daylight's cool
        warm = rng.uniform(-0.15, 0.25)
        light = light[..., None] * np.array([1.0, 1 - warm / 3, 1 - warm], np.float32) / max(1.0, 1 + warm / 2)
    photo *= light
    out = Image.fromarray(np.clip(photo, 0, 255).astype(np.uint8))
    out = out.filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 1.3)))
    habits = habits or {}
    if habits.get("shaken") and rng.random() < habits["shaken"]:  # the hand moved: 3–6 px one way
        length, angle = rng.uniform(3, 6), np.deg2rad(rng.uniform(0, 180))
        size = 2 * int(np.ceil(length)) + 1
        kernel = np.zeros((size, size), np.float32)
        c, dx, dy = size // 2, np.cos(angle) * length / 2, np.sin(angle) * length / 2
        cv2.line(kernel, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1.0, 1)
        out = Image.fromarray(cv2.filter2D(np.asarray(out), -1, kernel / kernel.sum()))
        TOOK.add("shaken")
    if habits.get("small") and rng.random() < habits["small"]:  # a phone's smaller photo: 2,000 px long
        scale = 2000 / max(out.size)
        out = out.resize((round(out.size[0] * scale), round(out.size[1] * scale)), Image.LANCZOS)
        TOOK.add("small")
    canvas_h, canvas_w = out.size[1], out.size[0]
    noise = np.random.default_rng(rng.randrange(1 << 30)).standard_normal((canvas_h, canvas_w, *colour), np.float32)
    arr = np.asarray(out, np.float32) + noise * rng.uniform(2, 7)
    buf = io.BytesIO()
    Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8)).save(buf, "JPEG", quality=rng.randint(*quality))
    return buf.getvalue()
