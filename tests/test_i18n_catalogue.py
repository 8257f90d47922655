"""English and Chinese everywhere: the catalogue is complete, and pages show no untranslated text.

Static checks of the page sources (``pages/*.py``), reported as ``file:line`` so a failure says
exactly where to look:

- no ``st.title("…")``, ``st.markdown("…")``, ``st.button("…")``… with a literal text: every
  user-visible string comes from ``ui.i18n.t`` (``st.latex``/``st.code`` may hold formulas/code);
- every ``t("key")`` names a key that exists;
- every figure builder that takes a ``palette`` gets one (the colour-blind palette must reach
  every heatmap).
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import pkgutil
import re
import string
from collections.abc import Iterator
from pathlib import Path

import viz
from tests.cases import subcases
from ui.i18n import CATALOGUE, LANGUAGES, t

REPO_ROOT = Path(__file__).resolve().parent.parent
PAGE_FILES = sorted((REPO_ROOT / "pages").glob("*.py"))
UI_FILES = sorted((REPO_ROOT / "ui").rglob("*.py"))

CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef]")
# A Chinese text may have no Chinese character only if it is a formula or symbol: after removing
# placeholders, every Latin word is a single letter (a variable: p, A, d_k) or one of these
# technical terms that Chinese texts keep as they are.
FORMULA_TERMS = {"softmax", "dropout", "exp", "log", "max", "min", "sqrt"}
NO_CJK_KEYS: set[str] = set()  # add a key here (with a reason) if its Chinese text is code


def is_formula(text: str) -> bool:
    """True for ``"B − A"``, ``"s = ω/√dₖ"``, ``"exp(s − m)"``, ``"9 · Dropout"``, ``"{a} / {b}"``."""
    without_fields = re.sub(r"\{[^{}]*\}", "", text)
    words = re.findall(r"[A-Za-z]+", without_fields)
    return all(len(word) == 1 or word.lower() in FORMULA_TERMS for word in words)


STREAMLIT_TEXT_CALLS = {
    "title",
    "header",
    "subheader",
    "markdown",
    "caption",
    "write",
    "info",
    "warning",
    "error",
    "success",
    "button",
    "download_button",
    "slider",
    "select_slider",
    "selectbox",
    "multiselect",
    "radio",
    "checkbox",
    "toggle",
    "number_input",
    "text_input",
    "text_area",
    "expander",
    "tabs",
    "metric",
    "pills",
    "segmented_control",
    "file_uploader",
    "data_editor",
    "form_submit_button",
    "popover",
    "toast",
    "text",
}
TEXT_KEYWORDS = {"label", "help", "body", "placeholder", "caption"}
LETTERS = re.compile(r"[A-Za-z]{2,}|[\u4e00-\u9fff]")


def placeholders(text: str) -> set[str]:
    """The named fields of a ``str.format`` template: ``"{row} of {count:d}"`` → {row, count}."""
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


# --- the catalogue -------------------------------------------------------------------------------


def test_languages_are_english_and_chinese() -> None:
    assert set(LANGUAGES) == {"en", "zh"}


def test_every_key_has_non_empty_english_and_chinese() -> None:
    problems = [
        f"{key}: missing or empty {lang!r}"
        for key, texts in CATALOGUE.items()
        for lang in LANGUAGES
        if not isinstance(texts.get(lang), str) or not texts[lang].strip()
    ]
    problems += [
        f"{key}: unknown language(s) {sorted(set(texts) - set(LANGUAGES))}"
        for key, texts in CATALOGUE.items()
        if set(texts) - set(LANGUAGES)
    ]
    assert not problems, "\n".join(problems)


def test_placeholders_are_the_same_in_both_languages() -> None:
    problems = []
    for key, texts in CATALOGUE.items():
        try:
            english, chinese = placeholders(texts["en"]), placeholders(texts["zh"])
        except ValueError as error:  # an unbalanced brace
            problems.append(f"{key}: {error}")
            continue
        if english != chinese:
            problems.append(f"{key}: en {sorted(english)} ≠ zh {sorted(chinese)}")
    assert not problems, "\n".join(problems)


def test_formula_rule_accepts_formulas_only() -> None:
    for formula in (
        "B − A",
        "s = ω/√dₖ",
        "exp(s − m)",
        "9 · Softmax",
        "{correct} / {answered}",
        "✓",
    ):
        assert is_formula(formula), formula
    for text in ("Seed", "Not translated", "d_out width", "{n} tokens"):
        assert not is_formula(text), text


def test_chinese_texts_are_chinese() -> None:
    problems = [
        f"{key}: zh text has no Chinese character: {texts['zh']!r}"
        for key, texts in CATALOGUE.items()
        if key not in NO_CJK_KEYS and not CJK.search(texts["zh"]) and not is_formula(texts["zh"])
    ]
    assert not problems, "\n".join(problems)


def test_every_template_formats_with_its_own_placeholders() -> None:
    problems = []
    for key, texts in CATALOGUE.items():
        for lang in LANGUAGES:
            values = dict.fromkeys(placeholders(texts[lang]), 1)
            try:
                t(key, lang=lang, **values)
            except (KeyError, ValueError, IndexError) as error:
                problems.append(f"{key} [{lang}]: {error!r}")
    assert not problems, "\n".join(problems)


# --- the page sources ----------------------------------------------------------------------------


def _calls(path: Path) -> Iterator[ast.Call]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    yield from (node for node in ast.walk(tree) if isinstance(node, ast.Call))


def _is_streamlit(node: ast.expr) -> bool:
    """``st``, ``st.sidebar``, ``st.sidebar.x``…: a chain of attributes rooted at ``st``."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and node.id == "st"


def _literal_text(node: ast.expr) -> str | None:
    """The visible text of a literal string argument (f-strings: their literal parts)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(
            part.value
            for part in node.values
            if isinstance(part, ast.Constant) and isinstance(part.value, str)
        )
    return None


def literal_text_calls(path: Path, root: Path = REPO_ROOT) -> list[str]:
    """``file:line: st.x("…")`` for every Streamlit call given a literal text with words."""
    found = []
    for call in _calls(path):
        func = call.func
        if not (
            isinstance(func, ast.Attribute)
            and func.attr in STREAMLIT_TEXT_CALLS
            and _is_streamlit(func.value)
        ):
            continue
        arguments = list(call.args[:1]) + [k.value for k in call.keywords if k.arg in TEXT_KEYWORDS]
        for argument in arguments:
            if isinstance(argument, ast.List | ast.Tuple):  # st.tabs(["…", "…"])
                texts = [_literal_text(item) for item in argument.elts]
            else:
                texts = [_literal_text(argument)]
            for text in texts:
                if text is not None and LETTERS.search(text):
                    relative = path.relative_to(root)
                    found.append(f"{relative}:{argument.lineno}: st.{func.attr}({text[:50]!r})")
    return found


def test_checker_catches_literal_texts(tmp_path: Path) -> None:
    page = tmp_path / "page.py"
    page.write_text(
        "import streamlit as st\n"
        "st.title('Hello')\n"
        "st.sidebar.button(f'Go {x}')\n"
        "st.markdown('---')\n"
        "st.latex(r'\\sqrt{d_k}')\n"
        "st.slider(t('a'), help='Some help')\n"
        "st.tabs(['One', t('two')])\n"
        "st.markdown(f'**{t(\"x\")}**')\n",
        encoding="utf-8",
    )
    found = [line.split(": ", 1)[1] for line in literal_text_calls(page, tmp_path)]
    assert found == [
        "st.title('Hello')",
        "st.button('Go ')",
        "st.slider('Some help')",
        "st.tabs('One')",
    ]


def test_pages_show_no_literal_text() -> None:
    offenders = [line for path in PAGE_FILES for line in literal_text_calls(path)]
    assert not offenders, "literal user-visible text in pages (use ui.i18n.t):\n" + "\n".join(
        offenders
    )


def used_message_keys(paths: list[Path]) -> list[tuple[str, str]]:
    """``(file:line, key)`` for every ``t("key")`` with a literal key."""
    keys = []
    for path in paths:
        for call in _calls(path):
            if (
                isinstance(call.func, ast.Name)
                and call.func.id == "t"
                and call.args
                and isinstance(call.args[0], ast.Constant)
                and isinstance(call.args[0].value, str)
            ):
                where = f"{path.relative_to(REPO_ROOT)}:{call.lineno}"
                keys.append((where, call.args[0].value))
    return keys


def test_every_message_key_used_in_pages_and_ui_exists() -> None:
    used = used_message_keys(PAGE_FILES + UI_FILES)
    assert len(used) > 20
    missing = [f"{where}: t({key!r})" for where, key in used if key not in CATALOGUE]
    assert not missing, "unknown message keys:\n" + "\n".join(missing)


# --- accessibility: the palette reaches every figure ---------------------------------------------


def palette_builders() -> set[str]:
    """Names of the figure builders in ``viz`` that take a ``palette`` argument, and of
    :class:`viz.matrix.MatrixView` (a matrix figure's description holds its palette)."""
    names = {"MatrixView"}
    for module_info in pkgutil.iter_modules(viz.__path__):
        module = importlib.import_module(f"viz.{module_info.name}")
        for name, function in inspect.getmembers(module, inspect.isfunction):
            if function.__module__ == module.__name__ and not name.startswith("_"):
                if "palette" in inspect.signature(function).parameters:
                    names.add(name)
    return names


def test_a_matrix_view_must_name_its_palette() -> None:
    from viz.matrix import MatrixView

    palette = next(field for field in dataclasses.fields(MatrixView) if field.name == "palette")
    assert palette.default is dataclasses.MISSING, "no matrix figure may fall back to a palette"
    assert {"figure_view", "window_mask_view"} <= palette_builders()


def test_pages_pass_the_palette_to_every_figure_builder() -> None:
    builders = palette_builders()
    offenders = []
    for path in PAGE_FILES:
        for call in _calls(path):
            func = call.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if name not in builders:
                continue
            palette = next((k.value for k in call.keywords if k.arg == "palette"), None)
            if any(k.arg is None for k in call.keywords):  # **kwargs: cannot tell, trust it
                continue
            if palette is None or "palette" not in ast.unparse(palette):
                offenders.append(f"{path.relative_to(REPO_ROOT)}:{call.lineno}: {name}(…)")
    assert not offenders, "figure builders called without the sidebar palette:\n" + "\n".join(
        offenders
    )


@subcases("lang", sorted(LANGUAGES))
def test_page_titles_exist_in_both_languages(lang: str) -> None:
    from ui.frame import PAGE_SPECS

    for spec in PAGE_SPECS:
        assert t(f"page.{spec.name}.title", lang=lang).strip()
        assert t(spec.section, lang=lang).strip()


def test_figure_words_come_from_the_catalogue_in_both_languages() -> None:
    from ui.show import FIGURE_WORD_KEYS, figure_words
    from viz.words import FigureWords

    assert set(FIGURE_WORD_KEYS) == {field.name for field in dataclasses.fields(FigureWords)}
    english, chinese = figure_words("en"), figure_words("zh")
    for name, key in FIGURE_WORD_KEYS.items():
        assert getattr(english, name) == t(key, lang="en")
        assert getattr(chinese, name) == t(key, lang="zh")
    assert (chinese.mean, chinese.query) == ("均值", "查询")
