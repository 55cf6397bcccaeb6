"""Writes crowdkit_dawid_skene.json: Dawid-Skene and one-coin Dawid-Skene fitted by the
``crowd-kit`` package (Toloka; not a dependency of ours, it brings pandas and more) on two
reference sets, for tests/test_reliability.py to compare ours against:

- PandaLM's test set (``pandalm/testset-v1.json``): its three annotators, ``annotator1..3``;
- LLMBar's manual set (``llmbar-manual``): the people's gold ``label`` and each AI judge
  (``evaluators/*/result.json``) in each presentation order (``swap = False``: the original
  order; ``swap = True``: swapped), as annotators.

- a synthetic set (seeded): 60 items, 40 annotators of skill 0.6 to 0.99 each labelling about
  two thirds of the items, one who always says ``tie`` and one who always says the opposite of
  the truth; so many agreeing labels drive posteriors to exactly 0 and error rates to the floor
  (1e-10), where the floors of both models show.

A label is the response preferred in the source's own orientation (``"1"``, ``"2"``) or
``"tie"`` (PandaLM's 0). The input rows are stored beside the fitted values. Run it where
crowd-kit is installed, with the reference data folder as its argument:
``python tests/reference_values/make_crowdkit.py REFERENCE_DIR``."""

from __future__ import annotations

import json
import sys
from importlib.metadata import version
from pathlib import Path

import pandas as pd
from crowdkit.aggregation import DawidSkene, OneCoinDawidSkene

N_ITER = 100
TOL = 1e-5
PANDALM = {0: "tie", 1: "1", 2: "2"}


def pandalm_rows(reference: Path) -> list[list[str]]:
    data = json.loads((reference / "pandalm" / "testset-v1.json").read_text("utf-8"))
    return [
        [str(item["idx"]), f"annotator{k}", PANDALM[item[f"annotator{k}"]]]
        for item in data
        for k in (1, 2, 3)
    ]


def llmbar_rows(reference: Path) -> list[list[str]]:
    folder = reference / "llmbar-manual"
    data = json.loads((folder / "dataset.json").read_text("utf-8"))
    rows = [[str(n), "label", str(item["label"])] for n, item in enumerate(data)]
    for judge in sorted(p.name for p in (folder / "evaluators").iterdir()):
        results = json.loads((folder / "evaluators" / judge / "result.json").read_text("utf-8"))
        for n, item in enumerate(results):
            (verdicts,) = item["results"]
            for key, order in (("swap = False", "original"), ("swap = True", "swapped")):
                rows.append([str(n), f"{judge}|{order}", str(verdicts[key]["winner"])])
    return rows


def synthetic_rows() -> list[list[str]]:
    import numpy as np

    rng = np.random.default_rng(20261206)
    categories = ["1", "2", "tie"]
    truth = rng.choice(3, 60, p=[0.45, 0.45, 0.1])
    skills = rng.uniform(0.6, 0.99, 40)
    rows = []
    for item, true in enumerate(truth):
        for worker, skill in enumerate(skills):
            if rng.random() < 1 / 3:
                continue
            right = rng.random() < skill
            label = true if right else rng.choice([k for k in range(3) if k != true])
            rows.append([str(item), f"w{worker:02d}", categories[label]])
        rows.append([str(item), "always-tie", "tie"])
        rows.append([str(item), "contrarian", categories[1 if true == 0 else 0]])
    return rows


def fitted(rows: list[list[str]]) -> dict[str, object]:
    frame = pd.DataFrame(rows, columns=["task", "worker", "label"])
    out: dict[str, object] = {"rows": rows}
    for name, model in (
        ("dawid-skene", DawidSkene(n_iter=N_ITER, tol=TOL)),
        ("one-coin", OneCoinDawidSkene(n_iter=N_ITER, tol=TOL)),
    ):
        model.fit(frame)
        errors = model.errors_
        found: dict[str, object] = {
            "iterations": len(model.loss_history_),
            "priors": {str(k): float(v) for k, v in model.priors_.items()},
            "probas": {
                str(task): {str(k): float(v) for k, v in row.items()}
                for task, row in model.probas_.iterrows()
            },
            "labels": {str(task): str(label) for task, label in model.labels_.items()},
            # errors[worker][observed label][true label], for each label the worker gave
            "errors": {
                str(worker): {
                    str(label): {str(k): float(v) for k, v in errors.loc[(worker, label)].items()}
                    for label in errors.loc[worker].index
                }
                for worker in errors.index.get_level_values("worker").unique()
            },
        }
        if name == "one-coin":
            found["skills"] = {str(w): float(v) for w, v in model.skills_.items()}
        out[name] = found
    return out


def main() -> None:
    reference = Path(sys.argv[1])
    cases = {
        "pandalm": fitted(pandalm_rows(reference)),
        "llmbar": fitted(llmbar_rows(reference)),
        "synthetic": fitted(synthetic_rows()),
    }
    path = Path(__file__).with_name("crowdkit_dawid_skene.json")
    document = {"crowd-kit": version("crowd-kit"), "n_iter": N_ITER, "tol": TOL, "cases": cases}
    path.write_text(json.dumps(document) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
