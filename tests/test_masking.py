"""Identity masking under attack: variants of every identity term, name parts, well-known names.

The attack (issue 15): a study of model ``gpt-4``, engine ``claude-code`` and model
``claude-3-5-sonnet`` still showed "Claude here", "Sonnet" and "gpt4" on the blind screen,
because only the exact recorded strings were masked.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import sqlite_utils
from hypothesis import given
from hypothesis import strategies as st

from abp_tui.analysis.masking import GENERIC_PARTS, MASK, WELL_KNOWN, Masker, identity_terms
from abp_tui.models import StudyDesign
from abp_tui.services.designing import CreatedDesign, create_design
from abp_tui.services.importing import import_paths
from abp_tui.services.reviewing import ReviewSession
from abp_tui.store import judging as sql
from tests.factories import write_jsonl

ISSUE_IDENTITIES = ["gpt-4", "claude-code", "claude-3-5-sonnet"]


def _issue_masker(well_known: bool = False) -> Masker:
    return identity_terms(["A", "B"], ["Baseline", "Treatment"], ISSUE_IDENTITIES, (), well_known)


def _left(text: str, *words: str) -> list[str]:
    """Which of ``words`` are still readable in ``text`` (case-insensitive, anywhere)."""
    return [w for w in words if w.lower() in text.lower()]


def test_the_reported_leaks_are_masked() -> None:
    text = "Claude here. I am Sonnet, not gpt4; ask GPT 4 or GPT_4 or Gpt-4 instead."
    masked, n = _issue_masker().mask(text)
    assert _left(masked, "claude", "sonnet", "gpt") == [], masked
    assert n == masked.count(MASK) == 6
    assert masked.startswith(f"{MASK} here. I am {MASK}, not {MASK};")


@pytest.mark.parametrize(
    "variant",
    [
        "gpt-4",
        "GPT-4",
        "GPT 4",
        "gpt4",
        "GPT_4",
        "gpt.4",
        "Claude Code",
        "claude_code",
        "ClaudeCode",
        "CLAUDE-CODE",
        "claude 3.5 sonnet",
        "Claude-3.5-Sonnet",
        "claude_3_5_sonnet",
        "claude3.5sonnet",
        "gpt-4o",
        "GPT4-turbo",
    ],
)
def test_case_punctuation_and_spacing_variants_are_masked(variant: str) -> None:
    masked, n = _issue_masker().mask(f"Answer from {variant}: done.")
    assert n >= 1
    assert _left(masked, "claude", "sonnet", "gpt") == [], masked
    assert masked.startswith(f"Answer from {MASK}") and masked.endswith(": done.")


def test_a_whole_variant_is_one_mask_not_pieces() -> None:
    # The longest reading wins: one mask, and no "-3-5-" or "Code" left standing beside it.
    for variant in ("Claude-3-5-Sonnet", "Claude Code", "GPT_4"):
        masked, n = _issue_masker().mask(f"by {variant}.")
        assert (masked, n) == (f"by {MASK}.", 1), variant


def test_generic_parts_and_numbers_are_not_masked_alone() -> None:
    # Decided: the digits of a model id and generic words ("code", "mini", "turbo", "pro",
    # "model", "engine", "demo") are never masked on their own; they would hide ordinary
    # words and numbers. They are masked only as part of a whole identity.
    masker = identity_terms(
        [], [], ["gpt-4o-mini", "claude-code", "acme/demo-model-2", "demo-engine-pro"], ()
    )
    text = "Run the code 3 times on 5 mini batches; the model and engine are turbo pro demos 2."
    assert masker.mask(text) == (text, 0)
    for generic in ("code", "mini", "model", "engine", "demo", "pro", "turbo"):
        assert generic in GENERIC_PARTS
    assert masker.mask("acme demo model 2 and demo-engine-pro")[1] == 2


def test_version_numbers_alone_never_mask_ordinary_numbers() -> None:
    # An engine version is an identity only beside its engine: "1.0" and "2.1.0" alone would
    # hide every such number in code and prose, and "1.0" must never match "10".
    masker = identity_terms([], [], ["1.0", "oxagen/2.1.0", "2.1.0", "gpt-4-0613"], ())
    text = "Set retries to 10, version 1.0 then 2.1.0; 4 0613 is a number."
    assert masker.mask(text) == (text, 0)
    assert masker.mask("ran oxagen 2.1.0 and GPT-4-0613") == (f"ran {MASK} and {MASK}", 2)
    named = identity_terms([], [], [], ["1.0"], well_known=False)  # a design may still ask
    assert named.mask("10 or 1.0 or 1_0") == (f"10 or {MASK} or {MASK}", 2)


def test_name_parts_of_model_ids_are_masked() -> None:
    masker = identity_terms([], [], ["anthropic/claude-3-5-sonnet-20241022", "qwen2.5-coder"], ())
    masked, n = masker.mask("Sonnet said hi; so did anthropic; qwen agreed, Qwen2.5 too.")
    assert _left(masked, "sonnet", "anthropic", "qwen") == [], masked
    assert n == 4
    assert "20241022" not in masker.mask("claude-3-5-sonnet-20241022")[0]


def test_words_that_only_contain_a_term_are_left_alone() -> None:
    masker = _issue_masker()
    text = "Claudette wrote a sonnets anthology; gptx is not a model; decode the codec."
    assert masker.mask(text) == (text, 0)


def test_an_underscore_does_not_hide_a_name() -> None:
    masked, n = _issue_masker().mask("see my_claude_wrapper and claude_helper")
    assert _left(masked, "claude") == [] and n == 2


def test_well_known_names_are_masked_and_can_be_switched_off() -> None:
    text = (
        "As ChatGPT by OpenAI, not Claude (Anthropic), Gemini (Google), Llama (Meta), "
        "Mistral, Qwen or DeepSeek, I answer."
    )
    names = ["chatgpt", "openai", "claude", "anthropic", "gemini", "google", "llama", "meta"]
    names += ["mistral", "qwen", "deepseek"]
    on = identity_terms([], [], [], (), well_known=True)
    masked, n = on.mask(text)
    assert _left(masked, *names) == [], masked
    assert n == 11
    off = identity_terms([], [], [], (), well_known=False)
    assert off.mask(text) == (text, 0)
    for name in ("ChatGPT", "GPT", "OpenAI", "Claude", "Anthropic", "Gemini", "Google"):
        assert name in WELL_KNOWN
    for name in ("Llama", "Meta", "Mistral", "Qwen", "DeepSeek"):
        assert name in WELL_KNOWN


def test_the_list_is_extended_by_the_designs_terms_with_their_variants() -> None:
    masker = identity_terms([], [], [], ["Nimbus-7"], well_known=False)
    masked, n = masker.mask("nimbus 7, NIMBUS_7 and Nimbus7 agree.")
    assert (masked, n) == (f"{MASK}, {MASK} and {MASK} agree.", 3)


def test_short_condition_ids_still_need_their_context_word() -> None:
    masker = _issue_masker()
    assert masker.mask("Condition A beat condition-b; a B grade.") == (
        f"{MASK} beat {MASK}; a B grade.",
        2,
    )


@given(
    st.lists(st.sampled_from(["", " ", "-", "_", ".", " - "]), min_size=3, max_size=3),
    st.lists(st.booleans(), min_size=20, max_size=20),
)
def test_any_spacing_and_case_of_a_model_id_is_masked(seps: list[str], upper: list[bool]) -> None:
    plain = f"claude{seps[0]}3{seps[1]}5{seps[2]}sonnet"
    cased = "".join(c.upper() if u else c for c, u in zip(plain, upper, strict=False))
    spelled = cased + plain[len(cased) :]
    masked, n = _issue_masker().mask(f"I am {spelled}.")
    assert n >= 1 and _left(masked, "claude", "sonnet") == [], masked


def test_letters_that_lower_case_to_two_characters_do_not_shift_the_masks() -> None:
    # "İ".lower() is two characters: the masker must not cut the text at shifted offsets.
    assert _issue_masker().mask("İzmir: Claude, then İ and gpt4.") == (
        f"İzmir: {MASK}, then İ and {MASK}.",
        2,
    )


def test_one_compiled_pattern_per_masker() -> None:
    masker = _issue_masker(well_known=True)
    assert masker.pattern is masker.pattern
    assert isinstance(masker.pattern, re.Pattern)


# -- through the study design: recorded terms, stored counts, the blind screen ------------------
def _issue_study(tmp_path: Path, db: sqlite_utils.Database) -> None:
    outputs = {
        "A": "Claude here: the fix is in parse(). Sonnet checked it twice.",
        "B": "As gpt4 I changed 3 lines of code. ChatGPT would agree.",
    }
    lines: list[dict[str, object]] = [{"type": "study", "id": "leaky", "rubric_id": "afp-v0.1"}]
    for c, model, engine in (("A", "claude-3-5-sonnet", "claude-code"), ("B", "gpt-4", "aider")):
        lines.append({"type": "condition", "id": c, "label": f"Arm {c}"})
        lines.append(
            {
                "type": "run",
                "id": f"r-{c}",
                "task_id": "T1",
                "condition_id": c,
                "output": outputs[c],
                "model": model,
                "engine": engine,
            }
        )
    import_paths(db, [write_jsonl(tmp_path / "leaky.jsonl", lines)])


def _issue_design(tmp_path: Path, db: sqlite_utils.Database) -> CreatedDesign:
    """The issue's study with a design judged by ana, comparing its two arms."""
    _issue_study(tmp_path, db)
    return create_design(
        db, StudyDesign(study="leaky", name="d", seed=3, reviewers=["ana"], contrasts="all-pairs")
    )


def test_the_blind_screen_and_the_stored_counts_agree(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    created = _issue_design(tmp_path, db)
    row = sql.design(db, created.pk)
    assert "ChatGPT" in row.document["masked_terms"]
    assert "sonnet" in row.document["masked_terms"]
    (item,) = sql.items(db, created.pk)
    assert item.masking == {"a": 2, "b": 2}
    session = ReviewSession(db, created.pk, "ana")
    blind = session.read(item.code)
    shown = " ".join(r.text for r in blind.responses)
    assert _left(shown, "claude", "sonnet", "gpt") == [], shown
    assert "3 lines of code" in shown
    assert sorted(r.masked for r in blind.responses) == [2, 2]


def test_a_design_can_switch_the_well_known_names_off(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    _issue_study(tmp_path, db)
    design = StudyDesign(study="leaky", name="d", seed=3, mask_well_known=False)
    created = create_design(db, design)
    terms = sql.design(db, created.pk).document["masked_terms"]
    assert "ChatGPT" not in terms and "claude" in terms
    (item,) = sql.items(db, created.pk)
    assert item.masking == {"a": 2, "b": 1}  # "ChatGPT" is left to read


# -- issue 27: spacing and punctuation between the words of a name ------------------------------
CAMEL_NAMES = ["OpenAI", "DeepSeek", "DeepMind", "ChatGPT", "OpenHands"]
"""Well-known names written as one word of two camel-case words."""
SEPARATORS = ["", " ", "-", ".", "_", "\u200b", "\u200d", "\ufeff", "\u00a0", "\u202f", "\t"]
SEPARATORS += ["/", "\u2013", "\u00ad", "\n"]
"""Spacing and punctuation between words: none, spaces (non-breaking too), hyphens and dashes,
dots, underscores, zero-width characters."""
_separator_runs = st.lists(st.sampled_from(SEPARATORS), min_size=0, max_size=4).map("".join)


def _spelled(name: str, separator: str, upper: list[bool]) -> str:
    """The two camel-case words of ``name`` joined by ``separator``, in the given case."""
    words = [w for w in re.split(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", name) if w]
    assert len(words) == 2, name
    joined = separator.join(words)
    return "".join(
        c.upper() if u else c.lower() for c, u in zip(joined, upper + [False] * 40, strict=False)
    )


@given(
    st.sampled_from(CAMEL_NAMES),
    _separator_runs,
    st.lists(st.booleans(), min_size=20, max_size=20),
)
def test_a_camel_case_name_is_masked_with_any_spacing_and_case(
    name: str, separator: str, upper: list[bool]
) -> None:
    spelled = _spelled(name, separator, upper)
    masker = identity_terms([], [], [], (), well_known=True)
    assert masker.mask(f"Built by {spelled}, as said.") == (f"Built by {MASK}, as said.", 1)


@given(_separator_runs, st.sampled_from(["NimbusCloud", "acme/StormBringer-7"]))
def test_a_designs_own_camel_case_term_is_masked_with_any_spacing(
    separator: str, term: str
) -> None:
    masker = identity_terms([], [], [term], (), well_known=False)
    words = re.findall(r"[A-Z][a-z]+|\d+", term.split("/")[-1])
    masked, n = masker.mask(f"({separator.join(words)}) wrote it")
    assert (masked, n) == (f"({MASK}) wrote it", 1)


def test_the_reported_spellings_are_masked() -> None:
    masker = identity_terms([], [], [], (), well_known=True)
    text = "Open AI, open-ai, Open.AI, Open\u00a0AI, Deep Seek, deep_seek and Deep\u200bSeek agree."
    masked, n = masker.mask(text)
    assert (masked, n) == (", ".join([MASK] * 6) + f" and {MASK} agree.", 7)


@given(
    st.sampled_from(["open", "Open", "OPEN", "deep", "Deep", "chat", "mind", "seek", "hands"]),
    st.sampled_from([" ", "-", ".", "_", "\u00a0", "\u200b", ""]),
    st.sampled_from(["the door", "air", "aim", "sea", "seed", "water", "source", "minded", "ly"]),
)
def test_the_words_of_a_name_alone_are_not_masked(word: str, separator: str, other: str) -> None:
    # "open" or "deep" is an ordinary word: only the whole name (both its words) is masked.
    text = f"We {word}{separator}{other} today."
    assert identity_terms([], [], [], (), well_known=True).mask(text) == (text, 0)


# -- well-known names that reveal nobody: ordinary words in lower case ----------------------------
def _phi_masker() -> Masker:
    """MT-Bench's two models: none of the well-known names is the study's own."""
    return identity_terms(["phi-3", "phi-3-dpo"], [], ["phi-3", "phi-3-dpo"])


@pytest.mark.parametrize(
    "text",
    [
        '<meta charset="UTF-8">',
        "meta-analysis",
        "a meta-analysis of the trials",
        "just google it",
        "his magnum opus, a sonnet by a bard",
        "hard to grok",
    ],
)
def test_ordinary_words_in_lower_case_are_left_as_written(text: str) -> None:
    assert _phi_masker().mask(text) == (text, 0)


def test_the_same_names_capitalized_and_the_studys_own_are_masked() -> None:
    masked, n = _phi_masker().mask("Meta and Google ship models; META too; I am Phi-3-DPO.")
    assert masked == f"{MASK} and {MASK} ship models; {MASK} too; I am {MASK}."
    assert n == 4


def test_a_studys_own_identity_is_masked_in_any_case() -> None:
    """A study of Meta's and Google's models: lower-case "meta" and "google" are its own."""
    masker = identity_terms(["A", "B"], [], ["meta-llama/Llama-3-8b", "google/gemma-2"])
    assert "Meta" not in masker.loose and "Google" not in masker.loose
    assert "OpenAI" in masker.loose
    masked, n = masker.mask("<meta> tags; google it; meta-llama")
    assert _left(masked, "meta", "google") == [] and n == 3


def test_through_the_blind_screen_only_lower_case_ordinary_words_are_left(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    outputs = {
        "A": 'Use <meta charset="UTF-8">. The Google Pixel is fine. I am gpt-4.',
        "B": "Google Pixel, surely. Claude Monet would agree.",
    }
    lines: list[dict[str, object]] = [{"type": "study", "id": "phones"}]
    lines.append({"type": "task", "id": "T1", "prompt": "Is the Google Pixel worth it?"})
    for c, model in (("A", "gpt-4"), ("B", "phi-3")):
        lines.append({"type": "condition", "id": c, "label": f"Arm {c}"})
        run = {"type": "run", "id": f"r-{c}", "task_id": "T1", "condition_id": c}
        lines.append({**run, "output": outputs[c], "model": model})
    import_paths(db, [write_jsonl(tmp_path / "phones.jsonl", lines)])
    created = create_design(db, StudyDesign(study="phones", name="d", seed=3, reviewers=["ana"]))
    (item,) = sql.items(db, created.pk)
    blind = ReviewSession(db, created.pk, "ana").read(item.code)
    shown = {r.text: r.masked for r in blind.responses}
    # The task names the Google Pixel: the responses' "Google" is masked all the same (a rule
    # that left a task's words could not tell them from "made by Google and ...").
    assert shown == {
        f'Use <meta charset="UTF-8">. The {MASK} Pixel is fine. I am {MASK}.': 2,
        f"{MASK} Pixel, surely. {MASK} Monet would agree.": 2,
    }
    assert sorted(item.masking.values()) == [2, 2]


@pytest.mark.parametrize(
    ("identities", "labels", "extra", "names"),
    [
        (["Meta", "Llama-3-70B"], [], [], ["Meta", "Llama"]),
        ([], ["Claude"], [], ["Claude", "Anthropic", "Sonnet"]),
        ([], ["OpenAI o1"], [], ["OpenAI", "ChatGPT", "GPT"]),
        ([], ["ChatGPT Plus"], [], ["ChatGPT", "OpenAI"]),
        ([], [], ["DeepSeek R1"], ["DeepSeek"]),
        (["mistralai/mixtral-8x22b"], [], [], ["Mistral", "Mixtral"]),
        (["moonshotai/Kimi-K2"], [], [], ["Moonshot", "Kimi"]),
        (["zhipuai/glm-4"], [], [], ["Zhipu"]),
        (["deepseekcoder-33b"], [], [], ["DeepSeek"]),
        (["chatgpt-4o-latest"], [], [], ["GPT", "ChatGPT", "OpenAI"]),
        (["codellama:7b"], [], [], ["Llama", "Meta"]),
        (["tinyllama"], [], [], ["Meta", "Llama"]),
        (["claude-3-5-sonnet", "gpt-4o"], [], [], ["Anthropic", "OpenAI", "ChatGPT"]),
        (["google/gemma-2"], [], [], ["Google", "Gemini", "DeepMind"]),
        (["Google"], [], [], ["Google"]),
        (["facebook/opt-1.3b"], [], [], ["Meta"]),
        (["vertex", "text-bison@001"], [], [], ["Google", "Bard"]),
        (["ＧＰＴ-4"], [], [], ["GPT", "OpenAI"]),
        (["x-ai/grok-1"], [], [], ["xAI", "Grok"]),
        (["bedrock", "anthropic.claude-v2"], [], [], ["Anthropic", "Claude"]),
        ([], ["Open AI"], [], ["OpenAI"]),
    ],
)
def test_no_name_the_studys_own_identities_or_their_maker_imply_is_loose(
    identities: list[str], labels: list[str], extra: list[str], names: list[str]
) -> None:
    """Found by review: own identities spelled like a well-known name, inside a longer word or
    a multi-word label, and the maker a model implies were left loose. None of them is now, and
    each is masked in any case."""
    masker = identity_terms(["A", "B"], labels, identities, extra)
    assert not set(names) & set(masker.loose), masker.loose
    for name in names:
        for written in (name, name.lower(), name.upper(), f"{name} ships", f"{name.lower()} ships"):
            masked, n = masker.mask(f"made by {written}")
            assert n >= 1 and name.lower() not in masked.lower(), (name, written, masked)


def test_only_all_lower_case_ordinary_words_are_left() -> None:
    for text in ("gOOGLE it", "Meta tags", "mEta"):
        assert _phi_masker().mask(text)[1] == 1, text
    assert _phi_masker().mask("google it") == ("google it", 0)


def test_a_design_made_before_the_loose_names_were_kept_masks_every_well_known_name(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    """Designs made before keep the masking their reviewers saw: no loose names."""
    created = _issue_design(tmp_path, db)
    assert ReviewSession(db, created.pk, "ana").masker.loose  # kept with the design
    db.execute("DELETE FROM design_masking WHERE design_pk = ?", [created.pk])
    before = ReviewSession(db, created.pk, "ana").masker
    assert before.loose == ()
    assert before.mask("<meta> google it") == (f"<{MASK}> {MASK} it", 2)


def test_an_own_name_written_with_a_capital_dotted_i_is_masked_in_every_case() -> None:
    """Found by review: a label "İris" lower-cased to "i" and a combining dot, so no text
    matched it but that rare spelling; "İris", "IRIS", "iris" and "Iris" were shown."""
    masker = identity_terms(["c1x", "c2x"], ["İris", "Slow"], [])
    assert masker.mask("İris / IRIS / iris / Iris") == (" / ".join([MASK] * 4), 4)
    assert masker.mask("IRIS and iris") == (f"{MASK} and {MASK}", 2)
