"""Identity masking: the names that would tell a blind reader which condition, engine or model
wrote a text are replaced by «masked».

Which terms (:func:`identity_terms`, recorded in the design when it is created):

- the condition ids (those under three characters only after a word like "condition") and labels;
- every provider, model, model version and engine value of the study's runs that has a letter,
  each segment between ``/``, ``:`` and ``@`` of three or more characters with a letter, and
  each *name part*: a run of three or more letters that is not in :data:`GENERIC_PARTS`
  (``claude`` and ``sonnet`` from
  ``claude-3-5-sonnet``, ``gpt`` from ``gpt-4o-mini``, but never ``3``, ``5``, ``code`` or
  ``mini`` alone: those would mask ordinary words and numbers; they are masked only as part of
  a whole identity);
- the design's ``mask_terms``;
- unless the design sets ``mask_well_known = false``, the well-known model, vendor and agent
  names of :data:`WELL_KNOWN`.

How a term matches (:class:`Masker`): case-insensitively, as whole words (letters and digits
around it break the match, an underscore does not), with any run of spacing and punctuation
(:data:`_SPACING`: white space including non-breaking spaces, ``-`` and dashes, ``_``, ``.``,
``/``, ``+``, zero-width characters) or nothing between its words: its runs of letters and of
digits, and the words of a camel-case name as the term is written. ``gpt-4`` also matches
``GPT 4``, ``gpt4``, ``GPT_4`` and ``Gpt.4``; ``OpenAI`` matches ``Open AI``, ``open-ai`` and
``Open.AI``, ``DeepSeek`` ``Deep Seek``; one word of a name alone (``open``) is not the name,
but two ordinary words that spell one (``open hands``) are masked. A term ending in letters
also takes a version written after it (``gpt`` masks all of ``GPT-4o`` and ``gpt4``, ``Qwen``
all of ``Qwen2.5``). A term of numbers only keeps a separator between them (``1.0`` never matches
``10``), and an identity with no letters at all (an engine version ``1.0``) is not masked on
its own, only with its engine (``oxagen/1.0``). All terms are one compiled regular expression
in which, for each first letter, the longest terms come first, so that a whole identity is one
mask, not pieces.

A well-known name that is also an ordinary word (:data:`ORDINARY_WORDS`: an HTML ``<meta>``
tag, a sonnet) is left where the text writes it all in lower case, when neither the study's own
identities nor a name of the same maker appear in it (:attr:`Masker.loose`,
:func:`loose_names`). A name the task itself writes ("Google Pixel") is masked in the responses
all the same: a rule that left it could not tell a response repeating the task from one naming
its maker ("made by OpenAI and ...").

What it cannot do: text that names a system in other words ("the assistant from the search
company"), spells a name with look-alike letters, or interleaves invisible characters inside one
word of it (``Cl``, U+200B, ``aude``: those are shown as ``⟨U+...⟩`` by :mod:`abp_tui.text.safe` but
still split the word; between its words they are matched). The bundle's limitations say so.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

MASK = "«masked»"

WELL_KNOWN: tuple[str, ...] = (
    # Vendors and labs.
    "OpenAI",
    "Anthropic",
    "Google",
    "DeepMind",
    "Meta",
    "Mistral",
    "Alibaba",
    "DeepSeek",
    "xAI",
    "Cohere",
    "Microsoft",
    "Moonshot",
    "Zhipu",
    # Model families.
    "ChatGPT",
    "GPT",
    "Claude",
    "Sonnet",
    "Opus",
    "Gemini",
    "Gemma",
    "Bard",
    "Llama",
    "Mixtral",
    "Codestral",
    "Qwen",
    "Grok",
    "Kimi",
    "Nemotron",
    # Coding agents and assistants.
    "Copilot",
    "Codex",
    "Aider",
    "OpenHands",
    "Devin",
)
"""The maintained list of well-known model, vendor and agent names, masked by default. Names
that are mostly ordinary words elsewhere (Haiku, Command, Phi, Cursor, Perplexity) are left
out: a design that needs them adds them to ``mask_terms``. "Meta" and "Google" are kept although
they also mask ordinary uses ("meta tag"); a design can switch the list off."""

ORDINARY_WORDS: frozenset[str] = frozenset({"meta", "google", "opus", "sonnet", "bard", "grok"})
"""Well-known names that are also ordinary words written in lower case (an HTML ``<meta>`` tag,
a meta-analysis, "google it", a magnum opus, a sonnet, a bard, to grok): unless the study's own
identities name them or their maker (:func:`loose_names`), they are left where the text writes
them all in lower case."""

GENERIC_PARTS: frozenset[str] = frozenset(
    {
        "agent",
        "agents",
        "alpha",
        "api",
        "assistant",
        "audio",
        "base",
        "beta",
        "bot",
        "chat",
        "cli",
        "cloud",
        "code",
        "coder",
        "coding",
        "command",
        "default",
        "demo",
        "dev",
        "edge",
        "engine",
        "exp",
        "experimental",
        "expert",
        "fast",
        "flash",
        "free",
        "high",
        "hub",
        "instruct",
        "large",
        "latest",
        "light",
        "lite",
        "local",
        "low",
        "max",
        "medium",
        "micro",
        "mini",
        "model",
        "models",
        "multimodal",
        "nano",
        "new",
        "next",
        "omni",
        "online",
        "open",
        "preview",
        "pro",
        "plus",
        "reasoning",
        "release",
        "runner",
        "sdk",
        "server",
        "small",
        "stable",
        "synthetic",
        "test",
        "text",
        "thinking",
        "tool",
        "tools",
        "turbo",
        "ultra",
        "vision",
    }
)
"""Name parts never masked on their own (lower case): the generic words of model and engine
ids. Numbers and runs of fewer than three letters are never name parts either."""

_SHORT_ID_CONTEXT = (
    "condition",
    "treatment",
    "arm",
    "group",
    "variant",
    "engine",
    "system",
    "prompt",
)
"""Words after which a condition id too short to mask alone (``A``) is masked."""
_LETTER = re.compile(r"[^\W\d_]")
_TOKENS = re.compile(r"[^\W\d_]+|\d+")
"""Runs of letters and runs of digits: the pieces a term's variants keep in order."""
_SPACING = "\\s._/+\\-\u00ad\u00b7\u200b-\u200d\u2010-\u2015\u2060\ufeff"
"""What may stand between the parts of a name: any white space (non-breaking spaces and line
breaks included), ``.``, ``_``, ``/``, ``+``, hyphens and dashes, the middle dot, the soft hyphen
and the zero-width characters."""
_SEP = f"[{_SPACING}]*"
_NUMBER_SEP = f"[{_SPACING}]{{1,3}}"
_VERSION = r"(?:[ \t._\-]?v?\d+(?:[._]\d+)*[^\W\d_]{0,2})?"
"""A version written after a name: ``-4o``, ``4``, `` 2.5``, ``_3``."""
_BEFORE = r"(?<![^\W_].)"
_AFTER = r"(?![^\W_])"


def _camel_parts(token: str) -> list[str]:
    """A run of letters split where its case says a new word starts: ``OpenAI`` is ``Open`` and
    ``AI``, ``DeepSeek`` ``Deep`` and ``Seek``, ``GPTModel`` ``GPT`` and ``Model``."""
    parts: list[str] = []
    start = 0
    for i in range(1, len(token)):
        before, here = token[i - 1], token[i]
        after = token[i + 1] if i + 1 < len(token) else ""
        if here.isupper() and (before.islower() or (before.isupper() and after.islower())):
            parts.append(token[start:i])
            start = i
    parts.append(token[start:])
    return parts


def _parts(term: str) -> list[str]:
    """The lower-case runs of letters and of digits of a term, camel-case words apart."""
    return [
        part.lower()
        for token in _TOKENS.findall(term)
        for part in (_camel_parts(token) if not token.isdigit() else [token])
    ]


def _variants(term: str) -> tuple[str, str]:
    """The pattern of a term and its case, punctuation and spacing variants (for lower-cased
    text), as its first character and the rest."""
    # "İ" lower-cases to two characters ("i" and a combining dot), which no text lower-cased
    # the same way would match as one word: the term is matched as written with "I" instead
    # (a text holding "İ" is matched case-insensitively, where "i" matches "İ").
    term = term.replace("\u0130", "I")
    tokens = _parts(term)
    if not tokens:
        lowered = term.lower()
        return lowered[0], re.escape(lowered[1:])
    body = re.escape(tokens[0])
    numbers_only = all(t.isdigit() for t in tokens)
    for token in tokens[1:]:
        # A number alone keeps its separators: "1.0" must not match "10" (inside a name,
        # "claude35sonnet" is still "claude-3-5-sonnet").
        body += (_NUMBER_SEP if numbers_only else _SEP) + re.escape(token)
    if not tokens[-1].isdigit():
        body += _VERSION
    first = tokens[0][0]
    return first, body[len(re.escape(first)) :]


@lru_cache(maxsize=64)
def _compile(terms: tuple[str, ...], short_ids: tuple[str, ...]) -> str | None:
    """The expression of every term, matched against lower-cased text.

    Speed matters (a 200 KB output is masked while the reviewer reads the previous item): the
    alternatives are grouped by their first character, and the text is lower-cased instead of
    matching case-insensitively, so that the regular expression engine can skip to the
    positions where some term starts and test one group there, not every term. Within a group
    the longest terms come first: the engine takes the first alternative that matches, so
    "claude-3-5-sonnet" must be tried before its part "claude".
    """
    found: dict[tuple[str, str], int] = {}
    for term in {t.strip() for t in terms if t.strip()}:
        variant = _variants(term)
        found[variant] = max(found.get(variant, 0), len(term))
    groups: dict[str, list[tuple[int, str]]] = {}
    for (first, rest), length in found.items():
        groups.setdefault(first, []).append((length, rest))
    if short_ids:
        ids = "|".join(re.escape(i.lower()) for i in sorted(set(short_ids)))
        for word in _SHORT_ID_CONTEXT:
            groups.setdefault(word[0], []).append(
                (len(word) + 2, rf"{re.escape(word[1:])}[ \t_\-]+(?:{ids})")
            )
    if not groups:
        return None
    branches = []
    for first, alternatives in sorted(groups.items()):
        ordered = [rest for _, rest in sorted(alternatives, key=lambda a: (-a[0], a[1]))]
        # The look-behind sits after the first character, where it still sees the one before.
        branches.append(f"{re.escape(first)}{_BEFORE}(?:{'|'.join(ordered)})")
    return f"(?:{'|'.join(branches)}){_AFTER}"


@lru_cache(maxsize=128)
def _pattern(source: str, ignore_case: bool) -> re.Pattern[str]:
    return re.compile(source, re.IGNORECASE if ignore_case else 0)


def _key(text: str) -> str:
    """What a match or a term names, as a well-known name is compared: its lower-case runs of
    letters before its first number, joined (``Open AI``, ``open-ai`` and ``OpenAI`` are
    ``openai``; ``GPT-4o`` is ``gpt``); empty when more letters follow the number than a
    version's suffix (``meta-llama-3-instruct``: a longer name, never a well-known one alone)."""
    tokens = _TOKENS.findall(text.lower())
    letters = []
    for at, token in enumerate(tokens):
        if token.isdigit():
            rest = tokens[at + 1 :]
            if any(not t.isdigit() and len(t) > 2 for t in rest):
                return ""
            break
        letters.append(token)
    return "".join(letters)


@dataclass(frozen=True)
class Masker:
    """Masks identity terms (condition, engine, model, provider names) in text shown blind."""

    terms: tuple[str, ...]
    short_ids: tuple[str, ...] = ()
    """Condition ids too short to mask alone (``A``): masked after words like "condition"."""
    loose: tuple[str, ...] = ()
    """The well-known names among ``terms`` (:data:`WELL_KNOWN`) that nothing of the study's
    own identities names, nor any name of the same maker (:func:`loose_names`, recorded with
    the design when it was made): those of :data:`ORDINARY_WORDS` are left where the text
    writes them all in lower case (an HTML ``<meta>`` tag, "google it")."""

    @property
    def pattern(self) -> re.Pattern[str] | None:
        """The one compiled expression of every term, for lower-cased text (cached: sessions
        rebuild maskers)."""
        source = _compile(self.terms, self.short_ids)
        return None if source is None else _pattern(source, False)

    @staticmethod
    def _kept(text: str, start: int, end: int, loose: frozenset[str]) -> bool:
        """Whether the match ``text[start:end]`` is a loose ordinary word written all in lower
        case, left as written."""
        found = text[start:end]
        if not found.islower():
            return False
        key = _key(found)
        return key in ORDINARY_WORDS and key in loose

    def mask(self, text: str) -> tuple[str, int]:
        """The text with each identity term replaced by «masked», and how many were masked."""
        source = _compile(self.terms, self.short_ids)
        if source is None or not text:
            return text, 0
        loose = _loose_keys(self.loose)
        lowered = text.lower()
        if len(lowered) != len(text):
            # A few characters lower-case to two ("İ"): offsets would shift, so match the
            # text itself, case-insensitively (slower, and rare).
            matches = _pattern(source, True).finditer(text)
        else:
            matches = _pattern(source, False).finditer(lowered)
        pieces: list[str] = []
        last = 0
        for found in matches:
            if loose and self._kept(text, found.start(), found.end(), loose):
                continue
            pieces.append(text[last : found.start()])
            pieces.append(MASK)
            last = found.end()
        if not pieces:
            return text, 0
        pieces.append(text[last:])
        return "".join(pieces), len(pieces) // 2


@lru_cache(maxsize=64)
def _loose_keys(loose: tuple[str, ...]) -> frozenset[str]:
    return frozenset(_key(t) for t in loose)


MAKERS: Final[tuple[frozenset[str], ...]] = tuple(
    frozenset(n.lower() for n in names)
    for names in (
        ("OpenAI", "ChatGPT", "GPT", "Codex", "Copilot", "Azure"),
        ("Anthropic", "Claude", "Sonnet", "Opus"),
        ("Google", "DeepMind", "Gemini", "Gemma", "Bard", "PaLM", "Bison", "Vertex"),
        ("Meta", "Llama", "Facebook"),
        ("Mistral", "Mixtral", "Codestral"),
        ("Alibaba", "Qwen"),
        ("xAI", "Grok"),
        ("Microsoft", "Copilot", "Azure", "Phi", "Orca"),
        ("Moonshot", "Kimi"),
    )
)
"""Well-known names that go together: a maker and its models. When the study's own identities
name one of them (a model ``claude-3-5-sonnet``: Claude), none of them is loose ("made by
Anthropic" would name the condition as surely)."""


_WELL_KNOWN_LOWER: Final = frozenset(w.lower() for w in WELL_KNOWN)


def loose_names(terms: Iterable[str], own: Iterable[str]) -> tuple[str, ...]:
    """The well-known names among ``terms`` that the study's ``own`` identities (its conditions'
    ids and labels, its runs' providers, models and engines, the design's own terms) leave
    loose: neither they nor a name of the same maker (:data:`MAKERS`) appear in any own
    identity, in any case, even inside a longer word (``deepseekcoder``, ``mistralai``,
    ``tinyllama``): a name only well-known may be left where it reveals nobody
    (:class:`Masker`), never one that could be the study's own."""
    # Compatibility forms read as the letters they stand for (full-width "ＧＰＴ" is "gpt").
    letters = [re.sub(r"[\W\d_]+", "", unicodedata.normalize("NFKC", t).lower()) for t in own]
    letters = [t for t in letters if t]

    def named(name: str) -> bool:
        return any(name in t for t in letters)

    out = []
    for term in set(terms):
        name = term.lower()
        if name not in _WELL_KNOWN_LOWER:
            continue
        kin = {name}.union(*(m for m in MAKERS if name in m))
        if not any(named(k) for k in kin):
            out.append(term)
    return tuple(sorted(out))


def name_parts(identity: str) -> set[str]:
    """The parts of a recorded identity masked on their own (see the module docstring)."""
    parts = {
        p
        for p in re.split(r"[/:@]", identity)
        if len(p) >= 3 and _LETTER.search(p) and p.lower() not in GENERIC_PARTS
    }
    parts.update(
        token
        for token in _TOKENS.findall(identity)
        if len(token) >= 3 and not token.isdigit() and token.lower() not in GENERIC_PARTS
    )
    return parts


def identity_terms(
    condition_ids: Iterable[str],
    condition_labels: Iterable[str],
    run_identities: Iterable[str | None],
    extra: Iterable[str] = (),
    well_known: bool = True,
) -> Masker:
    """Build the masker of a study from its conditions, its runs' identities and extra terms.

    ``run_identities`` are providers, models, model versions and engines as recorded; each also
    masks its name parts. ``well_known`` adds :data:`WELL_KNOWN`.
    """
    terms: set[str] = set()
    short: set[str] = set()
    for cid in condition_ids:
        (terms if len(cid) >= 3 else short).add(cid)
    for label in condition_labels:
        if label.strip():
            terms.add(label.strip())
    for ident in run_identities:
        if not ident or not _LETTER.search(ident):
            continue  # a bare version ("1.0") would mask ordinary numbers; "engine/1.0" is kept
        terms.add(ident)
        terms.update(name_parts(ident))
    terms.update(t.strip() for t in extra if t.strip())
    own = set(terms) | short
    if well_known:
        terms.update(WELL_KNOWN)
    return Masker(tuple(sorted(terms)), tuple(sorted(short)), loose_names(terms, own))
