"""Train it: a tiny GPT built from the book's ``MultiHeadAttention`` learns a task while you watch.

The loss curves grow live; then the page shows accuracy, the attention maps of every layer and
head, the pattern scores and one trained head in the ten steps (the same trace code as every
page). A second button trains with and without attention dropout on the same data and seed.
Trainings run in the server's pool of worker processes (``ui/jobs.py``); this page only submits,
polls, cancels and draws what the worker reports.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from typing import Any

import streamlit as st
import torch

from attention.examples import unique_labels
from attention.head_trace import one_head
from attention.trace import trace_module
from attention.training import DropoutComparison, TrainConfig
from attention.training_export import (
    RETRAIN_SCRIPT_NAME,
    WEIGHTS_FILE_NAME,
    retrain_script,
    weights_bytes,
    weights_fingerprint,
)
from attention.validate import AttentionInputError
from ui.chart import draw_chart
from ui.frame import page
from ui.i18n import t
from ui.input_errors import explain
from ui.jobs import (
    BUDGET,
    CRASHED,
    DROPPED,
    FAILED,
    MEMORY,
    TIME,
    Job,
    JobFailure,
    QueueFull,
)
from ui.run_slots import step_aside
from ui.sessions import session_token, when_session_away, when_session_ends
from ui.show import figure_words, show_matrix
from ui.step_view import StepDrawing, show_steps
from ui.table import message
from ui.train_jobs import QUEUE, CompareKey, TrainOutcome
from ui.train_settings import (
    config_problem,
    current_values,
    needs_upload,
    render_controls,
    train_config,
    uploaded_text,
)
from ui.view import View
from viz.markdown_text import escape_markdown
from viz.training import (
    attention_map_views,
    dropout_curves_chart,
    loss_curves_chart,
    pattern_scores_chart,
)
from viz.vocabulary import format_number, format_short

JOB_KEY = "train_job"  # the Job this session watches (training)
OUTCOME_KEY = "train_outcome"  # the TrainOutcome shown
COMPARE_JOB_KEY = "train_compare_job"
COMPARE_KEY = "train_compare"  # the DropoutComparison shown
CACHED_SUFFIX = "_cached"  # train_outcome_cached: True when the result came from the cache
REASON_SUFFIX = "_stop_reason"  # train_outcome_stop_reason: why the shown run stopped early
NOTICE_KEY = "train_notice"  # (message key, values) to show once: stopped, left, queue full
ERROR_KEY = "train_error"  # why the last training failed (shown once)
POLL_S = 0.25  # how often a watching run redraws the status line (a rerun can stop it then)
MAX_MAPS = 4  # layer × head maps drawn at once (each before and after training); above, a layer
LITTLE_GAP = 0.05  # a validation − training loss gap below this is "hardly overfits"
STEP_NOTES = {"embeddings": "train.step.embeddings.body", "weights": "train.step.weights.body"}
# attention_layer_inputs() hooks the shared (cached) model for one forward pass: one at a time
_INSPECT_LOCK = threading.Lock()

when_session_away(QUEUE.leave_all)  # a closed tab leaves its jobs: queued or running, they end
when_session_ends(QUEUE.leave_all)  # (a session may end before it counts as away)


# --- the requests ----------------------------------------------------------------------------


def _config_now() -> TrainConfig | None:
    """The current settings as a resolved config, or None when they cannot train."""
    values = current_values()
    if config_problem(values) is not None or needs_upload():
        return None
    upload = uploaded_text()
    try:
        return train_config(values, upload[1] if upload else None)
    except AttentionInputError:
        return None


def _submit(job_key: str, key: Any, slot: str) -> None:
    """Ask the queue for ``key`` in this session's ``slot`` (the slot's old job is left)."""
    running: Job | None = st.session_state.get(job_key)
    if running is not None and running.key == key and not running.done:
        return  # this very job is on its way already
    try:
        st.session_state[job_key] = QUEUE.submit(key, session_token(), slot=slot)
    except QueueFull as full:
        st.session_state[NOTICE_KEY] = ("train.queue.full", {"waiting": full.waiting})
        return
    st.session_state.pop(NOTICE_KEY, None)


def _start_training() -> None:
    cfg = _config_now()
    if cfg is not None:
        _submit(JOB_KEY, cfg, "train")


def _start_comparison() -> None:
    cfg = _config_now()
    if cfg is not None and cfg.dropout > 0:
        _submit(COMPARE_JOB_KEY, CompareKey(cfg, cfg.dropout), "compare")


def _leave(job_key: str) -> None:
    """Stop watching a job: if nobody else wants it, it stops (and its partial result shows)."""
    job: Job | None = st.session_state.get(job_key)
    if job is None or job.done:
        return
    others = job.leave(session_token())
    if others == 0:
        st.session_state[NOTICE_KEY] = ("train.stop.stopping", {})
    else:  # other sessions want the same job: it goes on for them
        st.session_state.pop(job_key)
        st.session_state[NOTICE_KEY] = ("train.stop.shared", {"others": others})


def _stop() -> None:
    _leave(JOB_KEY)
    _leave(COMPARE_JOB_KEY)


def _watching() -> bool:
    return any(
        st.session_state.get(key) is not None and not st.session_state[key].done
        for key in (JOB_KEY, COMPARE_JOB_KEY)
    )


# --- watching a job --------------------------------------------------------------------------


def _status_text(snapshot: Any, steps: int) -> str:
    seconds = round(snapshot.seconds)
    if snapshot.stopping:
        if snapshot.stop_reason == BUDGET:
            return t("train.progress.out_of_time")
        return t("train.progress.stopping")
    if snapshot.state == "queued":
        return t(
            "train.queue.waiting", place=snapshot.place, running=snapshot.running, waited=seconds
        )
    done = _last_step(snapshot.progress)
    return t("train.progress.running", step=done, steps=steps, seconds=seconds)


def _last_step(progress: tuple[Any, ...]) -> int:
    if not progress:
        return 0
    last = progress[-1]
    record = last[1] if isinstance(last, tuple) else last
    return int(record["step"])


def watch(job: Job, steps: int, draw_curves: Any, label: str) -> None:
    """Redraw the job's status, progress bar and curves until it is done.

    A click stops this run at its next redraw (and reruns), so Stop answers while a job runs.
    """
    step_aside()  # this run mostly waits now: other sessions' runs go first
    status, bar, curves = st.empty(), st.empty(), st.empty()
    shown = -1
    while True:
        snapshot = job.snapshot()
        status.caption(f"{label} · {_status_text(snapshot, steps)}")
        total = 2 * steps if isinstance(job.key, CompareKey) else steps
        done = _last_step(snapshot.progress)
        if isinstance(job.key, CompareKey) and any(p[0] == "with" for p in snapshot.progress):
            done += steps
        bar.progress(min(1.0, done / max(1, total)))
        if len(snapshot.progress) != shown:
            shown = len(snapshot.progress)
            with curves.container():
                draw_curves(snapshot.progress)
        if job.wait(POLL_S):
            break
    status.empty()
    bar.empty()
    curves.empty()


def _curve_names() -> dict[str, str]:
    return {
        "train_name": t("train.curve.train"),
        "val_name": t("train.curve.val"),
        "step_title": t("train.axis.step"),
        "loss_title": t("train.axis.loss"),
    }


def _live_curves(steps: int, accuracy: bool) -> Any:
    def draw(progress: tuple[Any, ...]) -> None:
        chart = loss_curves_chart(
            list(progress),
            total_steps=steps,
            accuracy_name=t("train.curve.accuracy") if accuracy else None,
            **_curve_names(),
        )
        draw_chart(chart, key=f"train_live_{len(progress)}")  # a new element per redraw

    return draw


def _compare_names() -> dict[str, Any]:
    return {
        "names": {
            "train_without": t("train.compare.curve.train_without"),
            "val_without": t("train.compare.curve.val_without"),
            "train_with": t("train.compare.curve.train_with"),
            "val_with": t("train.compare.curve.val_with"),
        },
        "step_title": t("train.axis.step"),
        "loss_title": t("train.axis.loss"),
    }


def _live_comparison(steps: int) -> Any:
    def draw(progress: tuple[Any, ...]) -> None:
        without = [record for run, record in progress if run == "without"]
        with_dropout = [record for run, record in progress if run == "with"]
        chart = dropout_curves_chart(without, with_dropout, total_steps=steps, **_compare_names())
        draw_chart(chart, key=f"train_live_compare_{len(progress)}")  # a new element per redraw

    return draw


def finish(job_key: str, result_key: str) -> None:
    """After a watched job ended: keep its outcome (or why there is none), then rerun.

    The rerun redraws the buttons drawn while it ran (Stop enabled) from the kept outcome.
    """
    job: Job = st.session_state.pop(job_key)
    if job.state == FAILED:
        st.session_state[ERROR_KEY] = job.error  # shown (in the language of that moment) below
    elif job.state == DROPPED:
        st.session_state[NOTICE_KEY] = ("train.stop.dropped", {})
    else:
        st.session_state[result_key] = job.outcome
        st.session_state[result_key + CACHED_SUFFIX] = job.from_cache
        st.session_state[result_key + REASON_SUFFIX] = job.stop_reason
    st.rerun()


def show_cached(result_key: str, key: Any) -> None:
    """What the server already has for these settings (a link the class trained): shown at once."""
    cached = QUEUE.cached(key)
    if cached is not None and st.session_state.get(result_key) is not cached:
        st.session_state[result_key] = cached
        st.session_state[result_key + CACHED_SUFFIX] = True
        st.session_state[result_key + REASON_SUFFIX] = None


def _failure_text(failure: JobFailure) -> str:
    """Why a job gave nothing, in plain words (never a traceback)."""
    if failure.kind == MEMORY:
        return t("train.failed.memory", memory=f"{QUEUE.budget.memory_mb:g}")
    if failure.kind == CRASHED:
        return t("train.failed.crashed", code=failure.detail)
    if failure.kind == TIME:
        return t("train.failed.time", **_budget_values())
    return t("error.attention", detail=escape_markdown(failure.detail))


def _budget_values() -> dict[str, Any]:
    """The budget the queue stops each run at: the one it holds, which a test may lower."""
    budget = QUEUE.budget
    return {"cpu": f"{budget.cpu_seconds:g}", "wall": f"{budget.wall_seconds:g}"}


# --- what a trained model shows --------------------------------------------------------------


def _settings_line(cfg: TrainConfig) -> str:
    return t(
        "train.settings",
        task=t(f"train.task.{cfg.task}"),
        layers=cfg.layers,
        heads=cfg.heads,
        width=cfg.width,
        dropout=format_short(cfg.dropout),
        steps=cfg.steps,
        seed=cfg.seed,
    )


def show_summary(outcome: TrainOutcome, current: TrainConfig | None) -> None:
    result = outcome.result
    cfg = outcome.config
    st.subheader(t("train.results.title"), anchor="results")
    st.markdown(_settings_line(cfg))
    if current != cfg:  # other settings now (or settings that cannot train)
        st.info(t("train.results.other_settings"), icon="ℹ️")
    last = result.history[-1]
    columns = st.columns(4)
    accuracy_key = "train.metric.char_accuracy" if cfg.task == "text" else "train.metric.accuracy"
    columns[0].metric(
        t(accuracy_key),
        f"{outcome.accuracy:.1%}",
        help=t("train.metric.accuracy_help", n=1000),
    )
    columns[1].metric(t("train.metric.train_loss"), f"{last['train_loss']:.4f}")
    columns[2].metric(t("train.metric.val_loss"), f"{last['val_loss']:.4f}")
    columns[3].metric(
        t("train.metric.time"),
        t("train.metric.seconds", seconds=f"{result.wall_seconds:.1f}"),
        help=t("train.metric.time_help", threads=outcome.threads),
    )
    if st.session_state.get(OUTCOME_KEY + CACHED_SUFFIX):
        st.caption(t("train.results.cached"))
    if result.stopped_early:
        out_of_time = st.session_state.get(OUTCOME_KEY + REASON_SUFFIX) == BUDGET
        key = "train.results.out_of_time" if out_of_time else "train.results.stopped"
        st.warning(t(key, step=result.steps_done, steps=cfg.steps, **_budget_values()), icon="⏹️")
    st.caption(t("train.results.accuracy_note", n=1000))
    chart = loss_curves_chart(
        result.history,
        total_steps=cfg.steps,
        accuracy_name=t("train.curve.accuracy") if result.task.has_accuracy else None,
        **_curve_names(),
    )
    draw_chart(chart, key="train_fig_curves")


def show_maps(outcome: TrainOutcome, palette: str) -> None:
    """Every layer × head map, each before training beside after, two maps a row (stacked on a
    phone); above :data:`MAX_MAPS` maps, one layer at a time."""
    cfg = outcome.config
    st.subheader(t("train.maps.title"), anchor="maps")
    joiner = "" if cfg.task == "text" else " "  # characters read as text; tokens one by one
    sequence = escape_markdown(joiner.join(outcome.labels))  # an uploaded text is user text
    st.markdown(t("train.maps.body", tokens=sequence))
    layers, heads = outcome.attention.shape[:2]
    first, last = 0, layers
    if layers * heads > MAX_MAPS:
        first = st.columns([1, 3])[0].selectbox(  # a short box, as the trained head's
            t("train.maps.layer"),
            range(layers),
            format_func=lambda layer: t("train.layer", number=layer + 1),
            key="train_maps_layer",
            filter_mode=None,  # a short list: picked, not typed
        )
        last = first + 1
    words = figure_words()

    def views(attention: torch.Tensor, stage: str) -> Any:  # [layer][head]: MatrixView
        return attention_map_views(
            attention[first:last],
            outcome.labels,
            words,
            layer_names=[t("train.layer", number=n + 1) for n in range(first, last)],
            head_names=[t("train.head", number=n + 1) for n in range(heads)],
            palette=palette,
            stage=stage,
        )

    untrained = outcome.untrained_attention
    stages = [] if untrained is None else [(untrained, "untrained", "_untrained")]
    stages.append((outcome.attention, "trained", ""))  # before training beside after
    grids = [(views(weights, t(f"train.maps.{name}")), suffix) for weights, name, suffix in stages]
    maps = [
        (grid[layer][head], f"train_fig_maps_{first + layer}_{head}{suffix}")
        for layer in range(last - first)
        for head in range(heads)
        for grid, suffix in grids
    ]
    for start in range(0, len(maps), 2):
        for place, (view, key) in zip(st.columns(2), maps[start : start + 2], strict=False):
            with place:
                show_matrix(view, words, key=key)
    if untrained is not None:
        st.caption(t("train.maps.compare"))
    st.caption(t(f"train.maps.what.{cfg.task}"))
    if any("·" in label for label in unique_labels(list(outcome.labels))):
        st.caption(t("train.maps.repeated"))


def show_scores(outcome: TrainOutcome) -> None:
    st.subheader(t("train.scores.title"), anchor="scores")
    if not outcome.scores:
        st.info(t(f"train.scores.none.{outcome.config.task}"), icon="ℹ️")
        return
    layers, heads = next(iter(outcome.scores.values())).shape
    for name in outcome.scores:
        st.markdown(t(f"train.scores.{name}"))
    head_names = [
        t("train.head_short", layer=layer + 1, head=head + 1)
        for layer in range(layers)
        for head in range(heads)
    ]
    chart = pattern_scores_chart(
        outcome.scores,
        score_names={name: t(f"train.scores.name.{name}") for name in outcome.scores},
        head_names=head_names,
        value_title=t("train.scores.axis"),
    )
    draw_chart(chart, key="train_fig_scores")
    best = []
    for name, values in outcome.scores.items():
        index = int(values.reshape(-1).argmax())
        best.append(
            t(
                "train.scores.best",
                score=t(f"train.scores.name.{name}"),
                head=head_names[index],
                value=f"{float(values.reshape(-1)[index]):.2f}",
            )
        )
    st.caption(" ".join(best) + " " + t("train.scores.chance", tokens=outcome.tokens.numel()))


def show_head_steps(outcome: TrainOutcome, palette: str) -> None:
    cfg = outcome.config
    st.subheader(t("train.head.title"), anchor="trained-head")
    st.markdown(t("train.head.body"))
    layer_col, head_col, _ = st.columns([1, 1, 3])
    layer = layer_col.selectbox(
        t("train.head.layer"),
        range(cfg.layers),
        format_func=lambda n: t("train.layer", number=n + 1),
        key="train_head_layer",
        filter_mode=None,  # a short list: picked, not typed
    )
    head = head_col.selectbox(
        t("train.head.head"),
        range(cfg.heads),
        format_func=lambda n: t("train.head", number=n + 1),
        key="train_head_head",
        filter_mode=None,
    )
    if layer >= cfg.layers or head >= cfg.heads:  # a choice left over from a larger model
        layer, head = 0, 0
    with _INSPECT_LOCK:
        inputs, module = outcome.result.attention_layer_inputs(outcome.tokens, layer)
        trace = one_head(trace_module(module, inputs), head)
    st.caption(
        t(
            "train.head.shapes",
            tokens=trace.num_tokens,
            width=cfg.width,
            head_dim=int(trace.queries.shape[-1]),
        )
    )
    drawing = StepDrawing(
        trace,
        list(outcome.labels),
        palette,
        key_prefix="train_step",
        notes=STEP_NOTES,
        seeded_weights=False,
    )
    show_steps(drawing, key="train_step_tabs")


def show_export(outcome: TrainOutcome) -> None:
    result = outcome.result
    st.subheader(t("train.export.title"), anchor="export")
    st.markdown(t("train.export.body"))
    weights_col, script_col = st.columns(2)
    with weights_col:
        st.download_button(
            t("train.export.weights"),
            data=lambda: weights_bytes(result.model),
            file_name=WEIGHTS_FILE_NAME,
            mime="application/octet-stream",
            key="train_export_weights",
            on_click="ignore",
            icon=":material/download:",
            help=t("train.export.weights_help"),
        )
    with script_col:
        st.download_button(
            t("train.export.script"),
            data=lambda: retrain_script(
                result.config,
                weights_fingerprint(result.model.state_dict()),
                threads=outcome.threads,
                stopped_at=result.steps_done if result.stopped_early else None,
            ),
            file_name=RETRAIN_SCRIPT_NAME,
            mime="text/x-python",
            key="train_export_script",
            on_click="ignore",
            icon=":material/code:",
            help=t("train.export.script_help", file=RETRAIN_SCRIPT_NAME),
        )
    st.code(f"python {RETRAIN_SCRIPT_NAME} {WEIGHTS_FILE_NAME}", language="bash")


# --- with and without dropout ----------------------------------------------------------------


def _signed(value: float) -> str:
    """A change with its sign, in the app's rounding: ``+0.1234``, ``-0.5000``."""
    text = format_number(value)
    return text if text.startswith("-") else "+" + text


def comparison_sentence(comparison: DropoutComparison) -> str:
    """What the four curves measured, in one or two sentences chosen by the numbers."""
    values = {
        "p": format_short(comparison.dropout),
        "gap_with": format_number(comparison.gap_with),
        "gap_without": format_number(comparison.gap_without),
        "val_with": format_number(comparison.val_loss_with[-1]),
        "val_without": format_number(comparison.val_loss_without[-1]),
    }
    if not comparison.gap_narrowed:
        key = "train.compare.not_narrowed"
    elif comparison.val_loss_with[-1] < comparison.val_loss_without[-1]:
        key = "train.compare.narrowed_better"
    else:
        key = "train.compare.narrowed_not_better"
    sentence = t(key, **values)
    if comparison.gap_without < LITTLE_GAP:
        sentence += " " + t("train.compare.little_gap", gap_without=values["gap_without"])
    return sentence


def show_comparison(comparison: DropoutComparison) -> None:
    stopped = not comparison.complete  # stopped in the first run (no second) or the second
    cfg = replace(comparison.without.config, dropout=comparison.dropout)
    st.markdown(_settings_line(cfg))
    with_dropout = comparison.with_dropout
    chart = dropout_curves_chart(
        comparison.without.history,
        [] if with_dropout is None else with_dropout.history,
        total_steps=cfg.steps,
        **_compare_names(),
    )
    draw_chart(chart, key="train_fig_compare")
    if stopped:
        out_of_time = st.session_state.get(COMPARE_KEY + REASON_SUFFIX) == BUDGET
        key = "train.compare.out_of_time" if out_of_time else "train.compare.stopped"
        st.warning(t(key, **_budget_values()), icon="⏹️")
        return
    without_col, with_col = st.columns(2)
    without_col.metric(t("train.compare.gap_without"), format_number(comparison.gap_without))
    with_col.metric(
        t("train.compare.gap_with", p=format_short(comparison.dropout)),
        format_number(comparison.gap_with),
        delta=_signed(comparison.gap_with - comparison.gap_without),
        delta_color="inverse",
    )
    st.markdown(comparison_sentence(comparison))
    st.caption(t("train.compare.gap_note"))


def compare_section(cfg: TrainConfig | None) -> None:
    st.subheader(t("train.compare.title"), anchor="dropout")
    st.markdown(t("train.compare.intro"))
    can_compare = cfg is not None and cfg.dropout > 0
    st.button(
        t("train.compare.button", p=format_short(cfg.dropout))
        if can_compare
        else t("train.compare.button_idle"),
        key="train_compare_run",
        on_click=_start_comparison,
        disabled=not can_compare or _watching(),
        icon=":material/compare_arrows:",
    )
    if cfg is not None and cfg.dropout <= 0:
        st.caption(t("train.compare.needs_dropout"))
    job: Job | None = st.session_state.get(COMPARE_JOB_KEY)
    if job is not None:
        watch(
            job,
            job.key.config.steps,
            _live_comparison(job.key.config.steps),
            t("train.compare.label"),
        )
        finish(COMPARE_JOB_KEY, COMPARE_KEY)
    elif cfg is not None and cfg.dropout > 0:
        show_cached(COMPARE_KEY, CompareKey(cfg, cfg.dropout))
    comparison = st.session_state.get(COMPARE_KEY)
    if comparison is not None:
        show_comparison(comparison)


# --- the page --------------------------------------------------------------------------------


@page
def render(view: View) -> None:
    QUEUE.warm()  # the workers' forkserver, started while the reader chooses settings
    st.title(t("page.train.title"))
    st.markdown(t("train.intro"))
    with st.container(border=True):
        render_controls()
    values = current_values()
    combination = config_problem(values)
    if combination is not None:
        st.error(message(combination))
    cfg = None
    if combination is None:
        upload = uploaded_text()
        try:
            cfg = train_config(values, upload[1] if upload else None)
        except AttentionInputError as error:
            st.error(t("error.attention", detail=escape_markdown(explain(error))))
    if needs_upload():
        st.info(t("train.upload.needed"), icon="📄")
        cfg = None

    train_col, stop_col, share_col = st.columns([1, 1, 4], vertical_alignment="center")
    train_col.button(
        t("train.button.train"),
        type="primary",
        key="train_run",
        on_click=_start_training,
        disabled=cfg is None,
        icon=":material/play_arrow:",
        width="stretch",
    )
    stop_col.button(
        t("train.button.stop"),
        key="train_stop",
        on_click=_stop,
        disabled=not _watching(),
        icon=":material/stop:",
        width="stretch",
    )
    share_col.caption(t("train.share.upload" if uploaded_text() else "train.share"))
    notice = st.session_state.pop(NOTICE_KEY, None)
    if notice:
        notice_key, values = notice
        st.info(t(notice_key, **values), icon="⏹️")
    failure = st.session_state.pop(ERROR_KEY, None)
    if failure is not None:
        st.error(_failure_text(failure))

    job: Job | None = st.session_state.get(JOB_KEY)
    if job is not None:
        steps = job.key.steps
        watch(job, steps, _live_curves(steps, job.key.task != "text"), t("train.progress.label"))
        finish(JOB_KEY, OUTCOME_KEY)
    elif cfg is not None:
        show_cached(OUTCOME_KEY, cfg)

    outcome: TrainOutcome | None = st.session_state.get(OUTCOME_KEY)
    if outcome is None:
        st.info(t("train.results.none"), icon="ℹ️")
    else:
        palette = view.palette
        show_summary(outcome, cfg)
        show_maps(outcome, palette)
        show_scores(outcome)
        show_head_steps(outcome, palette)
        show_export(outcome)
    st.divider()
    compare_section(cfg)
