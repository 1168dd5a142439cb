"""Line charts as inline SVG: no plotting library, no fonts or scripts to fetch, text escaped.

One chart: the control run (dashed) and the faulted run over steps, the fault window shaded, fault events
as dashed lines, non-finite values as marks along the top edge, a linear or log y axis.
"""

from __future__ import annotations

import math
from html import escape

from faultlib.regress.series import Chart
from faultlib.text import printable

WIDTH, HEIGHT = 640, 240
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 28, 40
COLORS = {"control": "#4c72b0", "faulted": "#d62728"}
WINDOW_FILL = "#f2c14e"


def _text(value: str) -> str:
    """SVG text: control characters escaped, then markup."""
    return escape(printable(value))


def _nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    if high <= low:
        return [low]
    raw = (high - low) / max(1, count - 1)
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    first = math.ceil(low / step) * step
    ticks, value = [], first
    while value <= high + step * 1e-9 and len(ticks) < 12:
        ticks.append(0.0 if abs(value) < step * 1e-9 else value)
        value += step
    return ticks


def _label(value: float) -> str:
    if value == 0:
        return "0"
    if abs(value) >= 1e5 or abs(value) < 1e-3:
        return f"{value:.1e}"
    return f"{value:.4g}"


def render(chart: Chart) -> str:
    """The chart as an ``<svg>`` element (a string to place in HTML as is; every text is escaped).

    Args:
        chart: from :func:`faultlib.regress.series.report_data`.

    Returns:
        SVG markup, :data:`WIDTH` x :data:`HEIGHT` user units, scaling to the page width.
    """
    lines = {"control": chart.control, "faulted": chart.faulted}
    xs = [x for segs in lines.values() for seg in segs for x, _ in seg]
    xs += [x for marks in chart.nonfinite.values() for x in marks] + [m[0] for m in chart.markers]
    xs += list(chart.window or [])
    ys = [y for segs in lines.values() for seg in segs for _, y in seg]
    log = chart.log_y and bool(ys) and min(ys) > 0
    if log:
        ys = [math.log10(y) for y in ys]
    x0, x1 = (min(xs), max(xs)) if xs else (0.0, 1.0)
    y0, y1 = (min(ys), max(ys)) if ys else (0.0, 1.0)
    if x1 == x0:
        x0, x1 = x0 - 1, x1 + 1
    if y1 == y0:
        y0, y1 = y0 - 1, y1 + 1
    pad = (y1 - y0) * 0.05
    y0, y1 = y0 - pad, y1 + pad
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def px(x: float) -> float:
        return LEFT + (x - x0) / (x1 - x0) * plot_w

    def py(y: float) -> float:
        value = math.log10(y) if log else y
        return TOP + (1 - (value - y0) / (y1 - y0)) * plot_h

    title = _text(chart.title)
    out = [f'<svg viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
           f'aria-label="{title}" class="chart">', f"<title>{title}</title>",
           f'<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="#fff" stroke="#ccc"/>']
    if chart.window:
        # steps are inclusive ([120, 127] covers step 127 up to 128); seconds are a plain range
        inclusive = 1 if len(xs) > 1 and not chart.x_continuous else 0
        a, b = px(chart.window[0]), px(chart.window[1] + inclusive)
        b = min(b, LEFT + plot_w)
        out.append(f'<rect class="fault-window" x="{a:.1f}" y="{TOP}" width="{max(1.0, b - a):.1f}" '
                   f'height="{plot_h}" fill="{WINDOW_FILL}" fill-opacity="0.3"><title>fault window: '
                   f'{_text(chart.x_label)} {_label(chart.window[0])} to {_label(chart.window[1])}</title></rect>')
    if log:
        decades = list(range(math.ceil(y0), math.floor(y1) + 1))
        every = max(1, math.ceil(len(decades) / 6))  # at most about six labelled decades
        ticks = [10.0 ** e for e in decades[::every]] or [10 ** y0]
    else:
        ticks = _nice_ticks(y0, y1)
    for tick in ticks:
        y = py(tick)
        out.append(f'<line x1="{LEFT}" x2="{LEFT + plot_w}" y1="{y:.1f}" y2="{y:.1f}" stroke="#eee"/>'
                   f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="11">{_label(tick)}</text>')
    for tick in _nice_ticks(x0, x1, 6):
        x = px(tick)
        out.append(f'<text x="{x:.1f}" y="{TOP + plot_h + 16}" text-anchor="middle" font-size="11">'
                   f'{_label(tick)}</text>')
    for x, label in chart.markers:
        out.append(f'<line class="fault-event" x1="{px(x):.1f}" x2="{px(x):.1f}" y1="{TOP}" y2="{TOP + plot_h}" '
                   f'stroke="#555" stroke-dasharray="4 3"><title>{_text(str(label))} at {_label(x)}</title></line>')
    for phase in ("faulted", "control"):  # control last and dashed: where the runs agree, both stay visible
        segments = lines[phase]
        dash = ' stroke-dasharray="6 3"' if phase == "control" else ""
        for segment in segments:
            points = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in segment)
            if len(segment) == 1:
                x, y = segment[0]
                out.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="2.5" fill="{COLORS[phase]}"/>')
            elif segment:
                out.append(f'<polyline class="series-{phase}" points="{points}" fill="none" '
                           f'stroke="{COLORS[phase]}" stroke-width="1.6"{dash}/>')
        for x in chart.nonfinite.get(phase, []):
            out.append(f'<text x="{px(x):.1f}" y="{TOP + 10}" text-anchor="middle" font-size="10" '
                       f'fill="{COLORS[phase]}">&#215;<title>non-finite value ({phase})</title></text>')
    out.append(f'<text x="{LEFT + plot_w / 2:.1f}" y="{HEIGHT - 6}" text-anchor="middle" font-size="12">'
               f'{_text(chart.x_label)}</text>')
    out.append(f'<text x="14" y="{TOP + plot_h / 2:.1f}" text-anchor="middle" font-size="12" '
               f'transform="rotate(-90 14 {TOP + plot_h / 2:.1f})">{_text(chart.y_label)}{" (log)" if log else ""}</text>')
    legend_x = LEFT + 4
    for phase, color in COLORS.items():
        if not lines[phase] and not chart.nonfinite.get(phase):
            continue  # e.g. no control run (--no-control)
        dash = ' stroke-dasharray="6 3"' if phase == "control" else ""
        out.append(f'<line x1="{legend_x}" x2="{legend_x + 18}" y1="14" y2="14" stroke="{color}" stroke-width="2"{dash}/>'
                   f'<text x="{legend_x + 22}" y="18" font-size="11">{phase}</text>')
        legend_x += 80
    if chart.window:
        out.append(f'<rect x="{legend_x}" y="8" width="14" height="12" fill="{WINDOW_FILL}" fill-opacity="0.3"/>'
                   f'<text x="{legend_x + 18}" y="18" font-size="11">fault window</text>')
    out.append("</svg>")
    return "".join(out)
