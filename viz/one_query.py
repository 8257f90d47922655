"""One query's row of attention, written out: LaTeX formulas with numbers, and two figures.

For the "One query, by hand" page: LaTeX for ``st.latex`` (the vectors, the dot product term by
term, scaling, softmax, dropout, the weighted sum of values), :func:`value_vectors_chart` (for
``d_out = 2``, value vectors as arrows and the context vector as their weighted sum) and
:func:`weights_bar_chart` (the row of weights as bars). Only numbers and indices go into LaTeX,
never a token: user text in LaTeX could inject commands (``\\href``…). Positions count from 1, as
the book writes ``x^{(2)}``. Notation: ``ω`` score, ``s = ω / √d_k``, ``α`` weight, ``α′`` after
dropout, ``z`` context vector.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .chart import (
    Arrow,
    Bars,
    Chart,
    Label,
    LegendEntry,
    Line,
    Panel,
    Points,
    category_axis,
    grouped_offsets,
    linear_axis,
)
from .colors import series_colors
from .labels import unique_labels
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
PLOT_HEIGHT = 300  # px: the plot area of the value vectors (title, axes and legend on top)
BAR_HEIGHT = 220  # px: the plot area of the weights' bars
LABEL_ROOM = 0.3  # the value vectors' axes margin, × the data's larger span: room for labels
FADED_COLOR = "#b0b0b0"
SUBSCRIPT = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


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

    ``terms`` are the products ``q_m k_m`` (from :func:`attention.one_query.dot_product_terms`),
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
    """``1: Your``, ``2: journey``… (plain text: the chart writes it with ``textContent``)."""
    return [f"{index + 1}: {label}" for index, label in enumerate(unique_labels(list(tokens)))]


def subscript(position: int) -> str:
    """``12`` → ``₁₂`` (v₁₂: a value vector's name in plain text)."""
    return str(position).translate(SUBSCRIPT)


def _point(value: np.ndarray) -> tuple[float, float]:
    return float(value[0]), float(value[1])


def _coordinates(point: np.ndarray) -> str:
    return f"({number(float(point[0]))}, {number(float(point[1]))})"


def _value_arrows(
    values: np.ndarray,
    weights: np.ndarray,
    hidden: np.ndarray,
    names: list[str],
    words: dict,
    colors: dict[str, str],
) -> tuple[list, list[LegendEntry]]:
    """One arrow per value vector (width and opacity grow with its weight), or, above
    ``MAX_ARROWS`` keys, one marker each (larger for a larger weight)."""
    largest = float(weights[~hidden].max()) if (~hidden).any() else 0.0
    shares = np.where(hidden, 0.0, np.clip(weights, 0.0, None) / (largest or 1.0))  # (T,)
    notes = [
        words["masked"] if hide else f"{words['weight']} {number(float(weight))}"
        for weight, hide in zip(weights, hidden, strict=True)
    ]
    hover = [f"{name}\n{_coordinates(values[k])}\n{notes[k]}" for k, name in enumerate(names)]
    if values.shape[0] > MAX_ARROWS:
        points = Points(
            x=tuple(float(v) for v in values[:, 0]),
            y=tuple(float(v) for v in values[:, 1]),
            color=colors["value"],
            sizes=tuple(float(2 + 7 * share) for share in shares),
            opacities=tuple(float(0.25 + 0.75 * share) for share in shares),
            hover=tuple(hover),
        )
        return [points], [LegendEntry(words["value"], colors["value"], "ring")]
    arrows, legend = [], []
    for k in range(values.shape[0]):
        faded = bool(hidden[k]) or float(weights[k]) == 0.0
        color = colors["faded"] if faded else colors["value"]
        arrows.append(
            Arrow(
                start=(0.0, 0.0),
                end=_point(values[k]),
                color=color,
                width=1.0 if faded else 1.5 + 5.0 * float(shares[k]),
                dash="dot" if hidden[k] else "solid",
                opacity=0.45 if faded else 0.35 + 0.65 * float(shares[k]),
                head=9.0,
                hover=hover[k],
            )
        )
        if not hidden[k]:  # masked keys: faded, not in the legend
            legend.append(LegendEntry(f"{names[k]} ({notes[k]})", color, "arrow"))
    return arrows, legend


def _value_labels(
    values: np.ndarray, weights: np.ndarray, hidden: np.ndarray, names: list[str]
) -> list[Label]:
    """The arrows' labels, heaviest visible key first, at most ``MAX_LABELS``: the browser places
    them in this order beside the arrow tips (the first get the nearest places); masked keys get
    no label (hover only)."""
    order = np.argsort(-np.where(hidden, -np.inf, weights), kind="stable")
    return [
        Label(
            at=_point(values[k]),
            text=names[k],
            color=FADED_COLOR if float(weights[k]) == 0.0 else "",
            boxed=True,
            beside=True,
        )
        for k in [int(k) for k in order if not hidden[k]][:MAX_LABELS]
    ]


def _weighted_path(terms: np.ndarray | Sequence[Sequence[float]], hidden: np.ndarray) -> np.ndarray:
    """The weighted vectors ``w_j v_j`` of the visible keys laid tip to tail from the origin."""
    steps = np.asarray(terms, dtype=np.float64)[~hidden]  # (visible, 2)
    return np.vstack([np.zeros((1, 2)), np.cumsum(steps, axis=0)])  # origin, then partial sums


def _path_line(path: np.ndarray, color: str) -> Line:
    x = tuple(float(v) for v in path[:, 0])
    return Line(x=x, y=tuple(float(v) for v in path[:, 1]), color=color, width=1.5, dash="dash")


def value_vectors_chart(
    values: np.ndarray | Sequence[Sequence[float]],
    weights: Sequence[float],
    hidden: Sequence[bool],
    context: Sequence[float],
    tokens: Sequence[str],
    query_pos: int,
    *,
    terms: np.ndarray | Sequence[Sequence[float]] | None = None,
    texts: dict[str, str] | None = None,
    palette: str = "default",
) -> Chart:
    """The value vectors of a 2-D head as arrows, and the context vector as their weighted sum.

    ``weights`` (after dropout) set each arrow's width; ``hidden`` keys are faded and dotted;
    ``terms`` (the weighted vectors ``w_j v_j``), when given, are drawn tip to tail from the origin
    to ``context``; ``query_pos`` counts from 1. One equal-aspect panel: above ``MAX_ARROWS`` keys
    markers replace the arrows, and the heaviest arrows are labelled (the browser places them).
    """
    words = _texts(texts)
    colors = series_colors(palette)
    values = np.asarray(values, dtype=np.float64)  # (T, 2)
    weights_ = np.asarray(weights, dtype=np.float64)  # (T,)
    hidden_ = np.asarray(hidden, dtype=bool)  # (T,)
    context_ = np.asarray(context, dtype=np.float64)  # (2,)
    if values.ndim != 2 or values.shape[1] != 2:
        raise ValueError(f"value_vectors_chart needs d_out = 2, got values {values.shape}")
    names = [
        f"v{subscript(k + 1)} · {label}" for k, label in enumerate(unique_labels(list(tokens)))
    ]
    arrows = values.shape[0] <= MAX_ARROWS
    series, legend = _value_arrows(values, weights_, hidden_, names, words, colors)
    if terms is not None:
        series.append(_path_line(_weighted_path(terms, hidden_), colors["path"]))
        legend.append(LegendEntry(words["path"], colors["path"], "line", "dash"))
    labels = _value_labels(values, weights_, hidden_, names) if arrows else []
    points = np.vstack([values, context_[None, :], np.zeros((1, 2))])  # (T + 2, 2)
    margin = LABEL_ROOM * max(float((points.max(axis=0) - points.min(axis=0)).max()), 1e-6)
    low, high = (points.min(axis=0) - margin).tolist(), (points.max(axis=0) + margin).tolist()
    context_name = f"z⁽{str(query_pos).translate(SUPERSCRIPT)}⁾ · {words['context']}"
    series.append(Arrow((0.0, 0.0), _point(context_), colors["context"], width=3.0, head=0.0))
    series.append(
        Points(
            x=(float(context_[0]),),
            y=(float(context_[1]),),
            color=colors["context"],
            sizes=(9.0,),
            symbol="star",
            hover=(f"{context_name}\n{_coordinates(context_)}",),
        )
    )
    legend.append(LegendEntry(context_name, colors["context"], "star"))
    panel = Panel(
        x=linear_axis(words["x_axis"], low[0], high[0], zero_line=True),
        y=linear_axis(words["y_axis"], low[1], high[1], zero_line=True),
        series=(*series, *labels),
        equal_aspect=True,
    )
    return Chart(
        panels=(panel,), title=words["title"], legend=tuple(legend), height=int(PLOT_HEIGHT)
    )


def weights_bar_chart(
    weights: Sequence[float],
    hidden: Sequence[bool],
    tokens: Sequence[str],
    *,
    dropped_weights: Sequence[float] | None = None,
    texts: dict[str, str] | None = None,
    palette: str = "default",
) -> Chart:
    """Bars of one query's attention weights over the keys; masked keys are written "masked".

    ``weights``: the row's softmax weights ``α``; ``hidden``: True for masked keys (no bar, a
    ``texts["masked"]`` label, ``−∞`` for many keys); ``dropped_weights``: a second bar per key if
    given. Numbers are written above the bars up to ``MAX_LABELLED_BARS`` keys.
    """
    words = _texts(texts)
    colors = series_colors(palette)
    hidden_ = np.asarray(hidden, dtype=bool)
    names = _key_names(tokens)
    rows = [(words["before"], np.asarray(weights, dtype=np.float64), colors["value"])]
    if dropped_weights is not None:
        rows.append((words["after"], np.asarray(dropped_weights, dtype=np.float64), colors["path"]))
    many = len(names) > MAX_LABELLED_BARS  # then: no numbers on bars, "−∞" for masked keys
    width, offsets = grouped_offsets(len(rows))
    series: list = []
    for (name, row, color), offset in zip(rows, offsets, strict=True):
        heights = np.where(hidden_, 0.0, row)  # (T,)
        series.append(
            Bars(
                x=tuple(k + offset for k in range(len(names))),
                y=tuple(float(v) for v in heights),
                width=width,
                colors=(color,) * len(names),
                texts=tuple(
                    number(float(v)) if not many and not hide else ""
                    for v, hide in zip(row, hidden_, strict=True)
                ),
                hover=tuple(
                    f"{words['key']}: {key}\n{name}: {number(float(v))}"
                    for key, v in zip(names, heights, strict=True)
                ),
            )
        )
    mark = "−∞" if many else words["masked"]
    series += [
        Label(
            at=(float(k), 0.0),
            text=mark,
            color="#777777",
            offset=(0.0, -10.0),
            size=11,
            hover=f"{words['key']}: {names[k]}\n{words['masked']}: −∞ → 0",
        )
        for k in range(len(names))
        if hidden_[k]
    ]
    # room above the highest bar for its number (upright on narrow grouped bars)
    top = max(1.0, *(float(np.max(row)) for _, row, _ in rows)) * (1.15 if len(rows) == 1 else 1.3)
    panel = Panel(
        x=category_axis(words["key"], names),
        y=linear_axis(words["weight"], 0.0, top),
        series=tuple(series),
    )
    legend = (
        tuple(LegendEntry(name, color, "bar") for name, _, color in rows)
        if dropped_weights is not None
        else ()
    )
    return Chart(panels=(panel,), title=words["title"], legend=legend, height=BAR_HEIGHT)
