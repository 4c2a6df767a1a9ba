"""Digits as a hand writes them, for training the reader and for the photos of the bench.

Sources (see kingsheet/scan/MODEL.md): the 1,797 handwritten digits scikit-learn ships (UCI
optdigits, CC BY 4.0), and handwriting-style fonts from Debian packages. The fonts are split by
writer: TRAIN_FONTS teach the model, HELD_OUT_FONTS only ever fill the bench's photos.
"""

from __future__ import annotations

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
APT_PACKAGES = ["fonts-breip", "fonts-femkeklaver", "fonts-sjfonts", "fonts-comic-neue", "fonts-humor-sans",
                "fonts-bwht", "fonts-dancingscript", "fonts-kaushanscript", "fonts-kristi",
                "fonts-dkg-handwriting", "fonts-rufscript"]


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


def write_text(draw: ImageDraw.ImageDraw, box: tuple[float, float, float, float], text: str, font_path: Path,
               rng: random.Random, ink: int = 20) -> None:
    """``text`` written into ``box`` (pixels) as a person fills a cell: not centred, a little
    tilted in size and place."""
    x0, y0, x1, y1 = box
    h = y1 - y0
    size = int(h * rng.uniform(0.55, 0.8))
    font = ImageFont.truetype(str(font_path), size)
    left, top, right, bottom = draw.textbbox((0, 0), text, font=font)
    tw, th = right - left, bottom - top
    free_x = max(0.0, (x1 - x0) - tw - 0.1 * h)
    x = x0 + 0.05 * h + free_x * rng.uniform(0.2, 1.0) - left  # people write towards the right
    y = y0 + (h - th) * rng.uniform(0.3, 0.7) - top
    draw.text((x, y), text, font=font, fill=ink)


def glyph(text: str, font_path: Path, rng: random.Random, size: int = 48) -> np.ndarray:
    """One digit (or a few) on white, augmented: scale, rotation, stroke width, blur."""
    img = Image.new("L", (size * 2, size * 2), 255)
    draw = ImageDraw.Draw(img)
    write_text(draw, (size * 0.3, size * 0.3, size * 1.7, size * 1.7), text, font_path, rng)
    shear = rng.uniform(-0.3, 0.3)
    sx, sy = rng.uniform(0.8, 1.2), rng.uniform(0.85, 1.15)
    c = size  # about the centre: scale, shear, then rotate
    img = img.transform(img.size, Image.AFFINE, (1 / sx, shear, c - c / sx - shear * c, 0, 1 / sy, c - c / sy),
                        resample=Image.BILINEAR, fillcolor=255)
    img = img.rotate(rng.uniform(-10, 10), resample=Image.BILINEAR, fillcolor=255)
    k = rng.choice([0, 0, 0, 3, 3])
    if k:
        img = img.filter(ImageFilter.MinFilter(k) if rng.random() < 0.7 else ImageFilter.MaxFilter(3))
    if rng.random() < 0.4:
        img = img.filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 0.9)))
    return np.asarray(img, dtype=np.uint8)


def sklearn_digits() -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's 8×8 digits as dark ink on white, 32×32."""
    from sklearn.datasets import load_digits

    data = load_digits()
    out = []
    for im in data.images:
        big = Image.fromarray(np.uint8(255 - im * 255 / 16)).resize((24, 24), Image.BILINEAR)
        canvas = Image.new("L", (32, 32), 255)
        canvas.paste(big, (4, 4))
        out.append(np.asarray(canvas))
    return np.stack(out), data.target.astype(np.int64)
