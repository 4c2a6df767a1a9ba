"""A phone photo of a printed blank → the page, straightened: the four corner marks found, the
perspective undone, the QR code read, each deal's cells cut out where the blank's own layout puts
them. Every failure is one sentence that says what the photo lacks."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from kingsheet.core.i18n import LANGUAGES, _
from kingsheet.core.problems import InputError

PX = 8.0  # pixels a millimetre on the straightened page
MAX_PHOTO_BYTES = 40 * 1024 * 1024
MAX_PIXELS = 60_000_000  # a photo's header may say at most this many pixels
# the straightened page is 1680 × 2376 px (PX a mm): a photo past this many pixels is decoded at a
# half, a quarter or an eighth of its size (a JPEG scales as it decodes, in that much memory), so a
# 48-megapixel phone photo costs what a 12-megapixel one does; any other picture past it is refused
READ_PIXELS = 16_000_000
MARK_AT, MARK = 6.0, 5.0  # mm: the centre of each corner mark from the page's edges, and its side


class Unreadable(InputError):
    """The photo cannot be read as a kingsheet blank; the message says why."""


class CodeUnreadable(Unreadable):
    """The photo's QR code cannot be read: its page is told by its lines (the blank's rules named, or
    told among every bundled blank's). A blurred photo's message asks for it to be taken again: it is
    said when the lines cannot tell the page either."""


@dataclass(frozen=True)
class Code:
    rules: str
    options: dict[str, str]
    players: int
    named: bool
    lang: str
    sheet: str
    page: int


MAX_PLAYERS_IN_CODE = 64
LANGS = LANGUAGES
_NUMBER = re.compile(r"[0-9]{1,3}")  # plain digits, few of them (never «²», never twenty of them)


def parse_code(text: str, where: str) -> Code | None:
    """``KS2/RULES/OPTION:VALUE …/PLAYERS/LAYOUT/PAGE`` (render.pdf.scan_code, then the page; KS1 for
    blanks printed before domino's was laid out anew), or
    None when the text is not a kingsheet code at all (another QR code in the photo). A code that
    is ours but says what no printed blank says is one sentence."""
    from kingsheet.render.pdf import RELAID_SINCE_KS1

    parts = text.lower().split("/")
    if parts[0] not in ("ks1", "ks2"):
        return None
    if len(parts) != 6 or len(parts[4]) < 3 or not (_NUMBER.fullmatch(parts[3]) and _NUMBER.fullmatch(parts[5])):
        raise Unreadable(_("{where}: the sheet's QR code is not one kingsheet prints").format(where=where))
    if parts[0] == "ks1" and parts[1] in RELAID_SINCE_KS1:
        raise Unreadable(_("{where}: this {rules} blank was printed by an older kingsheet, whose rows lie elsewhere; "
                           "it cannot be read back (print a new blank, or type the sheet in)").format(
            where=where, rules=parts[1]))
    options = dict(p.split(":", 1) for p in parts[2].split() if ":" in p)
    layout = parts[4]
    code = Code(parts[1], options, int(parts[3]), layout[0] == "n", layout[1:3], layout[3:], int(parts[5]))
    return checked_code(code, where)


def checked_code(code: Code, where: str) -> Code:
    """A code that names what a printed blank can: a bundled rule system only (a photo never makes
    kingsheet read a file), a page from 1, a language the blanks are printed in, a real count of
    players. Anything else is one sentence."""
    from kingsheet.files.templates import template_ids

    if code.rules not in template_ids():
        raise Unreadable(_("{where}: the sheet's QR code names rules kingsheet does not have ({rules})").format(
            where=where, rules=code.rules[:40]))
    if not 1 <= code.page <= 99 or not 2 <= code.players <= MAX_PLAYERS_IN_CODE or code.lang not in LANGS:
        raise Unreadable(_("{where}: the sheet's QR code is not one kingsheet prints").format(where=where))
    return code


def picture_size(data: bytes) -> tuple[int, int] | None:
    """A JPEG's or PNG's width and height, from its header, before anything is decoded (a file of
    a few hundred bytes may declare billions of pixels); None when it is neither."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24 and data[12:16] == b"IHDR":
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    if data[:2] != b"\xff\xd8":
        return None
    k = 2
    while k + 4 <= len(data):  # the JPEG's segments, up to its frame header
        if data[k] != 0xFF:
            return None
        marker = data[k + 1]
        if marker == 0xFF:  # padding
            k += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:  # markers without a length
            k += 2
            continue
        length = int.from_bytes(data[k + 2:k + 4], "big")
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):  # a start of frame
            if k + 9 > len(data):
                return None
            return int.from_bytes(data[k + 7:k + 9], "big"), int.from_bytes(data[k + 5:k + 7], "big")
        if length < 2:
            return None
        k += 2 + length
    return None


def load(path: Path) -> np.ndarray:
    """The photo in colour (BGR), or grey when it is a grey picture; a file that is not a usable
    picture is one sentence. Its size is read from its header and refused before it is decoded; a
    JPEG of more than READ_PIXELS is decoded smaller, in the memory of the smaller picture."""
    import cv2

    from kingsheet.files.gamefile import read_bounded

    data = read_bounded(path, MAX_PHOTO_BYTES, _("photo"))
    size = picture_size(data)
    if size is None or 0 in size:
        raise Unreadable(_("{path}: not a picture kingsheet can open (JPEG or PNG)").format(path=path))
    if size[0] * size[1] > MAX_PIXELS:
        raise Unreadable(_("{path}: the picture is too large").format(path=path))
    factor = reduction(size)
    if factor > 1 and not data.startswith(b"\xff\xd8"):
        raise Unreadable(_("{path}: the picture is too large: a photo of the blank needs at most {mp} megapixels "
                           "(send it smaller, or as a JPEG)").format(path=path, mp=READ_PIXELS // 1_000_000))
    flags = {1: cv2.IMREAD_ANYCOLOR, 2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4,
             8: cv2.IMREAD_REDUCED_COLOR_8}[factor]
    try:
        img = cv2.imdecode(np.frombuffer(data, np.uint8), flags)
    except cv2.error:
        img = None
    if img is None:
        raise Unreadable(_("{path}: not a picture kingsheet can open (JPEG or PNG)").format(path=path))
    if img.shape[0] * img.shape[1] > READ_PIXELS * 1.01:  # the header lied (a side halved rounds up)
        raise Unreadable(_("{path}: the picture is too large").format(path=path))
    return np.asarray(img)


def reduction(size: tuple[int, int]) -> int:
    """1, 2, 4 or 8: what a picture of ``size`` is decoded at (its sides divided by it), the least
    that keeps it within READ_PIXELS."""
    factor = 1
    while factor < 8 and size[0] * size[1] > READ_PIXELS * factor * factor:
        factor *= 2
    return factor


def find_code(gray: np.ndarray, where: str) -> tuple[Code, tuple[float, float]]:
    """The sheet's code and where its centre is in the photo."""
    import cv2
    import zxingcpp

    half = cv2.resize(gray, (gray.shape[1] // 2, gray.shape[0] // 2), interpolation=cv2.INTER_AREA)
    for img, scale in _code_tries(gray, half):  # half size first: 4 × faster
        for result in zxingcpp.read_barcodes(img):
            code = parse_code(result.text, where)
            if code is not None:
                pos = result.position
                corners = (pos.top_left, pos.top_right, pos.bottom_right, pos.bottom_left)
                return code, (sum(c.x for c in corners) / 4 * scale, sum(c.y for c in corners) / 4 * scale)
    if blur(gray) >= BLURRED:  # the code is there, smeared: said if its lines cannot tell the page either
        raise CodeUnreadable(blurred_sentence(where))
    raise CodeUnreadable(_("{where}: the sheet's QR code cannot be read (is the whole page in the photo, and sharp? "
                       "Blanks printed two to a page have no code and cannot be read)").format(where=where))


#: A photo this blurred (blur(): 0 sharp … 1 smooth) whose code cannot be read was shaken or out of
#: focus. Measured on 12 photos as the bench makes them (tools/scan/synth.py, 4,200 px long; seeds
#: 82000–82011, the pen model's validation writers), each brought to BLUR_LONG: sharp 0.24–0.35; moved
#: 3 px 0.27–0.39, 6 px 0.37–0.57, 9 px 0.45–0.61; a 2,000 px photo moved 3 of its own px 0.43–0.50.
#: (Measured on each photo's own pixels, as before 2026-12-08, the same shake of the hand smeared a
#: 2,000 px photo by half as many and it measured sharp: a 6 px shake, the photo then made 2,000 px
#: long, 0.16–0.29 by 9 px, under the 0.3 of then.)
BLURRED = 0.4
#: A photo longer than this is measured reduced to it (a 12 MP phone's photos, 4,000 px, and a
#: 2,000 px one measure alike for the same shake of the hand), by blurring it again 5 of its pixels.
BLUR_LONG = 2000
BLUR_REACH = 5


def blurred_sentence(where: str) -> str:
    return _("{where}: the photo is blurred: take it again, holding the phone still").format(where=where)


def blur(gray: np.ndarray) -> float:
    """How blurred a photo is, in the worst of four directions (across, down and the diagonals;
    Crete, Dolmiere, Ladret, Nicolas, «The blur effect», SPIE 2007): the share of its edges'
    contrast that blurring it again that way (BLUR_REACH pixels of it brought to BLUR_LONG) does not
    take away. A sharp photo loses most of it; a blurred one has little left to lose. Motion smears
    one direction: the worst is kept."""
    import cv2

    long = max(gray.shape[:2])
    if long > BLUR_LONG:
        scale = BLUR_LONG / long
        gray = cv2.resize(gray, (round(gray.shape[1] * scale), round(gray.shape[0] * scale)),
                          interpolation=cv2.INTER_AREA)
    g = gray.astype(np.float32)
    k = BLUR_REACH
    line = np.ones((1, k), np.float32) / k
    diagonal = np.eye(k, dtype=np.float32) / k

    def steps(image: np.ndarray, way: int) -> np.ndarray:  # the difference of neighbours that way
        if way == 0:
            return np.asarray(np.abs(image[:, 1:] - image[:, :-1]))
        if way == 1:
            return np.asarray(np.abs(image[1:] - image[:-1]))
        if way == 2:
            return np.asarray(np.abs(image[1:, 1:] - image[:-1, :-1]))
        return np.asarray(np.abs(image[1:, :-1] - image[:-1, 1:]))

    worst = 0.0
    for way, kernel in enumerate((line, line.T, diagonal, diagonal[::-1].copy())):
        again = cv2.filter2D(g, -1, kernel)
        d = steps(g, way)
        total = float(d.sum())
        kept = total - float(np.maximum(0, d - steps(again, way)).sum())
        worst = max(worst, kept / total if total else 1.0)
    return worst


def _code_tries(gray: np.ndarray, half: np.ndarray) -> Iterator[tuple[np.ndarray, float]]:
    """The photo as the code is looked for in it, each with its scale back to the photo's, made only
    as the last one failed: half size, whole, sharpened; then (2026-12-07: a shaken photo, 3–6 px,
    whose smeared modules zxing's own binarizer loses) thresholded by its neighbourhood, a little
    sharpened and thresholded, and half as large again, sharpened hard (a 2,000 px photo's modules
    are 4 px)."""
    import cv2

    def local(img: np.ndarray, block: int) -> np.ndarray:
        return np.asarray(cv2.adaptiveThreshold(img, 255, cv2.ADAPTIVE_THRESH_GAUSSIAN_C, cv2.THRESH_BINARY,
                                                block | 1, 5))

    def sharp(img: np.ndarray, amount: float, sigma: float) -> np.ndarray:
        return np.asarray(cv2.addWeighted(img, 1 + amount, cv2.GaussianBlur(img, (0, 0), sigma), -amount, 0))

    yield half, 2.0
    yield gray, 1.0
    yield _sharpened(gray), 1.0
    yield local(gray, 31), 1.0
    yield local(sharp(gray, 0.8, 1.0), 31), 1.0
    if max(gray.shape) <= SMALL_PHOTO:  # enlarged only where the modules are few pixels (and memory little)
        up = cv2.resize(gray, None, fx=1.5, fy=1.5, interpolation=cv2.INTER_CUBIC)
        yield sharp(up, 3.0, 1.5), 1 / 1.5
        yield local(sharp(up, 0.8, 1.5), 47), 1 / 1.5


#: A photo at most this long (px) is small enough for its code to be looked for enlarged (a phone's
#: 2,000 px photo: its modules 4 px); a larger one is not (a 16 MP photo enlarged is 36 MP: twelve
#: bombs at once sent kingsheet serve past its memory bound).
SMALL_PHOTO = 2600


def _sharpened(gray: np.ndarray) -> np.ndarray:
    import cv2

    blur = cv2.GaussianBlur(gray, (0, 0), 2)
    return np.asarray(cv2.addWeighted(gray, 1.8, blur, -0.8, 0))


def find_marks(gray: np.ndarray, where: str, shadowed: bool = False) -> np.ndarray:
    """The centres of the four corner marks (top left, top right, bottom right, bottom left).
    ``shadowed``: the light evened first (each pixel divided by the paper's light around it), so
    that a hard shadow across a corner leaves its part of the page paper, and its mark a mark."""
    import cv2

    h, w = gray.shape
    scale = 1600 / max(h, w) if max(h, w) > 1600 else 1.0
    small = cv2.resize(gray, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA) if scale < 1 else gray
    sh, sw = small.shape
    if shadowed:  # the paper's light around each pixel (a closing wider than a mark) divided out
        small = _even_light(small, reach=max(2, max(sh, sw) // 100), level=200)
    # the paper: the largest bright region (a dark table around it must not swallow the marks)
    _t, paper = cv2.threshold(cv2.GaussianBlur(small, (5, 5), 0), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    paper = cv2.morphologyEx(paper, cv2.MORPH_CLOSE, np.ones((25, 25), np.uint8))  # the ink is paper too
    outlines, _h = cv2.findContours(paper, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    mask = np.zeros_like(small)
    if outlines:
        # its convex hull: a corner in shadow stays part of the page
        cv2.drawContours(mask, [cv2.convexHull(max(outlines, key=cv2.contourArea))], -1, 255, cv2.FILLED)
        mask = cv2.erode(mask, np.ones((3, 3), np.uint8))
    else:
        mask[:] = 255
    binary = cv2.adaptiveThreshold(small, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV,
                                   (max(sh, sw) // 20) | 1, 15)
    binary = cv2.bitwise_and(binary, mask)
    # in the light evened, the page's edge and a shadow's are lines that may ring the marks: every
    # outline is looked at, not only the outermost
    contours, _h = cv2.findContours(binary, cv2.RETR_LIST if shadowed else cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    side = max(sh, sw)
    candidates = []
    for c in contours:
        area = cv2.contourArea(c)
        if not (side * side * 0.00003 < area < side * side * 0.004):
            continue
        x, y, bw, bh = cv2.boundingRect(c)
        if not 0.5 < bw / bh < 2.0:
            continue
        hull = cv2.contourArea(cv2.convexHull(c))
        if hull == 0 or area / hull < 0.85 or area / (bw * bh) < 0.45:  # (a tilted square fills less of its box)
            continue
        inside = np.zeros((bh, bw), np.uint8)
        cv2.drawContours(inside, [c - np.array([x, y])], -1, 255, cv2.FILLED)
        ink = binary[y:y + bh, x:x + bw][inside > 0]
        if ink.size == 0 or ink.mean() < 255 * 0.85:  # a mark is solid ink, not a letter or a ring
            continue
        m = cv2.moments(c)
        candidates.append((m["m10"] / m["m00"], m["m01"] / m["m00"], area))
    if len(candidates) < 4:
        raise Unreadable(_("{where}: corner marks not found (all four corners of the printed blank must be in "
                           "the photo)").format(where=where))
    pts = np.array([(x, y) for x, y, _a in candidates], np.float32)
    corners = np.array([(0, 0), (sw, 0), (sw, sh), (0, sh)], np.float32)
    chosen = []
    for corner in corners:
        k = int(np.argmin(((pts - corner) ** 2).sum(axis=1)))
        chosen.append(pts[k])
    quad = np.array(chosen, np.float32)
    if len({tuple(p) for p in quad.tolist()}) < 4 or cv2.contourArea(quad) < sw * sh * 0.15:
        raise Unreadable(_("{where}: corner marks not found (all four corners of the printed blank must be in "
                           "the photo)").format(where=where))
    return np.asarray(quad / scale)


def upright(marks: np.ndarray, code_at: tuple[float, float]) -> np.ndarray:
    """The marks in the page's own order (top left, top right, bottom right, bottom left), however
    the photo was turned: the QR code sits by the bottom left mark, and a photo keeps the marks'
    clockwise order."""
    k = int(np.argmin(((marks - np.array(code_at, np.float32)) ** 2).sum(axis=1)))
    return np.asarray(np.roll(marks, 3 - k, axis=0))


def straighten(photo: np.ndarray, marks: np.ndarray, size_mm: tuple[float, float]) -> np.ndarray:
    """The page seen from straight above, PX pixels a millimetre, as ink on paper (grey): in each
    colour the paper's own light divided out, then the darkest of the three. A blue or red pen is
    as dark there as it is in its colour's opposite (blue ink in red light), not as pale as its
    brightness (a light blue pen is nearly as bright as shaded paper); black print stays black."""
    return ink_of(_warped(photo, marks, size_mm))


def _warped(image: np.ndarray, marks: np.ndarray, size_mm: tuple[float, float]) -> np.ndarray:
    """The image as seen from straight above, the marks where the blank prints them, PX a millimetre."""
    import cv2

    w, h = size_mm
    target = np.array([(MARK_AT, MARK_AT), (w - MARK_AT, MARK_AT), (w - MARK_AT, h - MARK_AT), (MARK_AT, h - MARK_AT)],
                      np.float32) * PX
    matrix = cv2.getPerspectiveTransform(marks.astype(np.float32), target)
    return np.asarray(cv2.warpPerspective(image, matrix, (round(w * PX), round(h * PX)), flags=cv2.INTER_AREA,
                                          borderValue=(255, 255, 255) if image.ndim == 3 else 255))


def ink_of(page: np.ndarray) -> np.ndarray:
    """A page (grey, or BGR) as ink on paper: the light taken out (_even_light), then in colour the
    darkest of the three."""
    import cv2

    even = _even_light(page)
    if even.ndim == 2:
        return even
    b, g, r = cv2.split(even)
    return np.asarray(cv2.min(cv2.min(b, g), r))


def _even_light(page: np.ndarray, reach: int = 8, level: int = 235) -> np.ndarray:
    """Uneven light taken out: the paper's own brightness, estimated by a closing ``reach`` pixels
    wide at a quarter of the size (wider than the ink to take out), divided out and the paper set
    to ``level`` (in each colour of a colour page: its white balance too)."""
    import cv2

    h, w = page.shape[:2]
    small = cv2.resize(page, (w // 4, h // 4), interpolation=cv2.INTER_AREA)  # the paper's light is smooth:
    small = cv2.morphologyEx(small, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (reach, reach)))
    background = cv2.resize(cv2.GaussianBlur(small, (0, 0), reach / 2), (w, h), interpolation=cv2.INTER_LINEAR)
    return np.asarray(cv2.divide(page, np.maximum(background, 1), scale=level))  # in uint8, saturated at 255


def sharpness(page: np.ndarray) -> float:
    import cv2

    return float(cv2.Laplacian(page, cv2.CV_64F).var())


def cell(page: np.ndarray, box: tuple[float, ...]) -> np.ndarray:
    """One cell's inside (mm box: left, top, right, bottom): its printed lines left out, but not
    the digits people write up to the cell's edge (the reader drops what is left of the lines)."""
    x0, y0, x1, y1 = box
    dx, dy = 0.8, (y1 - y0) * 0.1
    return page[round((y0 + dy) * PX):round((y1 - dy) * PX), round((x0 + dx) * PX):round((x1 - dx) * PX)]


#: A number written across a line between two cells: strokes of ink on both sides of the printed
#: line, touching it, on at least this many pixel rows of the row's middle (its top and bottom 15 %
#: left out, where the lines across are); a digit's stroke is 3–6 pixels thick here.
ACROSS_ROWS = 3
ACROSS_NEAR = 2  # pixels either side of the printed line that a stroke through it fills
#: ... or the line darker than itself by this much (of 255) where a thin or slanting stroke lies on it.
ACROSS_DARKER = 40


class Crossing(NamedTuple):
    """Handwriting through a printed line down (across_lines): which line of the row (0: the left
    side of its first cell; k: the side between cells k-1 and k), and the line's first and last
    column of pixels on the page."""

    line: int
    left: int
    right: int


def across_lines(page: np.ndarray, boxes: Sequence[tuple[float, ...]]) -> list[Crossing]:
    """Where handwriting runs across one of the printed lines down that bound a row's cells
    (``boxes``, left to right): a number written across two cells, or out of the grid. Its digits are
    then cut in two by the cells, and what each cell holds may make a row the rules allow."""
    import cv2

    found: list[Crossing] = []
    if not boxes:
        return found
    y0, y1 = boxes[0][1], boxes[0][3]
    dy = (y1 - y0) * 0.15
    h, w = page.shape
    top, bottom = max(0, round((y0 + dy) * PX)), min(h, round((y1 - dy) * PX))
    above, below = max(0, round((y0 - 30) * PX)), min(h, round((y1 + 30) * PX))
    for k, x in enumerate([b[0] for b in boxes] + [boxes[-1][2]]):
        left, right = max(0, round((x - 2) * PX)), min(w, round((x + 2) * PX))
        tall = page[above:below, left:right]  # the line down, over the rows about: handwriting is only here and there
        if tall.shape[0] < 8 or tall.shape[1] < 2 * ACROSS_NEAR + 2 or bottom - top < 8:
            continue
        paper = _quantile(tall, 0.75)
        line = np.nonzero((tall < paper - 40).sum(axis=0) >= (len(tall) + 1) // 2)[0]  # dark down most of it
        if len(line) == 0 or line.max() - line.min() > 0.8 * PX:
            continue  # no printed line found here: nothing to say
        a, b = int(line.min()), int(line.max())
        # ink: darker than the paper, and than the paper on both sides of it (_stroke: a stain's or a
        # shadow's broad shade is not ink, however dark, nor a hard shadow's edge)
        row = tall[top - above:bottom - above]
        smooth = cv2.GaussianBlur(row, (5, 5), 0)
        ink = (row < paper - 40) & _stroke(smooth)
        # a stroke through the line: ink on both sides of it, touching it (no paper between) ...
        beside = ink[:, max(0, a - ACROSS_NEAR):a].all(axis=1) & ink[:, b + 1:b + 1 + ACROSS_NEAR].all(axis=1)
        # ... or, on a line between two cells, a thin or slanting one (a fine pen's 2 written over the
        # line): the line darker where the stroke lies on it, with ink beside it on both sides within a
        # few rows (not on the grid's outer sides, which a coffee ring's rim crosses as often)
        on_line = row[:, a:b + 1].min(axis=1).astype(np.int16) < int(np.median(row[:, a:b + 1])) - ACROSS_DARKER
        reach = np.ones((2 * ACROSS_NEAR + 1, 1), np.uint8)
        sides = [np.asarray(cv2.dilate(np.asarray(ink[:, cols].any(axis=1), np.uint8).reshape(-1, 1), reach))[:, 0] > 0
                 for cols in (slice(max(0, a - 2 * ACROSS_NEAR), a), slice(b + 1, b + 1 + 2 * ACROSS_NEAR))]
        slanting = on_line & sides[0] & sides[1]
        whole = ink.mean(axis=1) < 0.9  # not a line across the whole strip (a fold's crease, a ring's rim)
        if int((beside & whole).sum()) >= ACROSS_ROWS or (0 < k < len(boxes) and int((slanting & whole).sum()) >= ACROSS_ROWS):
            found.append(Crossing(k, left + a, left + b))
    return found


#: How far (pixels) a stroke's ink has paper brighter than it on both sides (_stroke), and by how much.
STROKE_REACH = 8
STROKE_BY = 30


def _stroke(smooth: np.ndarray) -> np.ndarray:
    """Where a grey picture is a stroke's ink: darker by STROKE_BY than the paper on both sides of
    it within STROKE_REACH pixels, left and right or above and below (a line, however it runs, is
    thin across one of the two). The edge of a hard shadow is darker than the paper on one side
    only (its other side the shade); before 2026-12-07 either side was enough, and a shadow's edge
    across a cell's line was taken for a number written across it."""
    import cv2

    r = STROKE_REACH
    s = smooth.astype(np.int16)

    def brightest(shape: tuple[int, int], anchor: tuple[int, int]) -> np.ndarray:
        out = cv2.dilate(smooth, np.ones(shape, np.uint8), anchor=anchor, borderType=cv2.BORDER_REPLICATE)
        return np.asarray(out).astype(np.int16)

    across = np.minimum(brightest((1, r + 1), (r, 0)), brightest((1, r + 1), (0, 0)))  # left, right
    down = np.minimum(brightest((r + 1, 1), (0, r)), brightest((r + 1, 1), (0, 0)))  # above, below
    return np.asarray((s < across - STROKE_BY) | (s < down - STROKE_BY))


class Astride(NamedTuple):
    """The two cells beside a line that handwriting crosses, read again (astride): the strokes through
    the line given wholly to the left cell, then to the right; and whether each cell's own ink, the
    strokes through the line taken away, keeps ASTRIDE_CLEAR away from the line."""

    left_given: np.ndarray
    right_taken: np.ndarray
    left_taken: np.ndarray
    right_given: np.ndarray
    clear: tuple[bool, bool]
    left_share: float = 0.5  # of the ink through the line, the share on its left (beside the line itself)
    #: of the number each cell would hold, given the strokes through the line (its own ink beside them
    #: and theirs), the share on that cell's side of the line: left, right
    own_side: tuple[float, float] = (0.5, 0.5)


#: A cell's own ink this far from the line beside it (mm) stands apart from strokes through it.
ASTRIDE_CLEAR = 1.5


def astride(page: np.ndarray, boxes: Sequence[tuple[float, ...]], at: Crossing) -> Astride | None:
    """The two cells beside a line that handwriting crosses (across_lines; a line between two
    cells), each cut as ``cell`` cuts it, twice: the ink through the line given wholly to the cell on
    its left (that cell widened to hold it, the other without it), then wholly to the one on its
    right; the printed line taken out. None: a line at the row's end, or too near the page's edge."""
    import cv2

    if not 0 < at.line < len(boxes):
        return None
    (x0, y0, _x, y1), x, x1 = boxes[at.line - 1], boxes[at.line][0], boxes[at.line][2]
    dy = (y1 - y0) * 0.1
    top, bottom, left = round((y0 + dy) * PX), round((y1 - dy) * PX), round((x0 + 0.8) * PX)
    strip = page[top:bottom, left:round((x1 - 0.8) * PX)]
    a, b = at.left - left, at.right - left  # the line's columns in the strip
    ends = round((x - 0.8) * PX) - left, round((x + 0.8) * PX) - left  # where each cell stops by the line
    if top < 0 or bottom > page.shape[0] or not 0 < a <= b < strip.shape[1] - 1 or not 0 < ends[0] <= ends[1]:
        return None
    paper = np.uint8(_quantile(strip, 0.75))
    ink = strip < int(paper) - 40
    down = ink.mean(axis=0) >= 0.5  # the line with its soft edges: dark down most of the strip
    while a > 1 and down[a - 1]:
        a -= 1
    while b < strip.shape[1] - 2 and down[b + 1]:
        b += 1
    # the line itself only where a stroke runs through it: darker than the line, or ink on both sides
    darker = strip[:, a:b + 1].astype(np.int16) < int(np.median(strip[:, a:b + 1])) - ACROSS_DARKER
    ink[:, a:b + 1] = darker | (ink[:, a - 1] & ink[:, b + 1])[:, None]
    _count, labels = cv2.connectedComponents(ink.astype(np.uint8), connectivity=8)
    core = np.isin(labels, np.unique(labels[:, a:b + 1][ink[:, a:b + 1]]))
    xs = np.nonzero(core.any(axis=0))[0]
    if len(xs) == 0:
        return None
    through = cv2.dilate(core.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0  # with its strokes' soft edges
    clean = strip.copy()
    clean[:, a:b + 1] = np.where(core[:, a:b + 1], strip[:, a:b + 1], paper)  # the printed line gone
    taken = clean.copy()
    taken[through] = paper
    out = []
    for to_left in (True, False):
        own, other = (slice(0, ends[0]), slice(ends[1], None))[::1 if to_left else -1]
        wide = slice(0, max(ends[0], int(xs.max()) + 2)) if to_left else slice(max(0, min(ends[1], int(xs.min()) - 1)), None)
        given = clean.copy()
        beyond = np.ones(given.shape, bool)
        beyond[:, own] = False
        given[beyond & ~through] = paper  # beyond its own cell, only the ink through the line
        pair = [given[:, wide], taken[:, other]]
        out += pair if to_left else pair[::-1]
    mine = taken < int(paper) - 40  # each cell's own ink, the strokes through the line gone ...
    mine[mine.mean(axis=1) > 0.5] = False  # ... not a printed line across, at the strip's top or bottom
    own_ink = mine.sum(axis=0) >= 2
    near = round(ASTRIDE_CLEAR * PX)
    lefts, rights = int(core[:, :a].sum()), int(core[:, b + 1:].sum())
    own_l, own_r = int(mine[:, :a].sum()), int(mine[:, b + 1:].sum())
    return Astride(out[0], out[1], out[2], out[3], clear=(not own_ink[max(0, a - near):a].any(), not own_ink[b + 1:b + 1 + near].any()),
                   left_share=lefts / (lefts + rights) if lefts + rights else 0.5,
                   own_side=((own_l + lefts) / max(1, own_l + lefts + rights), (own_r + rights) / max(1, own_r + lefts + rights)))


def _quantile(image: np.ndarray, q: float) -> float:
    """np.percentile(image, 100 * q) of a grey page's pixels, by counting each of the 256 levels
    (four times quicker on the strip of a line down: across_lines asks it of each of every row)."""
    if image.dtype != np.uint8:
        return float(np.quantile(image, q))
    below = np.cumsum(np.bincount(image.ravel(), minlength=256))  # pixels at each level or darker
    at = q * (image.size - 1)
    k = int(at)
    low = int(np.searchsorted(below, k, side="right"))  # the k-th darkest pixel's level
    high = int(np.searchsorted(below, min(k + 1, image.size - 1), side="right"))
    return low + (at - k) * (high - low)


def page_size(players: int) -> tuple[float, float]:
    return (297.0, 210.0) if players > 4 else (210.0, 297.0)


#: The photo last decoded, with its corner marks as found: a photo whose code cannot be read, no rules
#: named, is looked at three times (its code, which blank its lines fit, which page and way up), and was
#: decoded and its marks looked for each time. Forgotten once a sheet is read; each thread its own.
_LOCAL = threading.local()


def _seen() -> dict[str, Any]:
    """This thread's photo last decoded (see _LOCAL)."""
    return _LOCAL.__dict__


def _photo(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """The photo as loaded, and in grey (the print: black on white); the last one decoded again only
    when the file has changed."""
    import cv2

    try:
        info = path.stat()
        key: tuple[Any, ...] | None = (str(path), info.st_mtime_ns, info.st_size)
    except OSError:
        key = None  # load says what is wrong
    seen = _seen()
    if key is None or seen.get("key") != key:
        seen.clear()
        photo = load(path)
        seen.update(key=key, photo=photo, gray=photo if photo.ndim == 2 else cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY),
                    marks={})
    return seen["photo"], seen["gray"]


def forget_photos() -> None:
    """Let the last photo decoded go (a server reading one sheet after another keeps none)."""
    _seen().clear()


def _marks(gray: np.ndarray, where: str, shadowed: bool) -> np.ndarray:
    """find_marks, once for each way of the photo last decoded (the marks or the sentence refusing them)."""
    if gray is not _seen().get("gray"):
        return find_marks(gray, where, shadowed)
    seen = _seen()["marks"]
    if shadowed not in seen:
        try:
            seen[shadowed] = find_marks(gray, where, shadowed)
        except Unreadable as exc:
            seen[shadowed] = exc
    if isinstance(seen[shadowed], Unreadable):
        raise seen[shadowed]
    return np.array(seen[shadowed])


Fits = Callable[[Code, np.ndarray], bool]  # whether a straightened page's printed lines are where its layout has them


def read_page(path: Path, fits: Fits | None = None) -> tuple[Code, np.ndarray]:
    """A photo → its code and the straightened page (the photo decoded and its code found once).
    ``fits``: a page whose lines are not where they belong is straightened again from the marks
    found with the light evened (a hard shadow across a corner); the caller refuses one that still
    does not fit."""
    code, page = photo_page(path, fits)
    if isinstance(page, Unreadable):
        raise page
    assert code is not None and page is not None  # (a code is needed here: its absence was raised)
    return code, page


def photo_page(path: Path, fits: Fits | None = None, needed: bool = True
               ) -> tuple[Code | None, np.ndarray | Unreadable | None]:
    """A photo's code and its page straightened, or why the page could not be (its marks not found,
    too blurred): a reader checks every photo's code before it says what else is wrong with one.
    Without ``needed``, a code that cannot be read is (None, None): the rules were given, and the
    page is told by its printed lines (read_page_by_lines)."""
    photo, gray = _photo(path)
    try:
        found = find_code(gray, str(path))
    except CodeUnreadable:
        if needed:
            raise
        return None, None
    try:
        return _read_coded(photo, gray, found, str(path), fits)
    except Unreadable as exc:
        return found[0], exc


def _read_coded(photo: np.ndarray, gray: np.ndarray, found: tuple[Code, tuple[float, float]], where: str,
                fits: Fits | None) -> tuple[Code, np.ndarray]:
    code, at = found
    missed: Unreadable | None = None
    first: np.ndarray | None = None
    for shadowed in (False, True) if fits is not None else (False,):
        try:
            marks = upright(_marks(gray, where, shadowed), at)
        except Unreadable as exc:
            missed = missed or exc
            continue
        page = _straight(photo, marks, code.players, where)
        if fits is None or fits(code, page):
            return code, page
        first = page if first is None else first
    if first is not None:  # refused by the caller, its lines not in place
        return code, first
    assert missed is not None
    raise missed


def _straight(photo: np.ndarray, marks: np.ndarray, players: int, where: str) -> np.ndarray:
    page = straighten(photo, marks, page_size(players))
    if sharpness(page) < 15:
        raise Unreadable(blurred_sentence(where))
    return page


#: How much better than any other the way a codeless photo is taken (turned, which page, which
#: layout) must fit the blank's printed lines: else it is not known and the photo is refused.
CLEARLY = 0.15


def read_page_by_lines(path: Path, players: int, layouts: Sequence[tuple[Any, Sequence[Sequence[tuple[float, ...]]]]]
                       ) -> tuple[Any, np.ndarray]:
    """A photo whose QR code cannot be read, of a blank whose rules are known: which of ``layouts``
    it is (each a key, such as the page and the layout, and the boxes of its rows) and how it is
    turned, both told by where the printed lines are; the key and the straightened page. A photo
    that no way fits, or that two ways fit alike, is refused: never read into the wrong cells.
    Each layout must have rows (a page without any tells nothing by its lines). A blurred photo
    (BLURRED) so refused is told to be taken again: the blur is what lost its code and its lines."""
    photo, gray = _photo(path)
    where = str(path)
    refused: Unreadable | None = None
    for shadowed in (False, True):  # then the marks found with the light evened (a hard shadow on a corner)
        try:
            return _by_lines(photo, gray, _marks(gray, where, shadowed), players, layouts, where)
        except Unreadable as exc:
            refused = refused or exc
    assert refused is not None
    if blur(gray) >= BLURRED:
        raise Unreadable(blurred_sentence(where))
    raise refused


def fits_by_lines(path: Path, layouts: Mapping[int, Sequence[tuple[Any, Sequence[Sequence[tuple[float, ...]]]]]]
                  ) -> list[tuple[float, Any]]:
    """How well a photo whose QR code cannot be read fits each of ``layouts`` (by the players of
    its blank, whose page's size they set: each a key and the boxes of its rows), at its best way
    up: (share of the lines in place, key), the best first. The marks not found: refused."""
    photo, gray = _photo(path)
    where = str(path)
    refused: Unreadable | None = None
    for shadowed in (False, True):
        try:
            marks = _marks(gray, where, shadowed)
        except Unreadable as exc:
            refused = refused or exc
            continue
        out = []
        for players, keyed in layouts.items():
            pages = [_warped(gray, np.roll(marks, turn, axis=0), page_size(players)) for turn in range(4)]
            for key, rows in keyed:
                out.append((max(lines_in_place(p, rows, NEAR_MM / 2, each_way=True) for p in pages), key))
        out.sort(key=lambda f: -f[0])
        return out
    assert refused is not None
    raise refused


def _by_lines(photo: np.ndarray, gray: np.ndarray, marks: np.ndarray, players: int,
              layouts: Sequence[tuple[Any, Sequence[Sequence[tuple[float, ...]]]]], where: str) -> tuple[Any, np.ndarray]:
    fits = []
    for turn in range(4):  # the photo turned any way: the marks keep their clockwise order
        grey_page = _warped(gray, np.roll(marks, turn, axis=0), page_size(players))
        for key, rows in layouts:  # lines within half the usual distance: a layout a little off is told apart
            fits.append((lines_in_place(grey_page, rows, NEAR_MM / 2, each_way=True), turn, key, rows))
    fits.sort(key=lambda f: -f[0])
    best = fits[0]
    if best[0] < LINED_UP:
        raise Unreadable(_("{where}: the sheet's QR code cannot be read, and the page's printed lines are not "
                           "those of the blank of the given rules (photograph the whole page, all four corner "
                           "marks in the frame)").format(where=where))
    rival = next((f for f in fits[1:] if (f[1], f[3]) != (best[1], best[3])), None)  # the same cells: no rival
    if rival is not None and rival[0] > best[0] - CLEARLY:
        raise Unreadable(_("{where}: the sheet's QR code cannot be read, and its printed lines fit more than "
                           "one page or way up of the blank: photograph it again with the code sharp").format(where=where))
    return best[2], _straight(photo, np.roll(marks, best[1], axis=0), players, where)


LINE_CONTRAST = 20  # a printed line is this much darker than the paper around it (0–255)
LINED_UP = 0.6  # the share of the blank's lines a straightened page must show where the layout has them
NEAR_MM = 1.5  # how far from its place a line may be (a page not quite flat) and still count


def lines_in_place(page: np.ndarray, rows: Sequence[Sequence[tuple[float, ...]]], near_mm: float = NEAR_MM,
                   each_way: bool = False) -> float:
    """The share of the printed lines around the given rows' boxes (mm: left, top, right, bottom)
    that are on the straightened page where the blank's layout puts them: a corner mark found in the
    wrong place straightens the page askew, and its cells would be read from the wrong paper.
    ``each_way``: the smaller of the shares of the lines across and of the lines down (a layout
    whose rows are shifted but whose columns are the blank's shows its columns in place, not its rows)."""
    def dark(profile: np.ndarray) -> bool:  # a line within near_mm of where it belongs
        mid, near_px = len(profile) // 2, round(near_mm * PX)
        near = profile[max(0, mid - near_px):mid + near_px + 1]
        return bool(near.size) and float(np.median(profile) - near.min()) > LINE_CONTRAST

    h, w = page.shape[:2]
    across = [0, 0]  # found, looked for
    down = [0, 0]
    for boxes in rows:
        x0, x1 = min(b[0] for b in boxes), max(b[2] for b in boxes)
        y0, y1 = min(b[1] for b in boxes), max(b[3] for b in boxes)
        cols = slice(max(0, round(x0 * PX)), min(w, round(x1 * PX)))
        for y in (y0, y1):
            band = page[max(0, round((y - 4) * PX)):min(h, round((y + 4) * PX)), cols]
            across[1] += 1
            across[0] += band.size > 0 and dark(band.mean(axis=1))
        for x in sorted({b[0] for b in boxes} | {b[2] for b in boxes}):
            band = page[max(0, round(y0 * PX)):min(h, round(y1 * PX)), max(0, round((x - 4) * PX)):min(w, round((x + 4) * PX))]
            down[1] += 1
            down[0] += band.size > 0 and dark(band.mean(axis=0))
    if each_way:
        return min(found / total if total else 1.0 for found, total in (across, down))
    total = across[1] + down[1]
    return (across[0] + down[0]) / total if total else 1.0


#: A fold's crease down the page: a thin dark line through the whole cell that goes on through the
#: printed lines above and below it, this far (mm) into the rows either side. A written 1 ends in
#: its cell; a crease (or the edge of a sheet laid on the page) does not.
CREASE_BEYOND_MM = 3.5
CREASE_DARKER = 25  # of 255: how much darker than the paper a crease's pixels are, at the least
CREASE_ROWS = 0.85  # the share of rows, in the cell and beyond it, where the line is dark


def cells_of(page: np.ndarray, boxes: Sequence[tuple[float, ...]]) -> list[Any]:
    """The cells' insides (cell), each with any crease down the page through it taken out
    (_without_creases): a fold is not ink."""
    return [_without_long_lines(page, b, _without_creases(page, b, cell(page, b))) for b in boxes]


#: A line that runs on through the cell's printed lines above and below (the rim of a coffee ring,
#: a crease bent by the fold, the edge of a sheet laid on the page): within this many mm of where it
#: leaves the cell, each way, sideways.
LONG_DRIFT_MM = 1.0
#: Such a line is one stroke across on at least this share of the cell's rows (a digit touching both
#: of its cell's lines with the digits above and below it touching theirs, an 8 under a 16's 6 on a
#: validation sheet, is two strokes across on most).
LONG_ONE_RUN = 0.8


def _without_long_lines(page: np.ndarray, box: tuple[float, ...], inside: np.ndarray) -> np.ndarray:
    """``inside`` with a line that crosses the whole cell from top to bottom and runs on beyond it,
    above and below, for CREASE_BEYOND_MM (dark on CREASE_ROWS of the rows there, near where it
    left the cell, however it bends) set to paper: a coffee ring's rim through an empty ИТОГО cell
    was read as a sure 1 (2026-12-07: validation sheets with a ring on every page, two of 30 taken
    for totals that did not add up). A straight crease is _without_creases'. Writing ends in its
    cell, or pokes past one of its lines only; ink across such a line, darker than it, stays. Where
    it runs on is looked for between the cell's own lines down (a tall 1 beside its cell's line,
    which runs on above and below, was first taken away with it)."""
    import cv2

    if inside.ndim != 2 or inside.shape[0] < 8 or inside.shape[1] < 8:
        return inside
    paper = _quantile(inside, 0.75)
    dark = (inside < paper - CREASE_DARKER).astype(np.uint8)
    if not (dark[:2].any() and dark[-2:].any()):
        return inside  # nothing crosses the cell from its top to its bottom (most cells: no labelling)
    count, labels = cv2.connectedComponents(dark, connectivity=8)
    if count < 2:
        return inside
    h = inside.shape[0]
    through = (set(np.unique(labels[:2])) & set(np.unique(labels[-2:]))) - {0}
    if not through:
        return inside
    x0, y0, x1, y1 = box
    left = round((x0 + 0.8) * PX)
    drift = round(LONG_DRIFT_MM * PX)
    sides = round((x0 + 0.5) * PX), round((x1 - 0.5) * PX)  # between the cell's lines down, not on them
    above = page[max(0, round((y0 - CREASE_BEYOND_MM) * PX)):round(y0 * PX)]
    below = page[round(y1 * PX):round((y1 + CREASE_BEYOND_MM) * PX)]
    if above.shape[0] < 4 or below.shape[0] < 4:
        return inside
    out = inside
    for label in through:
        piece = labels == label
        runs = (np.diff(piece.astype(np.int8), axis=1) == 1).sum(axis=1) + piece[:, 0]
        if float((runs == 1).mean()) < LONG_ONE_RUN:
            continue  # not one line down the cell: a digit (an 8 or a 0 is two strokes across most rows)
        top = np.nonzero(piece[:2].any(axis=0))[0]
        bottom = np.nonzero(piece[-2:].any(axis=0))[0]
        # how far it goes sideways beyond, on its way there (the cell's inside stops short of its lines)
        slope = ((bottom.mean() - top.mean()) / h) * ((CREASE_BEYOND_MM + (y1 - y0) * 0.1) * PX)

        def goes_on(strip: np.ndarray, cols: np.ndarray, way: float) -> bool:
            a = max(left + int(cols.min()) - drift + min(0, round(way)), sides[0])
            b = min(left + int(cols.max()) + drift + max(0, round(way)) + 1, sides[1])
            near = strip[:, max(0, a):max(0, b)]
            return near.size > 0 and float((near.min(axis=1) < paper - CREASE_DARKER).mean()) >= CREASE_ROWS

        if not (goes_on(above, top, -slope) and goes_on(below, bottom, slope)):
            continue
        ends = np.concatenate([inside[:max(2, h // 7)][piece[:max(2, h // 7)]],
                               inside[-max(2, h // 7):][piece[-max(2, h // 7):]]])
        level = float(np.median(ends))  # the line's own shade, where it enters and leaves the cell
        if out is inside:
            out = inside.copy()
        shade = cv2.dilate(piece.astype(np.uint8), np.ones((3, 2 * drift + 1), np.uint8)) > 0  # and its soft sides
        out[shade & (inside >= level - CREASE_DARKER)] = np.uint8(min(255, paper))
    return out


def _without_creases(page: np.ndarray, box: tuple[float, ...], inside: np.ndarray) -> np.ndarray:
    """``inside`` (the cell of ``box``) with the pixels of a crease down the page set to paper: a
    band of columns dark on nearly every row of the cell (CREASE_ROWS) that stays dark beyond the
    cell, above and below (CREASE_BEYOND_MM). Ink across the crease, darker than it, stays."""
    if inside.ndim != 2 or inside.shape[0] < 8 or inside.shape[1] < 8:
        return inside
    paper = float(np.percentile(inside, 75))
    dark = inside < paper - CREASE_DARKER
    columns = np.nonzero(dark.mean(axis=0) >= CREASE_ROWS)[0]
    if not len(columns):
        return inside
    x0, y0, x1, y1 = box
    left = round((x0 + 0.8) * PX)  # where the inside starts on the page (cell's own margin)
    above = page[max(0, round((y0 - CREASE_BEYOND_MM) * PX)):round(y0 * PX)]
    below = page[round(y1 * PX):round((y1 + CREASE_BEYOND_MM) * PX)]
    if above.shape[0] < 4 or below.shape[0] < 4:
        return inside
    out = inside
    bands = np.split(columns, np.nonzero(np.diff(columns) > 1)[0] + 1)
    for band in bands:
        a, b = int(band[0]), int(band[-1]) + 1
        if b - a > max(3, inside.shape[1] * 0.08):
            continue  # wider than a crease: writing

        def goes_on(strip: np.ndarray) -> bool:
            near = strip[:, max(0, left + a - 2):left + b + 2]  # noqa: B023
            return near.size > 0 and float((near.min(axis=1) < paper - CREASE_DARKER).mean()) >= CREASE_ROWS

        if goes_on(above) and goes_on(below):
            if out is inside:
                out = inside.copy()
            lo, hi = max(0, a - 1), min(inside.shape[1], b + 1)
            zone = out[:, lo:hi]
            zone[zone > paper * 0.6] = np.uint8(min(255, paper))  # the crease's shade; ink, darker, stays
    return out
