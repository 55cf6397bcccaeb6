"""The alt-test (stats/alt_test.py) against its authors' published example.

Calderon, Reichart & Dror (2025), "The Alternative Annotator Test for LLM-as-a-Judge", ACL 2025.
Their repository (github.com/nitaytech/AltTest, commit cc1d1f4) ships the paper's data and the
notebook ``alt_test_example.ipynb``, whose printed output gives, per data set and LLM, the winning
rate and the advantage probability to two decimals. The MT-Bench data set (``data/mtbench``:
three human annotators, six LLMs, pairwise preferences, accuracy alignment, epsilon 0.2) is small
enough to inline; it is transcribed here in a compact form (see ``_humans`` and ``_llms``).

The notebook prints no per-annotator figures, so those (rho_j, p-values, Benjamini-Yekutieli
decisions) are the authors' ``alt_test`` run on these very inputs, instrumented to return them
(outside this project), at epsilon 0.2 and at 0.25, where some annotators are beaten.
"""

from __future__ import annotations

import pytest

from abp_tui.stats.alt_test import alt_test

# Items are "<question><pair>_<turn>"; pairs: ag alpaca-13b vs gpt-3.5-turbo, cg claude-v1 vs
# gpt-3.5-turbo, g4 gpt-3.5-turbo vs gpt-4, gl gpt-3.5-turbo vs llama-13b, gv gpt-3.5-turbo vs
# vicuna-13b-v1.2. Labels: a model_a, b model_b, t tie; two letters: turn 1, turn 2.
PAIRS_TEXT = (
    "100ag 100cg 100gv 103g4 103gv 104g4 104gv 105g4 105gv 106gv 107cg 109cg 109gv 110cg 112cg "
    "114ag 115ag 115cg 117g4 117gv 118ag 118gl 123g4 130gl 131gl 133gl 133gv 134ag 135ag 137ag "
    "138ag 138g4 138gl 140gl 141gl 149gl 150gv 155gv 156gv 158ag 159ag 159gv 160gv 82gl 82gv "
    "84ag 85cg 85gv 86ag 87g4 91gl 91gv 92cg 92g4 92gv 93g4 95cg 96ag 97g4 99cg"
)
PAIRS = PAIRS_TEXT.split()
LLMS = {  # data/mtbench/llm_annotations.json, each LLM's labels in PAIRS order
    "gemini_flash": "bb bb bb bb bb bb aa aa aa bb aa aa bb aa tt bb bb aa aa aa aa aa bb aa aa aa "
    "aa bb bb bb bb bb aa aa aa aa bb aa bb bb bb bb bb ba bb bb bb aa bb bb ab bb aa bb ba bb bb "
    "bb bb aa",
    "gemini_pro": "bb bb bb bb bb aa aa tt aa tt aa bb bb aa tt bb bb aa aa aa ab ba tb aa aa aa "
    "aa bb bb bb bb aa aa aa aa aa bb aa aa bb bb bb bb aa bb bb ab bb bb bb aa aa aa aa bb bb bb "
    "bb bb aa",
    "gpt-4o": "bb bb aa bb tt aa aa bb bb aa aa aa bb aa tt bb bb aa bb aa bb aa bb aa aa aa aa "
    "bb bb bb bb bb aa aa aa aa bb aa aa bb bb aa aa aa bb bb aa aa bb bb aa aa aa bb bb aa bb bb "
    "bb aa",
    "llama-31": "bb bb aa bb ba bb bb bb ab bb aa aa bb aa ba bb bb aa bb ab bb aa bb ab aa aa "
    "bb bb bb bb aa at at aa aa aa bb bb bb bb bb aa aa aa ta bt bb bb bb bb ab bb ba bb aa aa bb "
    "bb bb bb",
    "gpt-4o-mini": "bb bb bb bb bb bb aa aa aa aa aa aa bb aa tt bb bb aa aa aa aa aa bb aa aa aa "
    "aa bb bb bb aa tt aa aa aa aa aa aa bb bb bb aa aa aa aa bb bb aa bb bb aa bb aa bb bb aa bb "
    "bb bb aa",
    "mistral-v03": "aa bb tt tb tt tt at tt ta at tt aa tt aa tt bb bb aa tt aa bb tt bt aa tt aa "
    "tt tb bb bb tt tt tt at aa aa aa tt aa tt ba tt aa aa tt bb at aa bb ta aa aa tt tt aa aa bb "
    "tt aa tt",
}
HUMANS = {  # data/mtbench/human_annotations.json, in the file's order
    "author_0": "82gl:ba 85cg:tt 85gv:tt 86ag:bb 91gl:aa 91gv:ta 92cg:ab 92gv:bb 96ag:bt 97g4:bb "
    "99cg:bt 104gv:ta 105gv:tt 106gv:tt 107cg:tt 114ag:tt 115ag:bb 115cg:bb 117g4:bb 117gv:aa "
    "118ag:bt 130gl:aa 131gl:aa 133gv:ta 134ag:tb 137ag:bb 138ag:bt 138g4:tt 140gl:aa 141gl:aa "
    "149gl:aa 150gv:bb 156gv:bb 158ag:tb 159ag:bt 159gv:tb 160gv:ta",
    "author_4": "82gl:aa 82gv:ab 84ag:bb 87g4:bt 91gv:ba 91gl:aa 92cg:aa 92g4:ba 93g4:bt 95cg:ab "
    "100cg:bb 100ag:at 100gv:tt 103g4:bb 103gv:ta 104gv:aa 104g4:ta 105g4:tt 105gv:tt 109cg:tt "
    "109gv:bt 110cg:ta 112cg:ta 114ag:bb 117g4:bb 118ag:bt 118gl:aa 123g4:tb 133gl:aa 133gv:aa "
    "134ag:tb 135ag:bb 137ag:bb 138ag:bb 138g4:aa 138gl:aa 140gl:aa 149gl:aa 150gv:ba 155gv:ba "
    "158ag:bb 160gv:tt",
    "expert_24": "82gv:tt 84ag:tb 85cg:ta 85gv:aa 86ag:bb 87g4:ta 91gv:ba 92g4:ba 92gv:tb "
    "93g4:tb 95cg:ab 96ag:bb 97g4:bb 99cg:bt 100ag:ab 100cg:bb 100gv:aa 103g4:bb 103gv:ta "
    "104g4:ta 105g4:bb 106gv:tt 107cg:tt 109cg:tt 109gv:bt 110cg:tt 112cg:tt 115cg:bb 115ag:bb "
    "117gv:aa 118gl:at 123g4:tt 130gl:aa 131gl:aa 133gl:aa 135ag:bb 138gl:aa 138g4:tb 141gl:aa "
    "150gv:ab 155gv:ta 156gv:tb 159ag:bb 159gv:tt",
}
LABEL = {"a": "model_a", "b": "model_b", "t": "tie"}

# The notebook's printed output for mtbench (epsilon 0.2): every LLM fails.
PRINTED = {
    "gemini_flash": (0.00, 0.72),
    "gemini_pro": (0.00, 0.76),
    "gpt-4o": (0.00, 0.77),
    "llama-31": (0.00, 0.69),
    "gpt-4o-mini": (0.00, 0.74),
    "mistral-v03": (0.00, 0.68),
}
# The authors' alt_test on these inputs: (winning rate, advantage probability, per annotator
# (rho_j, p-value, rejected by Benjamini-Yekutieli at q = 0.05)).
Row = tuple[float, float, dict[str, tuple[float, float, bool]]]
AUTHORS: dict[float, dict[str, Row]] = {
    0.2: {
        "gemini_flash": (
            0.0,
            0.7189023439023439,
            {
                "author_0": (0.7027027027027027, 0.16288597865271232, False),
                "author_4": (0.7380952380952381, 0.4369504210469644, False),
                "expert_24": (0.7159090909090909, 0.26977145877986985, False),
            },
        ),
        "gemini_pro": (
            0.0,
            0.7645128895128894,
            {
                "author_0": (0.7702702702702703, 0.04996886964090339, False),
                "author_4": (0.7619047619047619, 0.431250670838641, False),
                "expert_24": (0.7613636363636364, 0.050784314523462916, False),
            },
        ),
        "gpt-4o": (
            0.0,
            0.7728101478101479,
            {
                "author_0": (0.7702702702702703, 0.01918244093228336, False),
                "author_4": (0.8095238095238095, 0.026002982435099666, False),
                "expert_24": (0.7386363636363636, 0.314542003206683, False),
            },
        ),
        "llama-31": (
            0.0,
            0.6871611871611871,
            {
                "author_0": (0.6891891891891891, 0.5149324283633294, False),
                "author_4": (0.6904761904761905, 0.5140726027038699, False),
                "expert_24": (0.6818181818181818, 0.5269861488811562, False),
            },
        ),
        "gpt-4o-mini": (
            0.0,
            0.7354871104871106,
            {
                "author_0": (0.7297297297297297, 0.1150149077004765, False),
                "author_4": (0.7380952380952381, 0.5162864056666094, False),
                "expert_24": (0.7386363636363636, 0.25677396507236094, False),
            },
        ),
        "mistral-v03": (
            0.0,
            0.6831929331929332,
            {
                "author_0": (0.6891891891891891, 0.5911554306342248, False),
                "author_4": (0.6785714285714286, 0.273432453672038, False),
                "expert_24": (0.6818181818181818, 0.5955940845895182, False),
            },
        ),
    },
    0.25: {
        "gemini_flash": (
            0.0,
            0.7189023439023439,
            {
                "author_0": (0.7027027027027027, 0.05472423921759914, False),
                "author_4": (0.7380952380952381, 0.16131947294707272, False),
                "expert_24": (0.7159090909090909, 0.08730012648428254, False),
            },
        ),
        "gemini_pro": (
            0.6666666666666666,
            0.7645128895128894,
            {
                "author_0": (0.7702702702702703, 0.01029538756295989, True),
                "author_4": (0.7619047619047619, 0.1403539243283976, False),
                "expert_24": (0.7613636363636364, 0.008954624300955736, True),
            },
        ),
        "gpt-4o": (
            0.6666666666666666,
            0.7728101478101479,
            {
                "author_0": (0.7702702702702703, 0.0035476045154735, True),
                "author_4": (0.8095238095238095, 0.003033763487585744, True),
                "expert_24": (0.7386363636363636, 0.09765846905373718, False),
            },
        ),
        "llama-31": (
            0.0,
            0.6871611871611871,
            {
                "author_0": (0.6891891891891891, 0.2564861888059291, False),
                "author_4": (0.6904761904761905, 0.24053441620917881, False),
                "expert_24": (0.6818181818181818, 0.24949655464046533, False),
            },
        ),
        "gpt-4o-mini": (
            0.0,
            0.7354871104871106,
            {
                "author_0": (0.7297297297297297, 0.03281712737892587, False),
                "author_4": (0.7380952380952381, 0.20751656846163966, False),
                "expert_24": (0.7386363636363636, 0.07424757703630167, False),
            },
        ),
        "mistral-v03": (
            0.0,
            0.6831929331929332,
            {
                "author_0": (0.6891891891891891, 0.3156303812072006, False),
                "author_4": (0.6785714285714286, 0.10318517943528374, False),
                "expert_24": (0.6818181818181818, 0.30216999314396065, False),
            },
        ),
    },
}


def _humans() -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for name, text in HUMANS.items():
        labels: dict[str, str] = {}
        for token in text.split():
            pair, turns = token.split(":")
            for turn, code in enumerate(turns, start=1):
                labels[f"{pair}_{turn}"] = LABEL[code]
        out[name] = labels
    return out


def _llm(name: str) -> dict[str, str]:
    groups = LLMS[name].split()
    assert len(groups) == len(PAIRS)
    return {
        f"{pair}_{turn}": LABEL[group[turn - 1]]
        for pair, group in zip(PAIRS, groups, strict=True)
        for turn in (1, 2)
    }


def test_the_transcribed_data_has_the_files_shape() -> None:
    humans = _humans()
    assert {name: len(labels) for name, labels in humans.items()} == {
        "author_0": 74,
        "author_4": 84,
        "expert_24": 88,
    }
    for name in LLMS:
        llm = _llm(name)
        assert len(llm) == 120 and all(item in llm for h in humans.values() for item in h)


@pytest.mark.parametrize("llm", list(PRINTED))
def test_the_notebooks_printed_figures(llm: str) -> None:
    result = alt_test(_humans(), _llm(llm), epsilon=0.2, alignment="accuracy")
    winning_rate, advantage = PRINTED[llm]
    assert result.winning_rate is not None and result.advantage_probability is not None
    assert f"{result.winning_rate:.2f}" == f"{winning_rate:.2f}"
    assert f"{result.advantage_probability:.2f}" == f"{advantage:.2f}"
    assert result.passed is False  # the notebook's [FAILED]


@pytest.mark.parametrize("epsilon", [0.2, 0.25])
@pytest.mark.parametrize("llm", list(PRINTED))
def test_every_figure_as_the_authors_code_computes_it(epsilon: float, llm: str) -> None:
    winning_rate, advantage, annotators = AUTHORS[epsilon][llm]
    result = alt_test(_humans(), _llm(llm), epsilon=epsilon)
    assert result.tested == 3 and result.epsilon == epsilon
    assert result.winning_rate == pytest.approx(winning_rate, abs=1e-15)
    assert result.advantage_probability == pytest.approx(advantage, abs=1e-15)
    assert result.passed == (winning_rate >= 0.5)
    found = {a.annotator: a for a in result.annotators}
    assert set(found) == set(annotators)
    for name, (rho, p_value, rejected) in annotators.items():
        a = found[name]
        assert a.advantage_probability == pytest.approx(rho, abs=1e-15), name
        # The authors' items come in their file's order, ours sorted: the t-test's sums may
        # differ in the last bit.
        assert a.p_value == pytest.approx(p_value, rel=1e-12), name
        assert a.rejected is rejected, name
