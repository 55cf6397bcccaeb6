"""Studies are named after their data sets, not their files' stems (``dataset``,
``testset-v1``), and a condition that is only a position in the data says so."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from abp_tui.formats.pairwise import llmbar_study_name, study_name
from tests.factories import Cli


def test_llmbar_names_its_data_sets_by_their_folders(tmp_path: Path) -> None:
    repo = tmp_path / "LLMBar" / "Dataset" / "LLMBar"
    assert llmbar_study_name(repo / "Natural") == "llmbar-natural"
    assert llmbar_study_name(repo / "Adversarial" / "GPTInst") == "llmbar-adversarial-gptinst"
    assert llmbar_study_name(tmp_path / "llmbar-manual") == "llmbar-manual"
    assert llmbar_study_name(tmp_path / "Manual") == "llmbar-manual"
    assert study_name(repo / "Natural" / "dataset.json", "llmbar") == "llmbar-natural"
    assert study_name(tmp_path / "testset-v1.json", "pandalm") == "pandalm-testset-v1"
    assert study_name(tmp_path / "PandaLM-test.json", "pandalm") == "PandaLM-test"
    assert study_name(tmp_path / "my-pairs.json", "llmbar") == "my-pairs"


def test_the_reference_sets_import_under_their_own_names(reference: Path, cli: Cli) -> None:
    out = cli("import", reference / "llmbar-manual", reference / "pandalm", "--json")
    assert out.code == 0, out.err
    studies = {f["study"] for f in json.loads(out.out)["files"] if f["study"]}
    assert studies == {"llmbar-manual", "pandalm-testset-v1"}
    status = json.loads(cli("status", "--json").out)["studies"]
    (llmbar,) = [s for s in status if s["id"] == "llmbar-manual"]
    assert llmbar["name"] == "llmbar-manual"
    text = cli("status", "--study", "llmbar-manual").out
    assert (
        "condition response1: 46 runs  output 1 (position; the data set does not name the "
        "models)" in text
    )
    assert "output 2 (position; the data set does not name the models)" in text


def test_an_llmbar_dataset_in_the_repository_s_layout_is_named_as_llmbar_names_it(
    reference: Path, tmp_path: Path, cli: Cli
) -> None:
    folder = tmp_path / "LLMBar" / "Dataset" / "LLMBar" / "Adversarial" / "Manual"
    shutil.copytree(reference / "llmbar-manual", folder)
    out = cli("import", folder / "dataset.json", "--json")
    assert {f["study"] for f in json.loads(out.out)["files"]} == {"llmbar-adversarial-manual"}
    # An evaluator's results imported alone go into the same study.
    result = folder / "evaluators" / "GPT-4-Vanilla" / "result.json"
    out = cli("import", result, "--json")
    assert {f["study"] for f in json.loads(out.out)["files"]} == {"llmbar-adversarial-manual"}
