"""One query's row of attention, written out: LaTeX formulas with numbers, and two figures.

The "One query, by hand" page follows query ``i`` through the layer. This module turns the numbers
(from the trace, and from :mod:`attention.by_hand` for the steps in between) into

- LaTeX formulas for ``st.latex``: the query and key vectors, the dot product term by term, the
  row of scores, the scaling by ``√d_k``, ``exp`` and normalization, dropout and the weighted sum of
  value vectors. Only numbers and integer indices go into LaTeX, never a token: user text in LaTeX
  could inject commands (``\\href``…). Positions count from 1, as the book writes ``x^{(2)}``.
- :func:`value_vectors_figure`: for ``d_out = 2``, the value vectors as arrows from the origin,
  line width ∝ weight, and the context vector as their weighted sum (tip to tail);
- :func:`weights_bar_figure`: the row of weights as bars, for any ``d_out``.

Notation follows the book: ``ω`` raw score, ``α`` attention weight, ``z`` context vector; ``s`` is
a scaled score ``ω / √d_k`` and ``α′`` a weight after dropout.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from .label_layout import FONT_SIZE as LABEL_FONT_SIZE
from .label_layout import PlacedLabel, label_extent, place_labels
from .labels import plain, unique_labels
from .vocabulary import DECIMALS, format_number

PRODUCTS_PER_LINE = 2  # q_m k_m products per LaTeX line for d_k = 2 (one per line above)
TERMS_PER_LINE = 4  # summed terms per LaTeX line
ROW_ENTRIES_PER_LINE = 6  # entries of a score row per LaTeX line
COMPONENTS_PER_LINE = 4  # components of a vector per LaTeX line (d_out up to 8 stays readable)
MAX_ROW_ENTRIES = 12  # entries of a score row written out before "…"
MAX_SUM_TERMS = 6  # exp terms written out in a softmax denominator
MAX_CONTEXT_TERMS = 10  # weighted value vectors written out in the context sum
MAX_ARROWS = 40  # above this many keys, value vectors are drawn as points, not arrows
MAX_LABELS = 12  # arrows labelled at most (the heaviest); the legend and hover name every one
MAX_LABELLED_BARS = 8  # above this many keys, bars carry no numbers (the hover and table do)
# The value-vector labels are laid out (viz.label_layout) for the smallest plot the figure can
# get: at least MIN_PLOT_WIDTH px wide (half the page at 1366 px gives about 360), and as high as
# the figure minus its title, the x axis and a legend of one entry per row (the worst case).
MIN_PLOT_WIDTH = 300
MIN_PLOT_HEIGHT = 200  # the figure grows when a long legend would leave less
AXIS_SPACE = 50  # px under the plot: tick labels and the axis title
LEGEND_ROW = 24  # px per legend row
LABEL_PAD = 8  # px between the outermost label and the edge of the plot
LABEL_ROUNDS = 10  # rounds of "place, widen the axes" before the fallback
FALLBACK_PAD = 0.4  # axes margin (× the data's span) when the labels do not settle
VALUE_COLOR = "#1f77b4"
CONTEXT_COLOR = "#d62728"
PATH_COLOR = "#ff7f0e"
FADED_COLOR = "#b0b0b0"


# --- numbers ---------------------------------------------------------------------------------


def number(value: float, decimals: int = DECIMALS) -> str:
    """``value`` with ``decimals`` decimals, as the page writes it (no ``-0.0000``)."""
    if value == float("-inf"):
        return r"-\infty"
    return format_number(value, decimals)


def _factor(value: float) -> str:
    """A number as a factor in a product: negatives in parentheses."""
    text = number(value)
    return f"({text})" if text.startswith("-") else text


def vector(values: Sequence[float]) -> str:
    r"""A vector as a LaTeX tuple: ``\left(0.4300,\ 0.1500\right)``."""
    return r"\left(" + r",\ ".join(number(float(v)) for v in values) + r"\right)"


def _vector_lines(prefix: str, values: Sequence[float], suffix: str = "") -> list[str]:
    """``prefix (a, b, …) suffix`` as lines of an aligned block, wrapped after 4 components.

    ``prefix`` holds the alignment mark (``q &= ``); continuation lines are indented.
    """
    texts = [number(float(v)) for v in values]
    if len(texts) <= COMPONENTS_PER_LINE:
        return [f"{prefix}{vector(values)}{suffix}"]
    chunks = [
        r",\ ".join(_lead(texts[start : start + COMPONENTS_PER_LINE]))
        for start in range(0, len(texts), COMPONENTS_PER_LINE)
    ]
    lines = [rf"{prefix}\bigl({chunks[0]},"]
    lines += [rf"&\qquad\quad {chunk}," for chunk in chunks[1:-1]]
    lines.append(rf"&\qquad\quad {chunks[-1]}\bigr){suffix}")
    return lines


def _lead(entries: list[str]) -> list[str]:
    """Brace a leading negative entry of a continuation line: after ``&`` KaTeX would set its
    minus sign as a binary operator (``− 0.5``) instead of a sign (``−0.5``)."""
    if entries and entries[0].startswith("-"):
        return [f"{{{entries[0]}}}", *entries[1:]]
    return entries


def _aligned(lines: list[str]) -> str:
    return r"\begin{aligned}" + r" \\ ".join(lines) + r"\end{aligned}"


# --- formulas --------------------------------------------------------------------------------


def vectors_latex(
    query_pos: int, key_pos: int, query: Sequence[float], key: Sequence[float]
) -> str:
    """``q^{(i)} = (…)`` and ``k^{(j)} = (…)`` with the trace's numbers (positions from 1)."""
    return _aligned(
        [
            *_vector_lines(rf"q^{{({query_pos})}} &= ", query),
            *_vector_lines(rf"k^{{({key_pos})}} &= ", key),
        ]
    )


def dot_product_latex(
    query_pos: int,
    key_pos: int,
    query: Sequence[float],
    key: Sequence[float],
    terms: Sequence[float],
    score: float,
) -> str:
    """``ω_{i,j} = q^{(i)} · k^{(j)}`` written out term by term, ending in the trace's score.

    ``terms`` are the products ``q_m k_m`` (from :func:`attention.by_hand.dot_product_terms`),
    ``score`` is ``attn_scores[0, i, j]`` from the trace.
    """
    d = len(query)
    q, k = f"q^{{({query_pos})}}", f"k^{{({key_pos})}}"
    head = rf"\omega_{{{query_pos},{key_pos}}} &= {q} \cdot {k}"
    if d <= PRODUCTS_PER_LINE:
        head += " = " + " + ".join(f"{q}_{{{m + 1}}} {k}_{{{m + 1}}}" for m in range(d))
    else:
        head += rf" = \sum_{{m=1}}^{{{d}}} {q}_{{m}} {k}_{{m}}"
    lines = [head]
    products = [
        rf"({number(float(a))})({number(float(b))})" for a, b in zip(query, key, strict=True)
    ]
    sums = [_factor(float(term)) for term in terms]
    products_per_line = PRODUCTS_PER_LINE if d <= PRODUCTS_PER_LINE else 1  # fit half a page
    for chunked, per_line in ((products, products_per_line), (sums, TERMS_PER_LINE)):
        for start in range(0, d, per_line):
            piece = " + ".join(chunked[start : start + per_line])
            lines.append(("&= " if start == 0 else r"&\quad + ") + piece)
    lines.append(f"&= {number(score)}")
    return _aligned(lines)


def _row_lines(name: str, row: Sequence[float], hidden: Sequence[bool]) -> list[str]:
    """``name &= (a, b, …`` over lines of :data:`ROW_ENTRIES_PER_LINE` entries (aligned rows)."""
    entries = [
        r"-\infty" if hide else number(float(v)) for v, hide in zip(row, hidden, strict=True)
    ]
    if len(entries) > MAX_ROW_ENTRIES:
        entries = [*entries[:MAX_ROW_ENTRIES], r"\dots"]
    chunks = [
        r",\ ".join(_lead(entries[start : start + ROW_ENTRIES_PER_LINE]))
        for start in range(0, len(entries), ROW_ENTRIES_PER_LINE)
    ]
    if len(chunks) == 1:
        return [rf"{name} &= \left({chunks[0]}\right)"]
    lines = [rf"{name} &= \big({chunks[0]},"]
    lines += [rf"&\qquad {chunk}," for chunk in chunks[1:-1]]
    lines.append(rf"&\qquad {chunks[-1]}\big)")
    return lines


def score_row_latex(query_pos: int, row: Sequence[float], hidden: Sequence[bool]) -> str:
    """The whole row of (masked) scores of query ``i``: ``−∞`` for the future keys."""
    return _aligned(_row_lines(rf"\omega_{{{query_pos},\cdot}}", row, hidden))


def scale_latex(
    query_pos: int,
    key_pos: int,
    score: float,
    d_k: int,
    scaled: float,
    scaled_row: Sequence[float],
    hidden: Sequence[bool],
    key_hidden: bool,
) -> str:
    """``s_{i,j} = ω_{i,j} / √d_k`` for the chosen key, then the whole scaled row."""
    root = d_k**0.5
    shown_score = r"-\infty" if key_hidden else number(score)
    shown_scaled = r"-\infty" if key_hidden else number(scaled)
    return _aligned(
        [
            rf"s_{{{query_pos},{key_pos}}} &= \frac{{\omega_{{{query_pos},{key_pos}}}}}"
            rf"{{\sqrt{{d_k}}}} = \frac{{{shown_score}}}{{\sqrt{{{d_k}}}}}"
            rf" = \frac{{{shown_score}}}{{{number(root)}}} = {shown_scaled}",
            *_row_lines(rf"s_{{{query_pos},\cdot}}", scaled_row, hidden),
        ]
    )


def softmax_latex(
    query_pos: int,
    key_pos: int,
    scaled_row: Sequence[float],
    hidden: Sequence[bool],
    exps: Sequence[float],
    total: float,
    shift: float,
    weight: float,
) -> str:
    """``α_{i,j} = e^{s_{i,j}} / Σ_j e^{s_{i,j}}`` with every exp and the sum; ``weight`` from
    the trace's ``attn_weights``.

    When ``shift`` is not 0 (huge scores), each exponent is ``s − m`` with ``m`` the largest score:
    softmax does not change when the same number is subtracted from every score.
    """
    i, j = query_pos, key_pos
    visible = [index for index, hide in enumerate(hidden) if not hide]
    minus = "" if shift == 0.0 else " - m"
    lines = []
    if shift != 0.0:
        lines.append(rf"m &= \max_j s_{{{i},j}} = {number(shift)}")
    lines.append(
        rf"\alpha_{{{i},{j}}} &= \frac{{e^{{s_{{{i},{j}}}{minus}}}}}"
        rf"{{\sum_{{j' \le {i}}} e^{{s_{{{i},j'}}{minus}}}}}"
    )
    key_hidden = bool(hidden[j - 1])
    if key_hidden:
        lines.append(rf"&= \frac{{e^{{-\infty}}}}{{{number(total)}}} = 0")
        return _aligned(lines)
    if shift == 0.0:
        powers = [rf"e^{{{number(float(scaled_row[index]))}}}" for index in visible]
    else:
        powers = [rf"e^{{{number(float(scaled_row[index]) - shift)}}}" for index in visible]
    numbers_ = [number(float(exps[index])) for index in visible]
    own = visible.index(j - 1)
    if len(visible) <= MAX_SUM_TERMS:
        lines.append(rf"&= \frac{{{powers[own]}}}{{{' + '.join(powers)}}}")
        lines.append(rf"&= \frac{{{numbers_[own]}}}{{{' + '.join(numbers_)}}}")
    else:
        lines.append(
            rf"&= \frac{{{powers[own]}}}{{{' + '.join(powers[:3])} + \dots + {powers[-1]}}}"
        )
    lines.append(rf"&= \frac{{{numbers_[own]}}}{{{number(total)}}} = {number(weight)}")
    return _aligned(lines)


def dropout_latex(
    query_pos: int,
    key_pos: int,
    weight: float,
    kept: bool,
    p: float,
    scale: float,
    dropped_weight: float,
) -> str:
    """``α′_{i,j}``: the weight after dropout, kept and scaled by ``1/(1−p)``, or dropped to 0."""
    i, j = query_pos, key_pos
    if not kept:
        return rf"\alpha'_{{{i},{j}}} = 0 \times \alpha_{{{i},{j}}} = 0 \times {number(weight)} = 0"
    return (
        rf"\alpha'_{{{i},{j}}} = \alpha_{{{i},{j}}} \times \frac{{1}}{{1 - {number(p, 2)}}}"
        rf" = {number(weight)} \times {number(scale)} = {number(dropped_weight)}"
    )


def context_latex(
    query_pos: int,
    weights: Sequence[float],
    values: Sequence[Sequence[float]],
    hidden: Sequence[bool],
    context: Sequence[float],
    primed: bool = True,
) -> str:
    """``z^{(i)} = Σ_j α′_{i,j} v^{(j)}`` written out, one weighted value vector per line.

    ``weights`` is the trace's ``dropped_weights`` row, ``values`` its value vectors and
    ``context`` its context vector of query ``i``; masked keys are left out (their weight is 0).
    """
    i = query_pos
    alpha = r"\alpha'" if primed else r"\alpha"
    visible = [index for index, hide in enumerate(hidden) if not hide]
    lines = [rf"z^{{({i})}} &= \sum_{{j \le {i}}} {alpha}_{{{i},j}}\, v^{{(j)}}"]
    shown = visible if len(visible) <= MAX_CONTEXT_TERMS else visible[: MAX_CONTEXT_TERMS - 1]
    rest = len(visible) - len(shown)
    width = len(context)
    if width <= COMPONENTS_PER_LINE:  # each term on a line, the vector under its name
        for count, index in enumerate(shown):
            lead = "&= " if count == 0 else r"&\quad + "
            lines.append(
                rf"{lead}{number(float(weights[index]))} \times "
                rf"\underbrace{{{vector(values[index])}}}_{{v^{{({index + 1})}}}}"
            )
        if rest:
            lines.append(rf"&\quad + \dots \quad (+{rest})")
    else:  # wide vectors: the weighted names first, then each vector on its own lines
        named = [rf"{number(float(weights[index]))}\, v^{{({index + 1})}}" for index in shown]
        if rest:
            named.append(rf"\dots\ (+{rest})")
        for start in range(0, len(named), 3):
            lead = "&= " if start == 0 else r"&\quad + "
            lines.append(lead + " + ".join(named[start : start + 3]))
        for index in shown:
            lines += _vector_lines(rf"v^{{({index + 1})}} &= ", values[index])
    lines += _vector_lines("&= " if width <= COMPONENTS_PER_LINE else rf"z^{{({i})}} &= ", context)
    return _aligned(lines)


# --- figures ---------------------------------------------------------------------------------

DEFAULT_TEXTS = {
    "title": "",
    "value": "value vector",
    "masked": "masked",
    "context": "context vector",
    "path": "weighted sum, tip to tail",
    "weight": "weight",
    "before": "α (before dropout)",
    "after": "α′ (after dropout)",
    "key": "key",
    "x_axis": "component 1",
    "y_axis": "component 2",
}


def _texts(texts: dict[str, str] | None) -> dict[str, str]:
    return {**DEFAULT_TEXTS, **(texts or {})}


def _key_names(tokens: Sequence[str]) -> list[str]:
    """``1: Your``, ``2: journey``… (escaped)."""
    return [f"{index + 1}: {label}" for index, label in enumerate(_escaped_labels(tokens))]


def _escaped_labels(tokens: Sequence[str]) -> list[str]:
    """Token labels told apart (``the·2``) and escaped for Plotly."""
    return [plain(label) for label in unique_labels(list(tokens))]


def _padded_ranges(points: np.ndarray, pad: float = 0.18) -> tuple[list[float], list[float]]:
    """Axis ranges around ``points`` (n, 2) with room for the labels at the arrow tips."""
    low, high = points.min(axis=0), points.max(axis=0)  # (2,), (2,)
    span = float(max((high - low).max(), 1e-6))
    margin = pad * span
    return (
        [float(low[0]) - margin, float(high[0]) + margin],
        [float(low[1]) - margin, float(high[1]) + margin],
    )


def plot_height_px(height: int, legend_entries: int, titled: bool) -> float:
    """The least height of the plot area of a figure ``height`` px high (the legend at its worst)."""
    return height - (40 if titled else 10) - 10 - AXIS_SPACE - LEGEND_ROW * legend_entries


def least_scale(x_range: Sequence[float], y_range: Sequence[float], plot_height: float) -> float:
    """Pixels per data unit of an equal-axes plot at least ``MIN_PLOT_WIDTH`` × ``plot_height``.

    Plotly keeps both ranges and widens one of them when the plot has room to spare, so the
    scale is the smaller of width / x span and height / y span; a wider plot only raises it.
    """
    return min(MIN_PLOT_WIDTH / (x_range[1] - x_range[0]), plot_height / (y_range[1] - y_range[0]))


def layout_value_labels(
    tips: np.ndarray,
    texts: Sequence[str],
    obstacles: np.ndarray,
    plot_height: float,
    segments: Sequence[tuple[Sequence[float], Sequence[float]]] = (),
    order: Sequence[int] | None = None,
) -> tuple[list[PlacedLabel], list[float], list[float], float]:
    """Place the labels of the arrow tips and choose axis ranges that hold them.

    The scale depends on the ranges and the ranges on where the labels go, so: place at the scale
    of the current ranges, widen the ranges to hold every box, and again until they hold (the
    scale only falls, so a few rounds settle it). Labels too big for the plot never settle: then
    the axes get a fixed margin and only places inside them count; a label with none is left
    out (the legend and the hover still name it).

    Returns:
        ``(labels, x_range, y_range, scale)``: the placed labels and, at ``scale`` (pixels per
        unit, the least the figure is drawn at), ranges that contain every point and every box.
    """
    points = np.vstack([tips, obstacles])  # (n + m, 2)
    x_range, y_range = _padded_ranges(points)
    labels: list[PlacedLabel] = []
    scale = least_scale(x_range, y_range, plot_height)
    for _ in range(LABEL_ROUNDS):
        scale = least_scale(x_range, y_range, plot_height)
        labels = place_labels(
            tips, texts, scale=scale, obstacles=obstacles, segments=segments, order=order
        )
        pad = LABEL_PAD / scale
        extent = np.vstack([points, label_extent(labels, scale)])  # (…, 2)
        low, high = extent.min(axis=0) - pad, extent.max(axis=0) + pad  # (2,), (2,)
        if (
            low[0] >= x_range[0]
            and low[1] >= y_range[0]
            and high[0] <= x_range[1]
            and high[1] <= y_range[1]
        ):
            break
        # widen to hold every box, and a little more: the scale falls with it, boxes grow
        x_range = [min(x_range[0], float(low[0]) - pad), max(x_range[1], float(high[0]) + pad)]
        y_range = [min(y_range[0], float(low[1]) - pad), max(y_range[1], float(high[1]) + pad)]
    else:  # not settled (labels too big for the plot): roomy axes, only places inside them
        x_range, y_range = _padded_ranges(points, pad=FALLBACK_PAD)
        scale = least_scale(x_range, y_range, plot_height)
        labels = place_labels(
            tips,
            texts,
            scale=scale,
            obstacles=obstacles,
            segments=segments,
            bounds=(x_range, y_range),
            order=order,
        )
    return labels, x_range, y_range, scale


def drawn_lines(
    values: np.ndarray, context: np.ndarray, path: np.ndarray | None
) -> list[tuple[np.ndarray, np.ndarray]]:
    """The segments the figure draws: each arrow from the origin, the context arrow, the path."""
    origin = np.zeros(2)
    lines = [(origin, values[index]) for index in range(values.shape[0])]
    lines.append((origin, context))
    if path is not None:
        lines += [(path[index], path[index + 1]) for index in range(path.shape[0] - 1)]
    return lines


def _arrow_trace(
    point: np.ndarray,
    weight: float,
    hidden: bool,
    label: str,
    share: float,
    words: dict,
) -> go.Scatter:
    """Value vector ``index`` as an arrow from the origin: width and opacity grow with its weight."""
    faded = hidden or weight == 0.0
    note = f"{words['masked']}" if hidden else f"{words['weight']} {number(weight)}"
    color = FADED_COLOR if faded else VALUE_COLOR
    return go.Scatter(
        x=[0.0, point[0]],
        y=[0.0, point[1]],
        mode="lines+markers",
        line={
            "color": color,
            "width": 1.0 if faded else 1.5 + 5.0 * share,
            "dash": "dot" if hidden else "solid",
        },
        marker={"size": [0, 9], "symbol": "arrow", "angleref": "previous", "color": color},
        opacity=0.45 if faded else 0.35 + 0.65 * share,
        name=f"{label} ({note})",
        showlegend=not hidden,  # masked keys: faded, not in the legend
        customdata=[[note], [note]],
        hovertemplate=(
            f"{label}<br>(%{{x:.{DECIMALS}f}}, %{{y:.{DECIMALS}f}})<br>%{{customdata[0]}}"
            "<extra></extra>"
        ),
    )


def _points_trace(
    values: np.ndarray, weights: np.ndarray, shares: np.ndarray, names: list[str], words: dict
) -> go.Scatter:
    """Every value vector as a point (too many keys for arrows), larger for a larger weight."""
    return go.Scatter(
        x=values[:, 0],
        y=values[:, 1],
        mode="markers",
        marker={"size": 4 + 14 * shares, "color": VALUE_COLOR, "opacity": 0.25 + 0.75 * shares},
        text=names,
        customdata=weights,
        name=words["value"],
        hovertemplate=(
            f"%{{text}}<br>(%{{x:.{DECIMALS}f}}, %{{y:.{DECIMALS}f}})<br>"
            f"{plain(words['weight'])} %{{customdata:.{DECIMALS}f}}<extra></extra>"
        ),
    )


def _value_traces(
    values: np.ndarray,
    weights: np.ndarray,
    hidden: np.ndarray,
    tokens: Sequence[str],
    words: dict,
    *,
    arrows: bool,
) -> list[go.Scatter]:
    """One arrow per value vector, or one trace of points when there are too many for arrows."""
    largest = float(weights[~hidden].max()) if (~hidden).any() else 0.0
    shares = np.where(hidden, 0.0, np.clip(weights, 0.0, None) / (largest or 1.0))  # (T,)
    if not arrows:
        return [_points_trace(values, weights, shares, _key_names(tokens), words)]
    labels = _escaped_labels(tokens)
    return [
        _arrow_trace(
            values[index],
            float(weights[index]),
            bool(hidden[index]),
            f"v<sub>{index + 1}</sub> · {labels[index]}",
            float(shares[index]),
            words,
        )
        for index in range(values.shape[0])
    ]


def _label_annotation(item: PlacedLabel, label: str, weight: float) -> dict:
    """One value vector's label, in its box, with a thin line to the arrow's tip."""
    return {
        "x": item.point[0],
        "y": item.point[1],
        "ax": item.center[0],  # the box is centred on the arrow's tail (data units)
        "ay": item.center[1],
        "xref": "x",
        "yref": "y",
        "axref": "x",
        "ayref": "y",
        "text": f"v<sub>{item.index + 1}</sub> · {label}",
        "showarrow": True,
        "arrowhead": 0,
        "arrowwidth": 1,
        "arrowcolor": "#b0b0b0",
        "standoff": 3,
        "font": {"size": LABEL_FONT_SIZE, "color": FADED_COLOR if weight == 0.0 else "#333333"},
        "bgcolor": "rgba(255, 255, 255, 0.8)",
        "borderpad": 1,
    }


def _path_trace(path: np.ndarray, words: dict) -> go.Scatter:
    """The weighted value vectors laid tip to tail, from the origin to the context vector."""
    return go.Scatter(
        x=path[:, 0],
        y=path[:, 1],
        mode="lines",
        line={"color": PATH_COLOR, "width": 1.5, "dash": "dash"},
        name=plain(words["path"]),
        hoverinfo="skip",
    )


def _value_labels(
    values: np.ndarray,
    weights: np.ndarray,
    hidden: np.ndarray,
    context: np.ndarray,
    path: np.ndarray | None,
    tokens: Sequence[str],
    *,
    plot_height: float,
    labelled: bool,
) -> tuple[list[dict], list[float], list[float], float]:
    """The arrows' label annotations and the axis ranges that hold them (and their scale).

    The heaviest visible keys are labelled first (they get the nearest places), at most
    ``MAX_LABELS`` of them; masked keys get no label (hover only); none when ``labelled`` is
    False (points instead of arrows). Labels are measured as plain text.
    """
    num_tokens = values.shape[0]
    order = [int(k) for k in np.argsort(-np.where(hidden, -np.inf, weights), kind="stable")]
    order = [k for k in order if labelled and not hidden[k]][:MAX_LABELS]
    plain_labels = unique_labels(list(tokens))
    texts = [f"v{k + 1} · {plain_labels[k]}" if k in order else "" for k in range(num_tokens)]
    obstacles = np.vstack([context[None, :], np.zeros((1, 2))])  # the star and the origin
    placed, x_range, y_range, scale = layout_value_labels(
        values, texts, obstacles, plot_height, drawn_lines(values, context, path), order
    )
    escaped = _escaped_labels(tokens)
    annotations = [
        _label_annotation(item, escaped[item.index], float(weights[item.index])) for item in placed
    ]
    return annotations, x_range, y_range, scale


def _context_trace(context: np.ndarray, query_pos: int, words: dict) -> go.Scatter:
    """The context vector z as a thick red arrow ending in a star."""
    context_name = f"z<sup>({query_pos})</sup> · {plain(words['context'])}"
    return go.Scatter(
        x=[0.0, context[0]],
        y=[0.0, context[1]],
        mode="lines+markers",
        line={"color": CONTEXT_COLOR, "width": 3},
        marker={"size": [0, 16], "symbol": "star", "color": CONTEXT_COLOR},
        name=context_name,
        hovertemplate=f"{context_name}<br>(%{{x:.{DECIMALS}f}}, %{{y:.{DECIMALS}f}})<extra></extra>",
    )


def _axis(title: str, value_range: list[float]) -> dict:
    return {
        "title": {"text": plain(title)},
        "range": value_range,
        "zeroline": True,
        "zerolinecolor": "#999999",
        "gridcolor": "#eeeeee",
    }


def value_vectors_figure(
    values: np.ndarray | Sequence[Sequence[float]],
    weights: Sequence[float],
    hidden: Sequence[bool],
    context: Sequence[float],
    tokens: Sequence[str],
    query_pos: int,
    *,
    terms: np.ndarray | Sequence[Sequence[float]] | None = None,
    texts: dict[str, str] | None = None,
    height: int = 460,
) -> go.Figure:
    """The value vectors of a 2-D head as arrows, and the context vector as their weighted sum.

    Args:
        values: ``(T, 2)`` value vectors.
        weights: ``(T,)`` the weights of query ``query_pos`` (after dropout): line width ∝ weight.
        hidden: ``(T,)`` True for masked (future) keys: drawn faded and dotted, weight 0.
        context: ``(2,)`` the context vector ``z`` of the query (from the trace).
        tokens: token labels (escaped here).
        query_pos: the query's position, counting from 1.
        terms: ``(T, 2)`` the weighted vectors ``w_j v_j``; when given, drawn tip to tail from the
            origin to ``z``.
        texts: translated legend and axis words (see ``DEFAULT_TEXTS``).

    Returns:
        A figure: one trace per value vector (or one points trace above ``MAX_ARROWS`` keys), the
        context vector trace (named with ``texts["context"]``) and, optionally, the path trace.
    """
    words = _texts(texts)
    values = np.asarray(values, dtype=np.float64)  # (T, 2)
    weights_ = np.asarray(weights, dtype=np.float64)  # (T,)
    hidden_ = np.asarray(hidden, dtype=bool)  # (T,)
    context_ = np.asarray(context, dtype=np.float64)  # (2,)
    if values.ndim != 2 or values.shape[1] != 2:
        raise ValueError(f"value_vectors_figure needs d_out = 2, got values {values.shape}")
    num_tokens = values.shape[0]
    arrows = num_tokens <= MAX_ARROWS
    figure = go.Figure(_value_traces(values, weights_, hidden_, tokens, words, arrows=arrows))
    path = None
    if terms is not None:
        steps = np.asarray(terms, dtype=np.float64)[~hidden_]  # (visible, 2)
        path = np.vstack([np.zeros((1, 2)), np.cumsum(steps, axis=0)])  # origin, then partial sums
        figure.add_trace(_path_trace(path, words))
    titled = bool(words["title"])
    legend_entries = len(figure.data) + 1  # the traces so far and the context vector
    shortfall = MIN_PLOT_HEIGHT - plot_height_px(height, legend_entries, titled)
    height = height + max(0, int(math.ceil(shortfall)))  # a long legend: the figure grows
    annotations, x_range, y_range, scale = _value_labels(
        values,
        weights_,
        hidden_,
        context_,
        path,
        tokens,
        plot_height=plot_height_px(height, legend_entries, titled),
        labelled=arrows,
    )
    figure.add_trace(_context_trace(context_, query_pos, words))
    figure.update_layout(
        title={"text": plain(words["title"])} if titled else None,
        height=height,
        margin={"l": 10, "r": 10, "t": 40 if titled else 10, "b": 10},
        plot_bgcolor="white",
        legend={"orientation": "h", "yanchor": "top", "y": -0.2, "x": 0.0},
        annotations=annotations,  # the value vectors' labels
        meta={"label_scale": scale},  # px per unit the labels were laid out for (the least)
        xaxis=_axis(words["x_axis"], x_range),
        yaxis=_axis(words["y_axis"], y_range) | {"scaleanchor": "x"},
    )
    return figure


def _bar_trace(
    names: list[str],
    row: np.ndarray,
    hidden: np.ndarray,
    name: str,
    color: str,
    words: dict,
    *,
    numbered: bool,
) -> go.Bar:
    """One series of weights as bars (0 where masked), numbered above the bars if ``numbered``."""
    texts = [
        number(float(value)) if numbered and not hide else ""
        for value, hide in zip(row, hidden, strict=True)
    ]
    return go.Bar(
        x=names,
        y=np.where(hidden, 0.0, row),
        text=texts,
        textposition="outside",
        textfont={"size": 11},
        cliponaxis=False,
        constraintext="none",  # keep the numbers readable above narrow bars
        marker={"color": color},
        name=plain(name),
        hovertemplate=(
            f"{plain(words['key'])}: %{{x}}<br>{plain(name)}: %{{y:.{DECIMALS}f}}<extra></extra>"
        ),
    )


def _masked_keys_trace(
    names: list[str], hidden: np.ndarray, words: dict, *, many: bool
) -> go.Scatter:
    """The word "masked" (or −∞ when there are many keys) on each masked key."""
    count = int(hidden.sum())
    return go.Scatter(
        x=[name for name, hide in zip(names, hidden, strict=True) if hide],
        y=[0.0] * count,
        mode="text",
        text=["−∞" if many else plain(words["masked"])] * count,
        textposition="top center",
        textfont={"color": "#777777", "size": 11},
        showlegend=False,
        hovertemplate=(
            f"{plain(words['key'])}: %{{x}}<br>{plain(words['masked'])}: −∞ → 0<extra></extra>"
        ),
    )


def weights_bar_figure(
    weights: Sequence[float],
    hidden: Sequence[bool],
    tokens: Sequence[str],
    *,
    dropped_weights: Sequence[float] | None = None,
    texts: dict[str, str] | None = None,
    height: int = 340,
) -> go.Figure:
    """Bars of one query's attention weights over the keys; masked keys are written "masked".

    Args:
        weights: ``(T,)`` the softmax weights ``α`` of the query (the trace's ``attn_weights``).
        hidden: ``(T,)`` True for masked keys (weight 0, no bar, a "masked" label instead).
        tokens: token labels (escaped here).
        dropped_weights: ``(T,)`` the weights after dropout, drawn as a second series if given.
        texts: translated words (see ``DEFAULT_TEXTS``).

    Returns:
        A figure with one ``Bar`` trace per series (``y`` = the weights, 0 where masked) and, when
        some keys are masked, a text trace writing ``texts["masked"]`` on those keys.
    """
    words = _texts(texts)
    hidden_ = np.asarray(hidden, dtype=bool)
    names = _key_names(tokens)
    series = [(words["before"], np.asarray(weights, dtype=np.float64), VALUE_COLOR)]
    if dropped_weights is not None:
        series.append((words["after"], np.asarray(dropped_weights, dtype=np.float64), PATH_COLOR))
    many = len(names) > MAX_LABELLED_BARS  # then: no numbers on bars, "−∞" for masked keys
    bars = [
        _bar_trace(names, row, hidden_, name, color, words, numbered=not many)
        for name, row, color in series
    ]
    figure = go.Figure(bars)
    if hidden_.any():
        figure.add_trace(_masked_keys_trace(names, hidden_, words, many=many))
    top = max(1.0, *(float(np.max(row)) for _, row, _ in series)) * 1.15
    figure.update_layout(
        title={"text": plain(words["title"])} if words["title"] else None,
        height=height,
        barmode="group",
        margin={"l": 10, "r": 10, "t": 60 if words["title"] else 30, "b": 10},
        plot_bgcolor="white",
        showlegend=dropped_weights is not None,
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.0, "x": 0.0},
        xaxis={"title": {"text": plain(words["key"])}, "type": "category"},
        yaxis={
            "title": {"text": plain(words["weight"])},
            "range": [0, top],
            "gridcolor": "#eeeeee",
        },
    )
    return figure
