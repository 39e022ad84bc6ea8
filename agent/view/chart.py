"""The run summary chart: tokens (in, out) and seconds (model, tools) per step, as inline SVG drawn
on the server, so the page needs no JS charting library and no build step. Bars link to their step."""

from __future__ import annotations

from markupsafe import Markup, escape

from .runs import RunView

WIDTH, PANEL, GAP, LEFT, BOTTOM = 960, 90, 26, 64, 18


def _nice(value: float) -> float:
    """A round axis maximum at or above `value`."""
    if value <= 0:
        return 1.0
    scale = 10 ** (len(str(int(value))) - 1)
    for m in (1, 2, 2.5, 5, 10):
        if value <= m * scale:
            return m * scale
    return 10.0 * scale


def _fmt(value: float, unit: str) -> str:
    if unit == "s":
        return f"{value:.1f} s" if value < 100 else f"{value:.0f} s"
    return f"{value / 1000:.1f}k" if value >= 1000 else f"{value:.0f}"


def render(run: RunView) -> Markup:
    steps = [s for s in run.ordered_steps() if s.n > 0]
    if not steps:
        return Markup("")
    n = len(steps)
    plot = WIDTH - LEFT - 8
    bar = plot / n
    inner = max(1.0, bar * 0.8) if n < 60 else max(0.6, bar - 0.3)
    height = 2 * PANEL + GAP + BOTTOM + 16
    out = [f'<svg class="chart" viewBox="0 0 {WIDTH} {height}" role="img" '
           f'aria-label="tokens and seconds per step" xmlns="http://www.w3.org/2000/svg">']
    panels: list[tuple[str, str, list[tuple[float, float]], tuple[str, str]]] = [
        ("tokens", "", [(float(s.tokens[0]), float(s.tokens[1])) for s in steps], ("in", "out")),
        ("seconds", "s", [(s.model_seconds, s.tool_seconds) for s in steps], ("model", "tools")),
    ]
    for p, (title, unit, values, names) in enumerate(panels):
        top = 8 + p * (PANEL + GAP)
        peak = _nice(max((a + b for a, b in values), default=0.0))
        out.append(f'<text class="axis" x="{LEFT - 6}" y="{top + 8}" text-anchor="end">{_fmt(peak, unit)}</text>')
        out.append(f'<text class="axis" x="{LEFT - 6}" y="{top + PANEL}" text-anchor="end">0</text>')
        out.append(f'<text class="label" x="4" y="{top + PANEL / 2 + 4}">{title}</text>')
        out.append(f'<line class="base" x1="{LEFT}" y1="{top + PANEL}" x2="{WIDTH - 8}" y2="{top + PANEL}"/>')
        for i, (step, (a, b)) in enumerate(zip(steps, values, strict=True)):
            x = LEFT + i * bar + (bar - inner) / 2
            ha, hb = PANEL * a / peak, PANEL * b / peak
            tip = escape(f"step {step.n}: {_fmt(a, unit)} {names[0]}, {_fmt(b, unit)} {names[1]}")
            cls = " err" if step.has_error else ""
            out.append(f'<a href="#step-{step.n}"><g class="bar{cls}"><title>{tip}</title>'
                       f'<rect class="s0" x="{x:.2f}" y="{top + PANEL - ha:.2f}" width="{inner:.2f}" height="{ha:.2f}"/>'
                       f'<rect class="s1" x="{x:.2f}" y="{top + PANEL - ha - hb:.2f}" width="{inner:.2f}" '
                       f'height="{hb:.2f}"/></g></a>')
        lx = WIDTH - 190
        out.append(f'<rect class="s0" x="{lx}" y="{top}" width="10" height="10"/>'
                   f'<text class="axis" x="{lx + 14}" y="{top + 9}">{names[0]}</text>'
                   f'<rect class="s1" x="{lx + 70}" y="{top}" width="10" height="10"/>'
                   f'<text class="axis" x="{lx + 84}" y="{top + 9}">{names[1]}</text>')
    base = 8 + 2 * PANEL + GAP + 14
    every = max(1, n // 20)
    for i, step in enumerate(steps):
        if i % every == 0 or i == n - 1:
            x = LEFT + i * bar + bar / 2
            out.append(f'<text class="axis" x="{x:.1f}" y="{base}" text-anchor="middle">{step.n}</text>')
    out.append("</svg>")
    return Markup("".join(out))  # noqa: S704 (every text in it is a number or escaped)
