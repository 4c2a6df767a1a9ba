"""Digits as a hand writes them, for training the reader and for the photos of the bench.

Sources (see kingsheet/scan/MODEL.md): the 1,797 handwritten digits scikit-learn ships (UCI
optdigits, CC BY 4.0), handwriting-style fonts from Debian packages, and what sources.py fetches
(MNIST, Google Fonts handwriting). Everything is split by writer: TRAIN_FONTS teach the model,
HELD_OUT_FONTS and UNSEEN_FONTS only ever fill the bench's photos, FRESH_FONTS validate.

A *hand* writes a number into a box of a page: a handwriting font (FontHand) or real digits
written by people (DigitsHand, MNIST's test writers in the bench).
"""

from __future__ import annotations

import math
import random
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

FONTS = Path("/usr/share/fonts")
TRAIN_FONTS = [  # fonts-breip, -femkeklaver, -sjfonts (Delphine), -comic-neue, -humor-sans, -bwht (six hands),
    # -dancingscript, -kaushanscript, -kristi
    "truetype/breip/Breip.ttf", "truetype/femkeklaver/femkeklaver.ttf",
    "truetype/sjfonts/Delphine.ttf", "opentype/comic-neue/ComicNeue-Regular.otf",
    "opentype/comic-neue/ComicNeue-Light.otf", "opentype/comic-neue/ComicNeue-Italic.otf",
    "truetype/humor-sans/Humor-Sans.ttf",
    *(f"opentype/bwht/BecauseWe{w}-Regular.otf" for w in ("Build", "Connect", "Create", "Learn", "Mentor",
                                                           "Organize")),
    "opentype/dancingscript/DancingScript-Regular.otf", "opentype/kaushanscript/KaushanScript-Regular.otf",
    "truetype/kristi/Kristi.ttf",
]
HELD_OUT_FONTS = [  # fonts-dkg-handwriting, fonts-sjfonts (SteveHand), fonts-rufscript: never seen in training
    "truetype/fifthhorseman/dkg.ttf", "truetype/fifthhorseman/dkgIt.ttf", "truetype/sjfonts/SteveHand.ttf",
    "truetype/rufscript/Rufscript010.ttf",
]
#: Debian handwriting fonts first installed on 2026-12-02, after the reader was built. The bench read
#: them as unseen hands until Écolier, which it read worst, was looked at closely to mend the reader;
#: since then they validate (tools/scan/validate.py --fonts) and the bench reads UNSEEN_FONTS instead.
FRESH_FONTS = [  # fonts-klee (Klee One), fonts-kiloji (two of its hands), fonts-seto, fonts-ecolier-court
    "truetype/klee/KleeOne-Regular.ttf", "truetype/kiloji/kiloji.ttf", "truetype/kiloji/kiloji_p.ttf",
    "truetype/seto/setofont.ttf", "truetype/ecolier-court/Ecolier-court.ttf",
]
#: Debian handwriting fonts first installed in the sixth session (2026-12-02), chosen by their
#: packages' descriptions ("handwriting", "handwritten", a handwriting-style Thai font's Latin)
#: before any was looked at: only the bench reads them.
UNSEEN_FONTS = [  # fonts-yozvox-yozfont (its plain regular), fonts-tlwg-purisa (upright, oblique),
    # fonts-yusei-magic, fonts-navilu
    "truetype/yozvox-yozfont/YOzRN_.ttf", "truetype/tlwg/Purisa.ttf", "truetype/tlwg/Purisa-Oblique.ttf",
    "truetype/yusei-magic/YuseiMagic-Regular.ttf", "truetype/Navilu/Navilu.ttf",
]
#: The Debian package of a font, by its folder under FONTS where the two names differ (else fonts-<folder>).
_PACKAGE_OF = {"fifthhorseman": "fonts-dkg-handwriting", "tlwg": "fonts-tlwg-purisa"}


def package(font: str) -> str:
    """The Debian package that installs ``font`` (a path under FONTS)."""
    folder = font.split("/")[1]
    return _PACKAGE_OF.get(folder, f"fonts-{folder.lower()}")


def install_hint(fonts: list[str]) -> str:
    """The apt-get command that installs those of ``fonts`` missing here ("" when none is)."""
    missing = sorted({package(f) for f in fonts if not (FONTS / f).exists()})
    return f"apt-get install {' '.join(missing)}" if missing else ""


def available(fonts: list[str]) -> list[Path]:
    return [FONTS / f for f in fonts if (FONTS / f).exists()]


def has_digit(font_path: Path, digit: str) -> bool:
    """Whether the font draws the digit itself, not its 'missing glyph' box."""
    font = ImageFont.truetype(str(font_path), 40)

    def drawn(text: str) -> bytes:
        img = Image.new("L", (60, 60), 0)
        ImageDraw.Draw(img).text((5, 5), text, font=font, fill=255)
        return img.tobytes()

    return drawn(digit) != drawn("\uffff") and any(drawn(digit))


def place(x0: float, x1: float, h: float, width: float, rng: random.Random, centred: bool = False) -> float:
    """Where a number ``width`` wide starts in a box from x0 to x1 (``h`` tall): as a person fills a
    cell, towards the right; ``centred``: its middle at the box's (a number written astride a line,
    synth's "across", is astride it, not pushed into one cell)."""
    free = max(0.0, (x1 - x0) - width - 0.1 * h)
    toward = rng.uniform(0.2, 1.0)  # drawn either way: the same seed makes the same sheet
    if centred:
        return (x0 + x1) / 2 - width / 2 + width * rng.uniform(-0.08, 0.08)
    return x0 + 0.05 * h + free * toward


def write_text(draw: ImageDraw.ImageDraw, box: tuple[float, float, float, float], text: str, font_path: Path,
               rng: random.Random, ink: int = 20, centred: bool = False) -> None:
    """``text`` written into ``box`` (pixels) as a person fills a cell: not centred, a little
    tilted in size and place."""
    x0, y0, x1, y1 = box
    h = y1 - y0
    size = int(h * rng.uniform(0.55, 0.8))
    font = ImageFont.truetype(str(font_path), size)
    left, top, right, bottom = draw.textbbox((0, 0), text, font=font)
    tw, th = right - left, bottom - top
    x = place(x0, x1, h, tw, rng, centred) - left  # people write towards the right
    y = y0 + (h - th) * rng.uniform(0.3, 0.7) - top
    draw.text((x, y), text, font=font, fill=ink)


class FontHand:
    """A handwriting font as a hand."""

    def __init__(self, path: Path) -> None:
        self.path, self.name = path, path.stem

    def write(self, page: Image.Image, box: tuple[float, float, float, float], text: str, rng: random.Random,
              ink: int = 20, centred: bool = False) -> None:
        write_text(ImageDraw.Draw(page), box, text, self.path, rng, ink, centred)


class DigitsHand:
    """Scanned handwritten digits (dark on white, one digit each) as a hand: a number is written
    digit by digit from pictures of each digit, as a person would, a little uneven and sometimes
    touching; a minus is a short stroke."""

    def __init__(self, name: str, images: np.ndarray, labels: np.ndarray) -> None:
        self.name = name
        self.by_digit = {d: images[labels == d] for d in range(10)}

    def write(self, page: Image.Image, box: tuple[float, float, float, float], text: str, rng: random.Random,
              ink: int = 20, centred: bool = False) -> None:
        x0, y0, x1, y1 = box
        h = y1 - y0
        height = h * rng.uniform(0.5, 0.75)
        pieces = []
        for ch in text:
            if ch == "-":
                pieces.append(None)
                continue
            pool = self.by_digit[int(ch)]
            im = pool[rng.randrange(len(pool))]
            ys, xs = np.nonzero(im < 200)
            im = im[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
            scale = height / im.shape[0]
            w = max(2, round(im.shape[1] * scale))
            pieces.append(Image.fromarray(im).resize((w, max(2, round(height))), Image.BILINEAR))
        gap = h * rng.uniform(-0.02, 0.12)
        widths = [h * 0.3 if p is None else p.width for p in pieces]
        total = sum(widths) + gap * (len(pieces) - 1)
        x = place(x0, x1, h, total, rng, centred)
        top = y0 + (h - height) * rng.uniform(0.3, 0.7)
        # only the cell and a margin is copied out and pasted back (a page is millions of pixels)
        ox, oy = max(0, int(x0 - h)), max(0, int(y0 - h))
        area = (ox, oy, min(page.width, int(x1 + h)), min(page.height, int(y1 + h)))
        arr = np.asarray(page.crop(area), np.float32).copy()
        for piece, width in zip(pieces, widths):
            if piece is None:
                yy = int(top + height * 0.5) - oy
                arr[yy:yy + max(2, int(h * 0.04)), int(x) - ox:int(x + width * 0.8) - ox] = ink
            else:
                dark = 255 - (255 - np.asarray(piece, np.float32)) * (255 - ink) / 255
                px, py = int(x) - ox, int(top + rng.uniform(-0.05, 0.05) * h) - oy
                region = arr[py:py + piece.height, px:px + piece.width]
                np.minimum(region, dark[:region.shape[0], :region.shape[1]], out=region)
            x += width + gap
        page.paste(Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8)), area[:2])


def glyph(text: str, font_path: Path, rng: random.Random, size: int = 48) -> np.ndarray:
    """One digit (or a few) on white, augmented: scale, rotation, stroke width, blur."""
    img = Image.new("L", (size * 2, size * 2), 255)
    draw = ImageDraw.Draw(img)
    write_text(draw, (size * 0.3, size * 0.3, size * 1.7, size * 1.7), text, font_path, rng)
    return augment(img, rng)


#: The share of training digits written as with a broad-nib pen (broad_nib): none, unless
#: tools/scan/train.py is run with --nib (kingsheet/scan/MODEL.md says what that gave).
NIB = 0.0


def broad_nib(img: Image.Image, rng: random.Random) -> Image.Image:
    """The digit on white as a broad-nib pen would draw its path: the stroke thinned to its
    skeleton, then swept by a nib 8-18 % of the digit's height long, held at -15° to 60° from the
    horizontal. Strokes along the nib come out hairlines, strokes across it heavy: a calligraphic
    hand, and near enough a pointed dip pen's (heavy downstrokes, hairline bars and diagonals),
    which no font of the training set writes. A light hand's hairlines come out paler too."""
    import cv2

    ink = np.asarray(img, np.uint8) < 128
    ys, _xs = np.nonzero(ink)
    if len(ys) == 0:
        return img
    length = max(3, round((ys.max() - ys.min() + 1) * rng.uniform(0.08, 0.18)))
    angle = math.radians(rng.uniform(-15, 60))
    src = np.pad(skeleton(ink), length)
    out = np.zeros_like(src)
    for t in np.linspace(-0.5, 0.5, length * 2):
        np.logical_or(out, np.roll(src, (round(-t * length * math.sin(angle)), round(t * length * math.cos(angle))),
                                   axis=(0, 1)), out=out)
    out = out[length:-length, length:-length].astype(np.uint8)
    # a light hand: the hairlines paler than the heavy strokes, down to a quarter of their ink
    # (how thick a stroke is near each pixel: the distance to its edge, at most within the nib's reach)
    near = cv2.dilate(cv2.distanceTransform(out, cv2.DIST_L2, 3), np.ones((length, length), np.uint8))
    light = rng.uniform(0.25, 1.0)
    ink = out * (light + (1 - light) * np.clip((near - 1) / max(0.5, length / 2 - 1), 0, 1))
    return Image.fromarray((255 - 255 * ink).astype(np.uint8)).filter(ImageFilter.GaussianBlur(0.6))


def skeleton(ink: np.ndarray) -> np.ndarray:
    """A shape (booleans) thinned to lines one pixel wide, connections kept: Zhang and Suen's
    thinning ("A fast parallel algorithm for thinning digital patterns", 1984)."""
    im = np.pad(ink, 1).astype(np.uint8)
    while True:
        changed = False
        for step in (0, 1):
            # the 8 neighbours, clockwise from the one above: P2 … P9
            p = [np.roll(im, s, axis=(0, 1)) for s in ((1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1),
                                                       (0, 1), (1, 1))]
            count = sum(p)
            turns = sum((p[k] == 0) & (p[(k + 1) % 8] == 1) for k in range(8))
            if step == 0:
                gone = (p[0] * p[2] * p[4] == 0) & (p[2] * p[4] * p[6] == 0)
            else:
                gone = (p[0] * p[2] * p[6] == 0) & (p[0] * p[4] * p[6] == 0)
            drop = (im == 1) & (count >= 2) & (count <= 6) & (turns == 1) & gone
            if drop.any():
                im[drop] = 0
                changed = True
        if not changed:
            return im[1:-1, 1:-1].astype(bool)


def augment(img: Image.Image, rng: random.Random) -> np.ndarray:
    """A digit on white as another hand or pen might have written it: now and then as with a broad
    nib, scaled, sheared and rotated about its centre, its stroke thinner or thicker, a little blurred."""
    if NIB and rng.random() < NIB:  # (no draw without it: the shipped weights' digits stay as they were)
        img = broad_nib(img, rng)
    shear = rng.uniform(-0.3, 0.3)
    sx, sy = rng.uniform(0.8, 1.2), rng.uniform(0.85, 1.15)
    cx, cy = img.width / 2, img.height / 2  # about the centre: scale, shear, then rotate
    img = img.transform(img.size, Image.AFFINE, (1 / sx, shear, cx - cx / sx - shear * cy, 0, 1 / sy, cy - cy / sy),
                        resample=Image.BILINEAR, fillcolor=255)
    img = img.rotate(rng.uniform(-10, 10), resample=Image.BILINEAR, fillcolor=255)
    k = rng.choice([0, 0, 0, 3, 3])
    if k:
        img = img.filter(ImageFilter.MinFilter(k) if rng.random() < 0.7 else ImageFilter.MaxFilter(3))
    if rng.random() < 0.4:
        img = img.filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 0.9)))
    return np.asarray(img, dtype=np.uint8)


def scanned_digit(im: np.ndarray, rng: random.Random) -> np.ndarray:
    """A scanned digit (dark on white, e.g. MNIST's 28 × 28) at a cell's resolution, augmented."""
    big = Image.fromarray(im).resize((im.shape[1] * 2, im.shape[0] * 2), Image.BICUBIC)
    canvas = Image.new("L", (big.width * 2, big.height * 2), 255)
    canvas.paste(big, (big.width // 2, big.height // 2))
    return augment(canvas, rng)


def sklearn_digits() -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's 8×8 digits as dark ink on white, 32×32."""
    try:
        from sklearn.datasets import load_digits
    except ImportError:
        raise SystemExit("scikit-learn's digits are part of the training data: pip install scikit-learn") from None

    data = load_digits()
    out = []
    for im in data.images:
        big = Image.fromarray(np.uint8(255 - im * 255 / 16)).resize((24, 24), Image.BILINEAR)
        canvas = Image.new("L", (32, 32), 255)
        canvas.paste(big, (4, 4))
        out.append(np.asarray(canvas))
    return np.stack(out), data.target.astype(np.int64)
