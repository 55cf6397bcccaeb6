"""Writes confseq_sequences.json: confidence sequences computed by the ``confseq`` package
(0.0.11, which needs NumPy < 2 and Boost to build, so it is not a dev dependency) on fixed
streams, for tests/test_sequences.py to compare ours against. Run it where confseq is
installed: ``python tests/reference_values/make_confseq.py``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from confseq.betting import hedged_cs
from confseq.conjmix_bounded import conjmix_hoeffding_twosided_cs


def main() -> None:
    rng = np.random.default_rng(20240101)
    streams = {
        "pass rate 0.7": (rng.random(300) < 0.7).astype(float),
        "win rate with ties": rng.choice([0.0, 0.5, 1.0], 200, p=[0.3, 0.2, 0.5]),
        "scores beta(2, 5)": np.round(rng.beta(2, 5, 150), 6),
    }
    out = []
    for name, x in streams.items():
        for alpha, running in ((0.05, True), (0.1, False)):
            bet_l, bet_u = hedged_cs(x, alpha=alpha, running_intersection=running)
            mix_l, mix_u = conjmix_hoeffding_twosided_cs(
                x, t_opt=100, alpha=alpha, running_intersection=running
            )
            out.append(
                {
                    "stream": name,
                    "alpha": alpha,
                    "running_intersection": running,
                    "x": x.tolist(),
                    "hedged_cs": [bet_l.tolist(), bet_u.tolist()],
                    "conjmix_hoeffding_twosided_cs_t_opt_100": [mix_l.tolist(), mix_u.tolist()],
                }
            )
    path = Path(__file__).with_name("confseq_sequences.json")
    path.write_text(json.dumps({"confseq": "0.0.11", "cases": out}) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
