"""``abp-tui status`` lists each study's AI judges: id, model and how many verdicts, by kind.
Blind-safe: who judged and how much, never what they picked."""

from __future__ import annotations

import json
from pathlib import Path

from tests.factories import Cli


def test_status_lists_the_ai_judges_of_a_study(reference: Path, cli: Cli) -> None:
    assert cli("import", reference / "llmbar-manual").code == 0
    out = cli("status")
    assert out.code == 0, out.err
    judge_lines = [line.strip() for line in out.out.splitlines() if "AI judge" in line]
    assert judge_lines == [
        "AI judge ChatGPT-Vanilla (model ChatGPT): 92 verdicts (preference)",
        "AI judge GPT-4-Vanilla (model GPT-4): 92 verdicts (preference)",
    ]
    (study,) = json.loads(cli("status", "--json").out)["studies"]
    assert study["judges"] == [
        {"id": "ChatGPT-Vanilla", "model": "ChatGPT", "verdicts": 92, "kinds": {"preference": 92}},
        {"id": "GPT-4-Vanilla", "model": "GPT-4", "verdicts": 92, "kinds": {"preference": 92}},
    ]


def test_status_counts_each_kind_of_a_judges_verdicts(reference: Path, cli: Cli) -> None:
    folder = reference / "mt-bench"
    paths = [folder / "question.jsonl", folder / "model_answer", folder / "model_judgment"]
    assert cli("import", *paths).code == 0
    text = cli("status").out
    # The study is blind: each judge's line says who judged and how much, nothing more.
    assert [line.strip() for line in text.splitlines() if "AI judge" in line] == [
        "AI judge gpt-4/pair-math-v1 (model gpt-4): 50 verdicts (preference)",
        "AI judge gpt-4/pair-v2 (model gpt-4): 100 verdicts (preference)",
        "AI judge gpt-4/single-math-v1 (model gpt-4): 30 verdicts (score)",
        "AI judge gpt-4/single-math-v1-multi-turn (model gpt-4): 30 verdicts (score)",
        "AI judge gpt-4/single-v1 (model gpt-4): 50 verdicts (score)",
        "AI judge gpt-4/single-v1-multi-turn (model gpt-4): 50 verdicts (score)",
    ]
