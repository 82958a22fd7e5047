"""Card pictures as SVG: the figure as a silhouette on two themed regions.

These are the images the kiosk shows. A colour-blind-safe option overlays a
distinct pattern per colour (stripes, dots, diagonals, checks, plain) on the
paint and on both regions and names the colours, so every card can be solved
without telling red from green.
"""

from __future__ import annotations

from xml.sax.saxutils import escape

from controller.knapp.cards import Card, Colour, Figure, background_name

WIDTH = 300
HEIGHT = 420

FILL = {
    Colour.BLUE: "#1f5fbf",
    Colour.RED: "#c8292b",
    Colour.GREEN: "#2f8f3c",
    Colour.YELLOW: "#f3c614",
    Colour.WHITE: "#f7f7f2",
}
_DETAIL = {
    Colour.BLUE: "#7fb2f0",
    Colour.RED: "#8e1618",
    Colour.GREEN: "#1c5e26",
    Colour.YELLOW: "#b48a00",
    Colour.WHITE: "#b9c3cc",
}
_INK = "#1b1b1b"

# Silhouettes in a 100 x 100 box; `d` paths filled with the paint colour,
# `detail` paths stroked in ink on top.
_SHAPES: dict[Figure, tuple[list[str], list[str]]] = {
    Figure.SHIP: (
        ["M6 62 L94 62 Q90 78 76 84 L24 84 Q10 78 6 62 Z",  # hull
         "M6 62 Q2 48 10 44 Q14 50 10 56 Z",  # curled prow
         "M49 12 L53 12 L53 62 L49 62 Z",  # mast
         "M53 16 L84 22 Q78 40 84 56 L53 56 Z"],  # sail
        ["M12 70 L88 70", "M30 62 L30 84", "M50 62 L50 84", "M70 62 L70 84",
         "M53 16 L49 8"],
    ),
    Figure.VIKING: (
        ["M38 44 L62 44 L70 84 L30 84 Z",  # body
         "M50 40 m-13 0 a13 13 0 1 0 26 0 a13 13 0 1 0 -26 0",  # head
         "M36 30 Q50 12 64 30 Z",  # helmet
         "M36 28 Q24 24 22 8 Q30 18 40 22 Z",  # left horn
         "M64 28 Q76 24 78 8 Q70 18 60 22 Z",  # right horn
         "M40 46 Q50 64 60 46 Z",  # beard
         "M34 84 L44 84 L44 96 L34 96 Z", "M56 84 L66 84 L66 96 L56 96 Z"],  # legs
        ["M36 30 L64 30", "M45 38 L45 39", "M55 38 L55 39", "M30 62 L70 62"],
    ),
    Figure.CHILD: (
        ["M40 56 L60 56 L66 84 L34 84 Z",  # small body
         "M50 40 m-17 0 a17 17 0 1 0 34 0 a17 17 0 1 0 -34 0",  # big head
         "M33 36 Q50 14 67 36 Z",  # cap
         "M49 16 L51 16 L51 22 L49 22 Z",  # cap knob
         "M33 40 Q22 50 26 62 Q30 52 36 48 Z",  # left pigtail
         "M67 40 Q78 50 74 62 Q70 52 64 48 Z",  # right pigtail
         "M38 84 L46 84 L46 94 L38 94 Z", "M54 84 L62 84 L62 94 L54 94 Z",
         "M66 60 L84 44 L87 47 L69 63 Z"],  # wooden sword
        ["M44 40 L44 41", "M56 40 L56 41", "M45 48 Q50 52 55 48", "M33 36 L67 36"],
    ),
    Figure.CHEST: (
        ["M14 48 L86 48 L86 88 L14 88 Z",  # box
         "M14 48 Q14 22 50 22 Q86 22 86 48 Z"],  # arched lid
        ["M14 48 L86 48", "M28 24 L28 88", "M72 24 L72 88",
         "M44 44 L56 44 L56 60 L44 60 Z", "M50 52 L50 56"],
    ),
    Figure.DOG: (
        ["M22 50 Q20 38 36 38 L70 38 Q80 38 80 52 L80 60 Q78 66 70 66 L30 66 Q22 64 22 50 Z",
         "M70 40 Q68 22 82 20 Q96 22 94 36 Q92 46 80 46 Z",  # head
         "M80 20 Q74 14 76 30 Q80 28 84 22 Z",  # ear
         "M26 64 L34 64 L34 88 L26 88 Z", "M38 64 L46 64 L46 88 L38 88 Z",
         "M62 64 L70 64 L70 88 L62 88 Z", "M72 62 L80 62 L80 88 L72 88 Z",
         "M24 46 Q10 40 8 24 Q16 36 26 40 Z"],  # tail
        ["M88 30 L88 31", "M94 36 L90 36"],
    ),
}

_PATTERN_NAME = {
    Colour.BLUE: "stripes",
    Colour.RED: "dots",
    Colour.GREEN: "diagonals",
    Colour.YELLOW: "checks",
    Colour.WHITE: "plain",
}


def _pattern_defs() -> str:
    ink = 'fill="#000" fill-opacity="0.45"'
    line = 'stroke="#000" stroke-opacity="0.45"'
    return (
        "<defs>"
        '<pattern id="pat-blue" width="12" height="12" patternUnits="userSpaceOnUse">'
        f'<rect x="0" y="4" width="12" height="3" {ink}/></pattern>'
        '<pattern id="pat-red" width="12" height="12" patternUnits="userSpaceOnUse">'
        f'<circle cx="6" cy="6" r="2.6" {ink}/></pattern>'
        '<pattern id="pat-green" width="12" height="12" patternUnits="userSpaceOnUse">'
        f'<path d="M-3 3 L3 -3 M0 12 L12 0 M9 15 L15 9" {line} stroke-width="2.4"/></pattern>'
        '<pattern id="pat-yellow" width="14" height="14" patternUnits="userSpaceOnUse">'
        f'<rect width="7" height="7" {ink}/><rect x="7" y="7" width="7" height="7" {ink}/>'
        "</pattern>"
        "</defs>"
    )


def _region(colour: Colour, y0: int, y1: int, clip: str, colour_blind: bool) -> str:
    fill, detail = FILL[colour], _DETAIL[colour]
    out = [f'<g clip-path="url(#{clip})">',
           f'<rect x="0" y="{y0}" width="{WIDTH}" height="{y1 - y0}" fill="{fill}"/>']
    step = 38
    for row, y in enumerate(range(y0 + 18, y1, step)):
        for x in range(14 + (row % 2) * 19, WIDTH, step):
            out.append(_texture(colour, x, y, detail))
    if colour_blind and colour is not Colour.WHITE:
        out.append(f'<rect x="0" y="{y0}" width="{WIDTH}" height="{y1 - y0}" '
                   f'fill="url(#pat-{colour.value})"/>')
    out.append("</g>")
    return "".join(out)


def _texture(colour: Colour, x: int, y: int, c: str) -> str:
    if colour is Colour.GREEN:  # meadow: grass tufts
        return (f'<path d="M{x} {y + 8} L{x - 4} {y} M{x} {y + 8} L{x} {y - 2} '
                f'M{x} {y + 8} L{x + 4} {y}" stroke="{c}" stroke-width="2" fill="none"/>')
    if colour is Colour.YELLOW:  # wheat field: stalks with ears
        return (f'<path d="M{x} {y + 12} L{x} {y}" stroke="{c}" stroke-width="2"/>'
                f'<ellipse cx="{x}" cy="{y - 3}" rx="2.5" ry="5" fill="{c}"/>')
    if colour is Colour.RED:  # earth: clods
        return f'<ellipse cx="{x}" cy="{y}" rx="7" ry="4" fill="{c}"/>'
    if colour is Colour.BLUE:  # sea: waves
        return (f'<path d="M{x - 12} {y} q6 -6 12 0 t12 0" stroke="{c}" stroke-width="2.5" '
                'fill="none"/>')
    return (f'<path d="M{x - 5} {y} L{x + 5} {y} M{x} {y - 5} L{x} {y + 5} '  # snow: flakes
            f'M{x - 3.5} {y - 3.5} L{x + 3.5} {y + 3.5} M{x - 3.5} {y + 3.5} '
            f'L{x + 3.5} {y - 3.5}" stroke="{c}" stroke-width="1.5"/>')


def card_svg(card: Card, *, colour_blind: bool = False, title: bool = True) -> str:
    """Return a standalone SVG picture of `card`.

    Args:
        card: the card to draw.
        colour_blind: overlay a distinct pattern per colour and name the colours.
        title: include a <title> with the card's text (screen readers, tooltips).
    """
    top, bottom = card.background
    paths, details = _SHAPES[card.figure]
    scale = 2.3
    ox = (WIDTH - 100 * scale) / 2
    oy = 70.0
    horizon = "M0 200 Q75 170 150 200 T300 200"
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="{WIDTH}" height="{HEIGHT}" role="img" '
        f'aria-label="{escape(_describe(card))}">',
    ]
    if title:
        parts.append(f"<title>{escape(str(card))}</title>")
    if colour_blind:
        parts.append(_pattern_defs())
    parts.append(
        "<defs>"
        f'<clipPath id="card"><rect x="4" y="4" width="{WIDTH - 8}" height="{HEIGHT - 8}" '
        'rx="22"/></clipPath>'
        f'<clipPath id="top"><path d="M0 0 L{WIDTH} 0 L{WIDTH} 200 '
        'Q225 230 150 200 T0 200 Z"/></clipPath>'
        f'<clipPath id="bottom"><path d="M0 200 Q75 170 150 200 T{WIDTH} 200 '
        f'L{WIDTH} {HEIGHT} L0 {HEIGHT} Z"/></clipPath>'
        "</defs>"
    )
    parts.append('<g clip-path="url(#card)">')
    parts.append(_region(top, 0, 230, "top", colour_blind))
    parts.append(_region(bottom, 160, HEIGHT, "bottom", colour_blind))
    parts.append(f'<path d="{horizon}" stroke="{_INK}" stroke-opacity="0.35" '
                 'stroke-width="2" fill="none"/>')
    parts.append("</g>")
    fill = FILL[card.paint]
    parts.append(f'<g transform="translate({ox:.1f} {oy:.1f}) scale({scale})" '
                 f'stroke="{_INK}" stroke-width="1.6" stroke-linejoin="round">')
    for d in paths:
        parts.append(f'<path d="{d}" fill="{fill}"/>')
    if colour_blind and card.paint is not Colour.WHITE:
        for d in paths:
            parts.append(f'<path d="{d}" fill="url(#pat-{card.paint.value})" stroke="none"/>')
    for d in details:
        parts.append(f'<path d="{d}" fill="none" stroke-width="1.8" stroke-linecap="round"/>')
    parts.append("</g>")
    parts.append(f'<rect x="4" y="4" width="{WIDTH - 8}" height="{HEIGHT - 8}" rx="22" '
                 f'fill="none" stroke="{_INK}" stroke-width="6"/>')
    if colour_blind:
        label = (f"{card.paint.value} {card.figure.value} · {background_name(top)} "
                 f"({_PATTERN_NAME[top]}) · {background_name(bottom)} ({_PATTERN_NAME[bottom]})")
        parts.append(f'<rect x="14" y="{HEIGHT - 40}" width="{WIDTH - 28}" height="26" rx="8" '
                     'fill="#ffffff" fill-opacity="0.85"/>')
        parts.append(f'<text x="{WIDTH / 2}" y="{HEIGHT - 22}" font-family="sans-serif" '
                     f'font-size="10" text-anchor="middle" fill="{_INK}">{escape(label)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def figure_svg(figure: Figure) -> str:
    """A figure alone in its true colour (the table screen's verdict draws the correct one)."""
    paths, details = _SHAPES[figure]
    fill = FILL[figure.colour]
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="-4 -4 108 108" width="200" '
             f'height="200" role="img" aria-label="the {escape(figure.title)}">',
             f'<g stroke="{_INK}" stroke-width="1.6" stroke-linejoin="round">']
    parts += [f'<path d="{d}" fill="{fill}"/>' for d in paths]
    parts += [f'<path d="{d}" fill="none" stroke-width="1.8" stroke-linecap="round"/>'
              for d in details]
    parts.append("</g></svg>")
    return "".join(parts)


def _describe(card: Card) -> str:
    top, bottom = card.background
    return (f"A {card.paint.value} {card.figure.value} on {background_name(top)} "
            f"and {background_name(bottom)}")
