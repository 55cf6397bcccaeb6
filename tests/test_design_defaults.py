"""A design made from choices has every listed reviewer judge every item unless told otherwise;
a design file keeps its own default (one reviewer per item), so it plans what it always did."""

from __future__ import annotations

import json
from pathlib import Path

from abp_tui.models.design import StudyDesign
from abp_tui.services.designing import DesignChoices, create_design, create_from_choices
from abp_tui.store import connect
from abp_tui.store import judging as sql
from tests.factories import Cli, afp_study_lines, write_jsonl


def _create(cli: Cli, *choices: str) -> dict[str, object]:
    out = cli(
        "study", "create", "--db", cli.db_path, "--study", "s", "--seed", "3", "--json", *choices
    )
    assert out.code == 0, out.err
    (design,) = json.loads(out.out)["designs"]
    return dict(design)


def test_two_named_reviewers_both_judge_every_item(tmp_path: Path, cli: Cli) -> None:
    assert cli("import", write_jsonl(tmp_path / "s.jsonl", afp_study_lines())).code == 0
    both = _create(cli, "--reviewers", "ann,bo", "--name", "both")
    assert both["items"] == 2 and both["assignments"] == 4
    db = connect(cli.db_path)
    pk = next(d.pk for d in sql.designs(db, "s") if d.name == "both")
    assert {p.reviewer: p.assigned for p in sql.progress(db, pk)} == {"ann": 2, "bo": 2}
    # Told otherwise, one of them judges each item.
    split = _create(cli, "--reviewers", "ann,bo", "--reviewers-per-item", "1", "--name", "one")
    assert split["assignments"] == 2
    # An open design: one reviewer per item, whoever opens it.
    assert _create(cli, "--name", "open")["assignments"] == 0


def test_the_form_s_choices_default_to_every_listed_reviewer(tmp_path: Path) -> None:
    db = connect(tmp_path / "x.db")
    from abp_tui.services.importing import import_paths

    import_paths(db, [write_jsonl(tmp_path / "s.jsonl", afp_study_lines())])
    created = create_from_choices(db, DesignChoices(study="s", reviewers="ann, bo, cy", seed=3))
    assert created.assignments == 3 * created.items


def test_a_design_file_keeps_one_reviewer_per_item_and_its_hash(tmp_path: Path) -> None:
    db = connect(tmp_path / "x.db")
    from abp_tui.services.importing import import_paths

    import_paths(db, [write_jsonl(tmp_path / "s.jsonl", afp_study_lines())])
    design = StudyDesign(study="s", name="f", seed=3, reviewers=["ann", "bo"])
    assert design.reviewers_per_item == 1
    first = create_design(db, design)
    assert first.assignments == first.items
    # The same file again is the same design: nothing new, the same hash.
    again = create_design(db, StudyDesign(study="s", name="f", seed=3, reviewers=["ann", "bo"]))
    assert (again.status, again.sha256) == ("unchanged", first.sha256)
