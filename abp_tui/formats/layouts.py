"""Run folders: a folder laid out the way a harness leaves it is one study.

A harness writes one run as a folder of files in several formats (a manifest, tasks, traces, a
verdict...). Imported file by file, each would name its study after its own folder (``tasks``,
``traces``); recognised as a layout, every file of the folder goes into the one study the layout
names, the manifest first. Each layout states how its study is named:

- **ABP run folder**: ``run.json`` (``abp-run/v1``), ``tasks/``, ``traces/``, ``verdict.json``;
  the study is named after the run folder.
- **AFP run folder**: ``pack.json`` and runner rows; named by the pack's ``protocol_version``
  (``afp-v0.1``), as the pack and its rows are when imported alone.
- **sci-bench run folder**: one specification (``benchmark_id``) with submissions and run
  records in any subfolder; named by the specification's ``benchmark_id``.
- **MT-Bench run folder**: ``question.jsonl`` with ``model_answer/`` (and ``reference_answer/``,
  read with the questions); named after the folder holding ``question.jsonl``.
  ``model_judgment/`` holds the AI judge's verdicts, imported after the answers they judge.
- **LLMBar folder**: ``dataset.json`` with ``evaluators/``; each evaluator's ``result.json``
  holds an AI judge's verdicts, imported into the dataset's study, named after the data set's
  folders as LLMBar names it (``llmbar-natural``, ``llmbar-adversarial-manual``).

``--study`` names the study instead. This module only looks at files; it never reads records.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from abp_tui.formats import abp, afp, mtbench, pairwise, scibench
from abp_tui.formats.base import head_bytes, peek_json


@dataclass(frozen=True)
class Layout:
    """A recognised run folder: which study its files go into and in which order."""

    name: str
    """What the folder is (``ABP run folder``)."""
    study: str | None
    """The study every file goes into; None: each file names its own."""
    naming: str
    """How the study id was chosen, as the import summary states it."""
    first: tuple[str, ...] = ()
    """Files (relative to the folder) imported before the others: the manifest."""
    then: tuple[str, ...] = ()
    """Subfolders whose files come next, in this order (``tasks/`` before ``traces/``)."""
    skip: dict[str, str] = field(default_factory=dict)
    """Subfolder (``model_judgment/``) -> why its files are not imported as files of their own
    (one note each in the import summary)."""

    def rank(self, relative: str) -> tuple[int, str]:
        """Sort key of a file of the folder: manifest, then the ordered subfolders, the rest."""
        if relative in self.first:
            return self.first.index(relative), relative
        for i, folder in enumerate(self.then):
            if relative.startswith(folder):
                return len(self.first) + i, relative
        return len(self.first) + len(self.then), relative

    def skipped(self, relative: str) -> str | None:
        """The subfolder of ``skip`` that holds this file, or None."""
        for folder in self.skip:
            if relative.startswith(folder):
                return folder
        return None


def _abp(folder: Path) -> Layout | None:
    manifest = folder / "run.json"
    if not manifest.is_file():
        return None
    doc = peek_json(manifest)
    if not isinstance(doc, dict) or doc.get("schema") != abp.RUN_SCHEMA:
        return None
    return Layout(
        "ABP run folder",
        folder.absolute().name,
        "named after the run folder",
        first=("run.json",),
        then=("tasks/", "traces/"),
    )


def _afp(folder: Path) -> Layout | None:
    pack = folder / "pack.json"
    if not pack.is_file() or not afp.PACK.sniff(pack, head_bytes(pack)):
        return None
    doc = peek_json(pack)
    version = doc.get("protocol_version") if isinstance(doc, dict) else None
    if not isinstance(version, str) or not version.strip():
        return None
    return Layout(
        "AFP run folder",
        afp.study_id_for(version),
        "named by pack.json's protocol_version",
        first=("pack.json",),
    )


def _scibench(folder: Path) -> Layout | None:
    specs: dict[str, str] = {}
    for path in sorted(folder.glob("*.json")):
        if path.is_file() and scibench.SPEC.sniff(path, head_bytes(path)):
            doc = peek_json(path)
            if isinstance(doc, dict) and isinstance(doc.get("benchmark_id"), str):
                specs[path.name] = doc["benchmark_id"]
    if len(set(specs.values())) != 1:
        return None  # no specification, or several benchmarks: each file names its own
    return Layout(
        "sci-bench run folder",
        next(iter(specs.values())),
        "named by the specification's benchmark_id",
        first=tuple(specs),
    )


def _mtbench(folder: Path) -> Layout | None:
    questions = folder / mtbench.QUESTIONS_FILE
    if not questions.is_file() or not (folder / mtbench.ANSWERS_DIR).is_dir():
        return None
    if not mtbench.QUESTIONS.sniff(questions, head_bytes(questions)):
        return None
    return Layout(
        "MT-Bench run folder",
        folder.absolute().name,
        f"named after the folder holding {mtbench.QUESTIONS_FILE}",
        first=(mtbench.QUESTIONS_FILE,),
        # The AI judge's verdicts (abp_tui.formats.fastchat_judgment) are on the answers' runs.
        then=(f"{mtbench.ANSWERS_DIR}/", f"{mtbench.JUDGMENTS_DIR}/"),
        skip={
            f"{mtbench.REFERENCES_DIR}/": f"read with {mtbench.QUESTIONS_FILE}: each task's "
            "reference answers, in its expected behaviour",
        },
    )


def _llmbar(folder: Path) -> Layout | None:
    dataset = folder / "dataset.json"
    if not (folder / "evaluators").is_dir() or not dataset.is_file():
        return None
    if not pairwise.FORMAT.sniff(dataset, head_bytes(dataset)):
        return None
    return Layout(
        "LLMBar folder",
        pairwise.llmbar_study_name(folder),
        "named after the LLMBar data set's folders",
        first=("dataset.json",),
        # Each evaluator's result.json (abp_tui.formats.llmbar_eval): the same pairs and an AI
        # judge's verdicts on them, in the dataset's study unless --study names one.
        then=("evaluators/",),
    )


LAYOUTS: tuple[Callable[[Path], Layout | None], ...] = (_abp, _afp, _scibench, _mtbench, _llmbar)


def recognise(folder: Path) -> Layout | None:
    """The layout of ``folder`` if it is a run folder, else None."""
    for layout in LAYOUTS:
        found = layout(folder)
        if found is not None:
            return found
    return None


__all__ = ["LAYOUTS", "Layout", "recognise"]
