"""The documentation cannot drift from the code: every command the reference (``docs/``) must
document is found by walking the real argument parser, every package by walking the real source
tree, every type the data model names in ``abp_tui.models``; and the README stays a tour."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

import abp_tui
from abp_tui.cli import build_parser, main
from abp_tui.stats.agreement import DEFAULT_RESAMPLES, PAIR_COEFFICIENTS, VARIABLE_COEFFICIENTS
from abp_tui.stats.inference import BOOTSTRAP_RESAMPLES, Z_95

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = sorted((ROOT / "docs").glob("*.md"))
REFERENCE = "\n".join(path.read_text(encoding="utf-8") for path in DOCS)
"""The reference, every file of ``docs/`` (each ``## `` section is found wherever it is)."""
PACKAGE = Path(abp_tui.__file__).resolve().parent


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    found: dict[str, argparse.ArgumentParser] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            found.update(action.choices)
    return found


def _commands(
    parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()
) -> list[tuple[str, ...]]:
    """Every command and subcommand, e.g. ``("import",)`` and ``("pack", "study")``."""
    paths = []
    for name, sub in _subcommands(parser).items():
        paths.append((*prefix, name))
        paths.extend(_commands(sub, (*prefix, name)))
    return paths


def _choices(path: tuple[str, ...]) -> list[str]:
    """The values of a command's positional choice (``bench import``, ``export bundle``)."""
    parser = build_parser()
    for name in path:
        parser = _subcommands(parser)[name]
    return [
        str(choice)
        for action in parser._actions
        if not action.option_strings and action.choices and not _subcommands(parser)
        for choice in action.choices
    ]


def _section(title: str) -> str:
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^#{{1,2}} |\Z)", REFERENCE, re.M | re.S)
    assert match, f"docs/ has no '## {title}' section"
    return match.group(1)


COMMANDS = _commands(build_parser())
COMMANDS_TABLE = [
    line for line in _section("Commands").splitlines() if line.startswith("| `abp-tui")
]


def test_the_walk_finds_the_commands() -> None:
    # A walk that found nothing would make every test below pass vacuously.
    assert {("import",), ("status",), ("study", "create"), ("pack", "ratings")} <= set(COMMANDS)
    assert "startup" in _choices(("bench",))


@pytest.mark.parametrize("path", COMMANDS, ids=" ".join)
def test_the_commands_table_documents_every_command(path: tuple[str, ...]) -> None:
    name = "abp-tui " + " ".join(path)
    rows = [line for line in COMMANDS_TABLE if f"`{name}" in line]
    assert rows, f"the reference's Commands table does not document `{name}`"
    row = " ".join(rows)
    for choice in _choices(path):
        assert re.search(rf"[ |\\]{re.escape(choice)}\b", row), (
            f"the reference's row for `{name}` does not name `{choice}`"
        )


@pytest.mark.parametrize("path", [(), *COMMANDS], ids=lambda p: " ".join(p) or "abp-tui")
def test_help_works(path: tuple[str, ...], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main([*path, "--help"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: abp-tui {' '.join(path)}".rstrip())


def _packages() -> list[str]:
    """Every package under abp_tui/ as ``name/`` and every top-level module as ``name.py``."""
    packages = [
        p.parent.relative_to(PACKAGE).as_posix()
        for p in PACKAGE.rglob("__init__.py")
        if p.parent != PACKAGE
    ]
    modules = [p.name for p in PACKAGE.glob("*.py") if p.name != "__init__.py"]
    return sorted(packages) + sorted(modules)


def _layout_entries() -> list[str]:
    """The names in the Layout section's tree of abp_tui/: a package or module, indented two
    spaces per level, with its description after at least two spaces (a wrapped description
    line is indented further and names nothing)."""
    block = re.search(r"```\nabp_tui/\n(.*?)\n(?=\S)", _section("Layout"), re.S)
    assert block, "the Layout section starts with a tree of abp_tui/"
    return re.findall(r"^(?:  |    )([\w.]+/|[\w.]+\.py)(?: {2,}|$)", block.group(1), re.M)


def _shown(name: str) -> str:
    # A nested package is named by its last part, indented under its parent.
    return name if name.endswith(".py") else name.rsplit("/", 1)[-1] + "/"


def test_the_layout_names_every_package_and_top_level_module() -> None:
    assert "store" in _packages() and "errors.py" in _packages()
    entries = set(_layout_entries())
    missing = [name for name in _packages() if _shown(name) not in entries]
    assert missing == [], f"the reference's Layout section does not name: {missing}"


def test_the_layout_names_nothing_that_is_gone() -> None:
    gone = set(_layout_entries()) - {_shown(name) for name in _packages()}
    assert gone == set(), f"the reference's Layout section names what is not there: {gone}"


# -- the statistics a methods reviewer checks -----------------------------------------------------
STATISTICS = _section("Statistics")


@pytest.mark.parametrize(
    "label",
    sorted({c.label for c in (*VARIABLE_COEFFICIENTS, *PAIR_COEFFICIENTS)}),
)
def test_the_statistics_section_lists_every_declared_coefficient(label: str) -> None:
    # A coefficient declared in the code and published in every bundle is in the reference's
    # table with its formula and source, so a reader can check it without the code.
    rows = [line for line in STATISTICS.splitlines() if line.startswith("| ")]
    assert any(label in row.split(" | ")[0] for row in rows), (
        f"the reference's Statistics section has no row naming {label!r}"
    )


def test_the_statistics_section_states_the_codes_settings() -> None:
    # The numbers a reader needs to redo a figure are the ones the code uses.
    assert f"{BOOTSTRAP_RESAMPLES} resamples" in STATISTICS
    assert f"{DEFAULT_RESAMPLES} resamples" in STATISTICS
    assert f"{Z_95:.6f} at 0.95" in STATISTICS
    for figure in ("Wilson", "McNemar", "binomial test", "relative median difference"):
        assert figure in STATISTICS


# -- the README is a tour --------------------------------------------------------------------------
def test_the_readme_is_a_tour_that_links_every_reference_file() -> None:
    assert len(README.splitlines()) <= 300
    assert "make run" in README and "make test" in README
    for path in DOCS:
        assert f"(docs/{path.name})" in README, f"the README does not link docs/{path.name}"


def test_every_link_of_the_documentation_points_at_a_file() -> None:
    for path in [ROOT / "README.md", *DOCS]:
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", path.read_text("utf-8")):
            assert (path.parent / target).exists(), f"{path.name} links {target}, not there"


def test_the_data_model_names_only_types_that_exist() -> None:
    import abp_tui.models as models
    from abp_tui.models import judges

    text = _section("Data model")
    named = set(re.findall(r"\b([A-Z][a-z]+(?:[A-Z][a-z]+)+|[A-Z][a-z]{3,})\b", text))
    # Words of the prose that are not type names.
    prose = {"One", "Built", "Only"}
    missing = sorted(n for n in named - prose if not (hasattr(models, n) or hasattr(judges, n)))
    assert missing == [], f"the data model names types abp_tui.models does not have: {missing}"
    for kept in ("Judgment", "ItemPreference", "AdjudicationRevision", "StudyDesign"):
        assert kept in named
