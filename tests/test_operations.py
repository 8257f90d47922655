"""What an operator relies on: the install path, the documented limits, the log lines.

The metrics endpoint and the replicas' logs are checked through ``deploy/serve.sh`` in
``tests/e2e/test_deploy.py``.
"""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import sys

import pytest

from tests.apptest_support import REPO_ROOT, run_page
from tests.e2e.server import free_port
from ui import ops_log
from ui.limits import LIMITS, LimitError, check_all

CPU_INDEX = "--extra-index-url https://download.pytorch.org/whl/cpu"
# Where the product reads its settings: the app, its pages and modules, and the deploy scripts.
PRODUCT_CODE = ("app.py", "lab.py", "attention", "ui", "pages", "viz", "deploy")
VARIABLE = re.compile(r"ATTENTION_LAB_[A-Z_]*[A-Z]")


def _readme_commands() -> list[str]:
    """The first bash block of README's "Two commands" section, one line: the part that makes and
    enters the virtual environment, and the install that follows it."""
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Two commands", 1)[1]
    block = section.split("```bash\n", 1)[1].split("```", 1)[0]
    [line] = [line.strip() for line in block.splitlines() if line.strip()]
    first, install = line.split(" && pip install", 1)
    return [first, "pip install" + install]


def test_readme_commands_make_a_venv_and_install_the_cpu_wheel(tmp_path) -> None:
    """README's first line really makes and enters a virtual environment; its install line takes
    requirements-cpu.txt, which adds PyTorch's CPU index to requirements.txt (and so does the
    Dockerfile, by default); requirements.txt itself names no index (CI installs it here)."""
    first, install = _readme_commands()
    assert first.startswith("python3 -m venv .venv") and ". .venv/bin/activate" in first, first
    assert install.startswith("pip install -r requirements-cpu.txt"), install
    done = subprocess.run(
        ["bash", "-c", f"{first} && python -c 'import sys; print(sys.prefix, sys.base_prefix)'"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    prefix, base = done.stdout.split()
    assert prefix == str(tmp_path / ".venv") and prefix != base, done.stdout

    cpu = (REPO_ROOT / "requirements-cpu.txt").read_text(encoding="utf-8").splitlines()
    assert CPU_INDEX in cpu and "-r requirements.txt" in cpu, cpu
    runtime = (REPO_ROOT / "requirements.txt").read_text(encoding="utf-8")
    assert "index-url" not in runtime and "torch==" in runtime
    dockerfile = (REPO_ROOT / "deploy" / "Dockerfile").read_text(encoding="utf-8")
    assert "ARG REQUIREMENTS=requirements-cpu.txt" in dockerfile
    assert 'pip install --no-cache-dir -r "$REQUIREMENTS"' in dockerfile
    assert re.search(r"^HEALTHCHECK .*--timeout=\d+s", dockerfile, re.M), "no HEALTHCHECK"
    assert re.search(r"useradd .*--create-home", dockerfile) and "\nUSER lab\n" in dockerfile


def test_every_attention_lab_variable_is_in_deploy_readme() -> None:
    """Every ``ATTENTION_LAB_*`` the product reads is in deploy/README.md's table, and so is every
    declared limit (a variable another change adds without documenting it fails here)."""
    found: dict[str, str] = {}
    for top in PRODUCT_CODE:
        root = REPO_ROOT / top
        files = [root] if root.is_file() else [*root.rglob("*.py"), *root.rglob("*.sh")]
        for path in files:
            for name in VARIABLE.findall(path.read_text(encoding="utf-8")):
                found.setdefault(name, str(path.relative_to(REPO_ROOT)))
    assert set(LIMITS) <= set(found)
    documented = set(
        re.findall(
            r"^\| `(ATTENTION_LAB_[A-Z_]+)`",
            (REPO_ROOT / "deploy" / "README.md").read_text(encoding="utf-8"),
            re.M,
        )
    )
    missing = {name: where for name, where in found.items() if name not in documented}
    assert not missing, f"read by the code but not in deploy/README.md's table: {missing}"


def test_limits_name_each_bad_value_and_its_range(monkeypatch) -> None:
    monkeypatch.setenv("ATTENTION_LAB_MAX_TOKENS", "5000")
    monkeypatch.setenv("ATTENTION_LAB_TRACE_CACHE_ENTRIES", "many")
    with pytest.raises(LimitError) as error:
        check_all()
    text = str(error.value)
    assert "ATTENTION_LAB_MAX_TOKENS=5000 is outside 6 … 4096" in text
    assert "ATTENTION_LAB_TRACE_CACHE_ENTRIES='many' is not a whole number" in text
    monkeypatch.setenv("ATTENTION_LAB_MAX_TOKENS", " 512 ")
    monkeypatch.delenv("ATTENTION_LAB_TRACE_CACHE_ENTRIES")
    assert check_all()["ATTENTION_LAB_MAX_TOKENS"] == 512


def test_a_bad_limit_stops_the_server_with_one_clear_message(tmp_path) -> None:
    """``streamlit run app.py`` with a bad limit exits by itself, code 2, naming the variable, its
    value and its range, without a traceback; it never serves."""
    env = {**os.environ, "ATTENTION_LAB_LARGE_TRACE_CACHE_ENTRIES": "0"}
    done = subprocess.run(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(free_port())]
        + ["--server.headless", "true", "--server.fileWatcherType", "none"],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,  # a hang guard: it exits in seconds
    )
    output = done.stdout + done.stderr
    assert done.returncode == 2, output
    assert (
        "Attention Lab cannot start: ATTENTION_LAB_LARGE_TRACE_CACHE_ENTRIES=0 is outside 1 … 64"
        in done.stderr
    ), output
    assert "Traceback" not in output and "Imported the pages" not in output, output


LOWERED_LIMIT_RUN = """
import json
from tests.apptest_support import run_page
from pages.fast_path import MEASURED_SIZES
at = run_page("step", {"text": " ".join(["word"] * 9)})
print(json.dumps({
    "exception": [str(e.value) for e in at.exception],
    "warnings": [w.value for w in at.warning],
    "tokens": len(at.session_state["table"].tokens),
    "random_max": at.number_input(key="random_tokens_count").max,
    "measured": list(MEASURED_SIZES),
}))
"""


def test_a_lowered_token_limit_is_the_one_the_app_enforces() -> None:
    """With ATTENTION_LAB_MAX_TOKENS=8 (a fresh process: the limit is read at import), a 9-word
    link is refused with the operator's limit named, the book's table stays, the random-tokens
    control and the fast path's measurement stop at 8 tokens, and nothing raises."""
    done = subprocess.run(
        [sys.executable, "-c", LOWERED_LIMIT_RUN],
        cwd=REPO_ROOT,
        env={**os.environ, "ATTENTION_LAB_MAX_TOKENS": "8"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["exception"] == [], result
    assert any("at most 8 tokens" in warning for warning in result["warnings"]), result
    assert result["tokens"] == 6 and result["random_max"] == 8, result
    assert result["measured"] == [6], result


class _Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@pytest.fixture
def event_lines():
    handler = _Lines()
    logger = logging.getLogger("attention_lab.events")
    logger.addHandler(handler)
    try:
        yield handler.lines
    finally:
        logger.removeHandler(handler)


def test_a_settings_error_shows_the_reference_that_its_one_log_line_carries(event_lines) -> None:
    """A bad link value: the warning the user sees ends with a reference; the operator's log has
    one line with the same reference and the problem's key (not the typed value), once per
    session however often the page reruns; the session's opening is logged too."""
    at = run_page("step", {"dropout": "lots"})
    shown = " ".join(w.value for w in at.warning)
    refs = re.findall(r"Reference `([0-9a-f]{6})`", shown)
    assert len(refs) == 1, shown
    at.run()
    errors = [line for line in event_lines if line.startswith("event=settings_error")]
    assert len(errors) == 1, event_lines
    assert re.fullmatch(
        rf"event=settings_error session=[0-9a-f]{{8}} ref={refs[0]} problem=url\.\S+", errors[0]
    ), errors
    assert "lots" not in errors[0]
    session = errors[0].split()[1]
    assert f"event=session_opened {session}" in event_lines, event_lines


def test_json_log_lines_are_one_object_each(monkeypatch) -> None:
    monkeypatch.setenv("ATTENTION_LAB_LOG_FORMAT", "json")
    before = ops_log.counts().get("session_closed", 0)
    line = ops_log.event("session_closed", session="3f2a9c01", reason="two words")
    assert "\n" not in line
    record = json.loads(line)
    assert record["event"] == "session_closed" and record["reason"] == "two words"
    assert ops_log.counts()["session_closed"] == before + 1
