"""The bug gallery, the checker of a learner's class and ``python -m attention check``.

Every gallery bug must be caught and named by the checker; the book's classes and a correct class
written differently must pass; bugs written another way are named by behaviour; a class that
exits, hangs, returns the wrong kind of tensor or changes torch's settings fails in words and
leaves this process as it was (``tests/learner_files/``); a file that patches the checker or
writes a pass into its pipes, or a class returning one buffer it overwrites, is judged from its
numbers; the processes a class starts end with the check; its printing comes back bounded and
harmless; the book's lines each bug and each step name must exist in ``attention/modules.py``.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
import tracemalloc
from pathlib import Path

import pytest
import torch
import torch.nn as nn

from attention import check, modules
from attention.__main__ import main as cli_main
from attention.book_code import find_statement
from attention.bugs import BUGS, compare_bug, run_steps
from attention.check import check_attention
from attention.check import main as check_main
from attention.examples import BOOK_EMBEDDINGS
from attention.modules import CausalAttention, MultiHeadAttention
from attention.randomness import draws_from, private_generator
from attention.steps import STEPS
from attention.trace import AttentionConfig, trace_attention
from attention.validate import AttentionInputError
from tests.cases import subcases
from tests.learner_files import aliasing, families, misbehaving

ROOT = Path(__file__).resolve().parent.parent
LEARNER_FILES = ROOT / "tests" / "learner_files"

LEARNER_FILE = '''
import torch
import torch.nn as nn


class MyCausalAttention(nn.Module):
    """Correct, written another way: layers in another order, the scale on the queries."""

    def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False):
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)

    def forward(self, x):
        num_tokens = x.shape[1]
        queries = self.W_query(x) / self.W_query.out_features ** 0.5
        scores = queries @ self.W_key(x).mT
        future = torch.ones(num_tokens, num_tokens, dtype=torch.bool).triu(1)
        weights = scores.masked_fill(future, float("-inf")).softmax(-1)
        return self.drop(weights) @ self.W_value(x)


class NoMask(MyCausalAttention):
    """Forgets the causal mask: every token sees the whole sequence."""

    def forward(self, x):
        queries = self.W_query(x) / self.W_query.out_features ** 0.5
        return (queries @ self.W_key(x).mT).softmax(-1) @ self.W_value(x)
'''


@pytest.fixture(scope="module")
def learner(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    path = tmp_path_factory.mktemp("learner") / "my_attention.py"
    path.write_text(LEARNER_FILE)
    namespace: dict = {}
    exec(compile(LEARNER_FILE, str(path), "exec"), namespace)  # noqa: S102 (our own test code)
    return path, namespace


@subcases("name", list(BUGS))
def test_every_gallery_bug_is_caught_and_named(name: str) -> None:
    """In this process (``isolated=False``): the gallery's classes are ours and well behaved, and
    the child process is proven by the misbehaving classes below."""
    bug = BUGS[name]
    if bug.cached:  # a full pass cannot show a KV-cache slip: the report says it was not checked
        report = check_attention(bug.book_class, isolated=False)
        assert report.passed and report.unchecked == (name,)
        assert f"Not checked: {name}" in str(report)
        return
    report = check_attention(bug.cls, isolated=False)
    assert not report.passed
    assert report.first_difference is not None
    assert name in report.likely_bugs[:2], report.likely_bugs  # dropout_in_eval has an SDPA twin
    assert report.future_leak == bug.future_leak
    assert name in str(report)


def test_the_books_classes_pass_and_leave_the_global_generator_alone() -> None:
    state = torch.random.get_rng_state()
    for cls in (CausalAttention, MultiHeadAttention):
        report = check_attention(cls)
        assert report.passed, str(report)
        assert report.first_difference is None and report.likely_bugs == ()
        assert "behaves as the book's" in str(report)
    assert torch.equal(torch.random.get_rng_state(), state)


def test_a_correct_class_written_differently_passes(learner: tuple[Path, dict]) -> None:
    report = check_attention(learner[1]["MyCausalAttention"])
    assert report.passed, str(report)
    assert not report.future_leak


def test_a_class_without_mask_is_a_future_leak(learner: tuple[Path, dict]) -> None:
    report = check_attention(learner[1]["NoMask"])
    assert not report.passed
    assert report.future_leak
    assert report.leaked_tokens == (0, 1, 2, 3, 4)  # every earlier token of six sees the last
    assert report.likely_bugs[0] == "mask_not_applied"  # the gallery names the slip first
    assert "Future leak" in str(report)


def test_exceptions_of_the_learners_class_are_reported_not_raised() -> None:
    class RaisesInForward(CausalAttention):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            raise RuntimeError("not written yet")

    class WrongConstructor(nn.Module):
        def __init__(self, d_in: int) -> None:
            super().__init__()

    class OtherNames(nn.Module):
        def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False):  # noqa: ANN001
            super().__init__()
            self.query = nn.Linear(d_in, d_out)

    forward = check_attention(RaisesInForward)
    assert not forward.passed
    assert "forward raised RuntimeError: not written yet" in str(forward.first_difference)
    assert "raised an exception in every case" in str(forward)
    built = check_attention(WrongConstructor)
    assert not built.passed and "could not be built: TypeError" in str(built)
    names = check_attention(OtherNames)
    assert not names.passed and "W_query, W_key, W_value" in str(names)
    with pytest.raises(AttentionInputError, match="class derived from torch.nn.Module"):
        check_attention(CausalAttention(3, 2, 6, 0.0))  # an instance, not the class


def test_cli_exit_codes(learner: tuple[Path, dict], capsys: pytest.CaptureFixture[str]) -> None:
    path = learner[0]
    assert cli_main(["check", f"{path}:MyCausalAttention"]) == 0
    assert "behaves as the book's CausalAttention" in capsys.readouterr().out
    assert cli_main(["check", f"{path}:NoMask", "--timeout", "30"]) == 1
    assert "Future leak" in capsys.readouterr().out
    subclass = path.parent / "subclass.py"  # imports the package, from a fresh interpreter
    subclass.write_text("from attention.modules import CausalAttention as Mine\n")
    assert cli_main(["check", f"{subclass}:Mine"]) == 0
    exits = LEARNER_FILES / "exits_at_import.py"
    assert cli_main(["check", f"{exits}:Attention"]) == 1, "an exit is a failure, never a pass"
    printed = capsys.readouterr()
    assert f"sys.exit(0) was called while importing {exits}" in printed.out
    assert "Traceback" not in printed.err


def test_cli_usage_errors_exit_2_with_a_plain_message(
    learner: tuple[Path, dict], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert check_main([f"{tmp_path / 'missing.py'}:MyCausalAttention"]) == 2
    assert check_main(["my_attention.py"]) == 2  # no class named
    broken = tmp_path / "broken.py"
    broken.write_text("import torch\nclass Mine(torch.nn.Module:\n")
    assert check_main([f"{broken}:Mine"]) == 2
    assert check_main([f"{learner[0]}:NoSuchClass"]) == 2
    assert check_main([f"{LEARNER_FILES / 'noisy.py'}:NotAModule"]) == 2
    errors = capsys.readouterr().err.splitlines()
    missing = str(tmp_path / "missing.py")  # a long path keeps its end, the file's name
    assert (
        errors[0]
        == f"error: No such file: {missing if len(missing) <= 80 else '…' + missing[-79:]}."
    )
    assert errors[0].endswith("/missing.py.")
    assert errors[1].startswith("error: Expected FILE.py:ClassName")
    assert errors[2].startswith(f"error: Importing {broken} raised SyntaxError")
    assert errors[3].endswith("has no NoSuchClass; its classes: MyCausalAttention, NoMask.")
    assert errors[4].endswith(
        "noisy.py:NotAModule is a class but not a torch.nn.Module: the "
        "checker builds it and calls it as a layer, so derive it from nn.Module, as the book's "
        "CausalAttention(nn.Module) does."
    )
    with pytest.raises(SystemExit) as usage:
        check_main([f"{learner[0]}:MyCausalAttention", "--timeout", "soon"])
    assert usage.value.code == 2
    for bad in (0, -1.0, float("nan"), "2", True):
        with pytest.raises(AttentionInputError, match="timeout must be"):
            check_attention(CausalAttention, timeout=bad)


@pytest.mark.parametrize(
    ("name", "timeout", "words"),
    [
        ("ExitsInForward", 60, "sys.exit(0) was called in ExitsInForward.forward"),
        ("ExitsInInit", 60, "ExitsInInit ended with exit code 0 in ExitsInInit.__init__"),
        ("SleepsInForward", 0.5, "SleepsInForward did not finish in 0.5 s"),
        ("ComplexOutput", 60, "the output has dtype torch.complex64, expected torch.float32"),
        ("MetaOutput", 60, "the output is on device 'meta', expected 'cpu'"),
        ("BuiltOnMeta", 60, "its W_query.weight is on device 'meta', expected 'cpu'"),
    ],
)
def test_an_exit_a_hang_or_the_wrong_kind_of_tensor_fails_in_words(
    name: str, timeout: float, words: str
) -> None:
    report = check_attention(getattr(misbehaving, name), timeout=timeout)
    assert not report.passed
    assert words in str(report.first_difference)
    assert words in str(report)


def test_settings_a_class_changes_stay_in_its_process_or_are_put_back() -> None:
    """SetsFloat64 sets float64 as the default, turns gradients off and deterministic algorithms
    on, and seeds the global generator: in a child process (the default) or in this one; so does
    BuiltOnMeta with the meta device."""
    state, threads = torch.random.get_rng_state(), torch.get_num_threads()
    for isolated in (True, False):
        report = check_attention(misbehaving.SetsFloat64, isolated=isolated)
        assert not report.passed
        assert "the output has dtype torch.float64" in str(report.first_difference)
        assert "default dtype torch.float32 -> torch.float64" in str(report)
        assert "gradient mode True -> False" in report.notes[0]
        assert torch.get_default_dtype() == torch.float32
        assert torch.is_grad_enabled() and not torch.are_deterministic_algorithms_enabled()
        assert torch.equal(torch.random.get_rng_state(), state)
        assert torch.get_num_threads() == threads
    on_meta = check_attention(misbehaving.BuiltOnMeta, isolated=False)  # noise, were it compared
    assert "on device 'meta'" in str(on_meta.first_difference)
    assert "default device cpu -> meta" in str(on_meta)
    assert torch.get_default_device() == torch.device("cpu")


@pytest.mark.parametrize(
    ("name", "family", "saw"),
    [
        ("PastHidden", "mask_inverted", "never on earlier ones"),
        ("DropoutOnMaskedScores", "dropout_before_softmax", "NaN appears only in training mode"),
        ("MaskNeverApplied", "mask_not_applied", "a softmax over all tokens, later ones included"),
        ("ScaledByTokens", "wrong_scaling", "instead of √d_k"),  # √T: the probe's T is not d_k
    ],
)
def test_bugs_written_another_way_are_named_by_behaviour(name: str, family: str, saw: str) -> None:
    """families.py writes each bug unlike the gallery (no exact match): the checker names the
    family from what it measured, and says what it saw."""
    cls = getattr(families, name)
    report = check_attention(cls, isolated=False)  # our own classes: no child process needed
    assert not report.passed
    assert family in report.likely_bugs[:2], str(report)
    assert saw in report.findings[0].saw and family in report.findings[0].bugs
    assert saw in str(report) and "What the checker saw" in str(report)


def _harness_children() -> list[int]:
    """Processes this one started that run the checker's harness (read from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        parent = int(stat[stat.rfind(")") + 2 :].split()[1])
        if parent == os.getpid() and b"check_harness.py" in command:
            found.append(int(entry.name))
    return found


def test_ctrl_c_ends_the_check_and_its_process_in_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Ctrl-C (SIGINT to this process) while the class sleeps in its own process."""
    children: list[int] = []
    done = threading.Event()

    def interrupt_once_the_child_runs() -> None:
        # the child runs and the check waits for it (its Ctrl-C handler is in place): a signal
        # sent while the child is still being started would test the start, not the wait
        while not done.is_set() and not (
            children and signal.getsignal(signal.SIGINT) is not signal.default_int_handler
        ):
            if not children:
                children.extend(_harness_children())
            time.sleep(0.05)
        if children:
            os.kill(os.getpid(), signal.SIGINT)

    helper = threading.Thread(target=interrupt_once_the_child_runs)
    helper.start()
    target = f"{LEARNER_FILES / 'misbehaving.py'}:SleepsInForward"
    try:
        assert cli_main(["check", target]) == 130
    finally:
        done.set()
        helper.join()
    err = capsys.readouterr().err
    assert err == "Stopped (Ctrl-C): the check and the process running your class ended.\n"
    assert not Path(f"/proc/{children[0]}").exists(), "the class's process is gone"


def test_each_bug_names_book_lines_that_exist_in_modules_py() -> None:
    """The book's lines are in modules.py; the KV-cache slip's right line is in kv_cache.py."""
    for bug in BUGS.values():
        assert bug.book_file == ("attention/kv_cache.py" if bug.cached else "attention/modules.py")
        file_lines = (Path(modules.__file__).parent.parent / bug.book_file).read_text().splitlines()
        for anchor in bug.book_anchors:
            statement = find_statement(bug.anchored_in, anchor)
            lines = file_lines[statement.first_line - 1 : statement.last_line]
            assert anchor in "\n".join(lines)
        assert bug.diff.startswith("- ") and "\n+ " in bug.diff
        assert set(bug.steps) <= {step.name for step in STEPS}


def test_compare_bug_runs_the_books_numbers_and_the_bugs_own_class() -> None:
    cfg = AttentionConfig(seed=123, dropout=0.5)
    trace = trace_attention(BOOK_EMBEDDINGS, cfg)
    comparison = compare_bug("dropout_unscaled", BOOK_EMBEDDINGS, cfg)
    assert torch.equal(comparison.book["output"], trace.output[0])  # bitwise the book's trace
    kept = comparison.book["dropped_weights"] != 0
    assert torch.allclose(  # kept weights are not doubled
        comparison.buggy["dropped_weights"][kept] * 2, comparison.book["dropped_weights"][kept]
    )
    assert comparison.train_eval["eval"] == 0.0 and comparison.train_eval["train"] > 0.1
    leak = compare_bug("mask_after_softmax", BOOK_EMBEDDINGS, cfg)
    assert leak.future_leak and not bool(torch.allclose(leak.row_sums[:-1], torch.ones(5)))

    # The traced steps of a class that calls SDPA are what SDPA computes (same dropout draws).
    x = BOOK_EMBEDDINGS.unsqueeze(0)
    for name in ("sdpa_bool_mask", "sdpa_dropout_in_eval"):
        with draws_from(private_generator(7)):
            module = BUGS[name].cls(3, 2, 6, 0.5)
        for training in (True, False):
            module.train(training)
            with torch.random.fork_rng(devices=[]):
                torch.manual_seed(5)
                direct = module(x)
            with torch.random.fork_rng(devices=[]):
                torch.manual_seed(5)
                traced = run_steps(module, x, None)["output"]
            assert torch.allclose(direct, traced, atol=1e-6), (name, training)


def test_forged_passes_are_judged_from_the_numbers() -> None:
    """A file is imported only in the checker's fresh interpreter: its imports reach nothing here
    (a helper beside it, a patch of attention.check), and what it writes into the checker's pipes
    is never a pass. forges_the_checker.py patches every part of attention.check that could
    decide, then (second class) writes a passing report and made-up results and exits, or
    (third) a line too deeply nested to parse."""
    decide = check.check_attention, check._judge, vars(check.CheckReport).get("passed")
    helpers = f"{LEARNER_FILES / 'dataclass_attention.py'}:DataclassAttention"
    assert check_attention(helpers).passed  # imports learner_helpers.py from its folder, there
    assert "learner_helpers" not in sys.modules and "dataclass_attention" not in sys.modules
    patched = check_attention(f"{LEARNER_FILES / 'forges_the_checker.py'}:NoMask")
    assert not patched.passed and patched.future_leak
    assert patched.likely_bugs[0] == "mask_not_applied"
    assert (check.check_attention, check._judge, vars(check.CheckReport).get("passed")) == decide
    written = check_attention(f"{LEARNER_FILES / 'forges_the_checker.py'}:WritesAPassAndExits")
    assert not written.passed
    assert "sent the checker what it did not ask for" in str(written.first_difference)
    deep = check_attention(f"{LEARNER_FILES / 'forges_the_checker.py'}:WritesDeepJson")
    assert "sent the checker what it did not ask for" in str(deep.first_difference)


def test_outputs_that_alias_one_buffer_are_copied_at_once() -> None:
    """aliasing.py returns one buffer it overwrites on every call: as a file (fresh interpreter)
    and as a class (forked), its missing mask and its unscaled dropout are named."""
    no_mask = check_attention(f"{LEARNER_FILES / 'aliasing.py'}:BufferedNoMask")
    assert no_mask.future_leak and no_mask.leaked_tokens == (0, 1, 2, 3, 4)
    assert no_mask.likely_bugs[0] == "mask_not_applied"
    unscaled = check_attention(aliasing.BufferedUnscaledDropout)
    assert unscaled.likely_bugs[0] == "dropout_unscaled"
    assert "the outputs are 0.50 times the book's in size" in str(unscaled)


def _running(pid: int) -> bool:
    """``pid`` exists and is not a zombie (a killed orphan may wait for init to collect it)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] != "Z"


@pytest.mark.parametrize(
    ("name", "timeout", "passed"),
    [("StartsProcesses", 60, True), ("StartsProcessesThenHangs", 8, False)],
)
def test_processes_the_class_starts_end_with_the_check(
    name: str, timeout: float, passed: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The class starts ``sleep 40`` and a forked spinner, then returns or hangs: when the check
    returns (or times out) both are gone."""
    pids = tmp_path / "pids"
    monkeypatch.setenv("ATTENTION_TEST_PIDS", str(pids))
    report = check_attention(f"{LEARNER_FILES / 'leaves_processes.py'}:{name}", timeout=timeout)
    assert report.passed is passed
    if not passed:
        assert f"did not finish in {timeout:g} s" in str(report.first_difference)
    started = [int(line) for line in pids.read_text().split()]
    assert len(started) == 2
    assert not [pid for pid in started if _running(pid)]


def test_printing_is_bounded_and_harmless(capsys: pytest.CaptureFixture[str]) -> None:
    """noisy.py prints escape codes (clear screen, a window title, a carriage return, a bidi
    override) and 50 MB: the report shows the first 20,000 bytes, the codes as escapes, and
    this process never holds the rest."""
    tracemalloc.start()
    try:
        assert cli_main(["check", f"{LEARNER_FILES / 'noisy.py'}:Noisy"]) == 0
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 5 * 2**20, peak
    out = capsys.readouterr().out
    assert "behaves as the book's CausalAttention" in out
    assert "\\x1b[2J\\x1b]0;owned\\x07\\rcleared\\u202e" in out
    assert not {"\x1b", "\r", "\x07", "\u202e"} & set(out)
    assert len(out) < 25_000 and "more bytes of printing not shown" in out
