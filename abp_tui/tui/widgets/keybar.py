"""A one-line footer of the active keys, drawn as a single line of text.

Textual's ``Footer`` rebuilds a widget per key whenever the focus moves, which re-measures the
whole screen; on the compare screen the focus moves with nearly every key a reviewer presses, so
that cost would be paid on every score. This bar shows the same keys (the bindings marked
``show``, grouped like the footer groups them) and only repaints when they change. Clicking a
key presses it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual.events import Click
from textual.screen import Screen
from textual.widget import Widget

PINNED_KEYS = frozenset({"q", "question_mark"})
"""Quit, and the help key: always shown, the help since it lists every key the bar has no room
for."""

APP_SCREEN_KEYS = frozenset({"app.judge", "app.disagreements", "app.agreement", "app.results"})
"""The app's keys that open another screen: left out of the judging screens' bars (they have
room for their own keys only); still active, and listed by the help."""


@dataclass(frozen=True)
class ShownKey:
    key: str
    """The key pressed when this entry is clicked."""
    display: str
    description: str
    action: str = ""
    """The binding's action (which entries ``KeyBar.first`` keeps first)."""


class KeyBar(Widget):
    """The keys of the screen and of the focused widget, one line at the bottom."""

    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: 1;
        background: $footer-background;
        color: $footer-foreground;
        & > .key-bar--key { color: $footer-key-foreground; text-style: bold; }
    }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {"key-bar--key"}

    def __init__(
        self,
        *,
        hide: frozenset[str] = frozenset(),
        first: tuple[str, ...] = (),
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.hide = hide
        """Ids of bindings left out of the bar (still active, and listed by the help screen)."""
        self.first = first
        """Actions kept before any other when the bar is short of room (a judging screen's
        submit and next item), still shown in their place."""
        self.entries: tuple[ShownKey, ...] = ()
        self._spans: list[tuple[int, int, str]] = []

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self._bindings_changed(self.screen)

    def _bindings_changed(self, screen: Screen[object]) -> None:
        if screen is not self.screen:
            return
        entries = self.active_entries()
        if entries != self.entries:
            self.entries = entries
            self.refresh()

    def active_entries(self) -> tuple[ShownKey, ...]:
        """The keys to show: one entry per action; a group's keys share one description."""
        shown: list[ShownKey] = []
        seen_actions: set[str] = set()
        groups: dict[str, int] = {}
        for _node, binding, enabled, _tooltip in self.screen.active_bindings.values():
            if not binding.show or not enabled or binding.action in seen_actions:
                continue
            if binding.id is not None and binding.id in self.hide:
                continue
            seen_actions.add(binding.action)
            display = self.app.get_key_display(binding)
            group = binding.group
            if group is not None:
                if group.description in groups:
                    index = groups[group.description]
                    old = shown[index]
                    joined = f"{old.display}{'' if group.compact else ' '}{display}"
                    shown[index] = ShownKey(old.key, joined, old.description)
                    continue
                groups[group.description] = len(shown)
                shown.append(ShownKey(binding.key, display, group.description, binding.action))
                continue
            shown.append(ShownKey(binding.key, display, binding.description, binding.action))
        palette = self.screen.active_bindings.get(self.app.COMMAND_PALETTE_BINDING)
        if self.app.ENABLE_COMMAND_PALETTE and palette is not None:
            binding = palette.binding
            shown.append(
                ShownKey(binding.key, self.app.get_key_display(binding), binding.description)
            )
        return tuple(shown)

    def fitting(self, width: int) -> tuple[ShownKey, ...]:
        """The entries that fit in ``width`` cells, never cut in half, in their order: the help
        key (which lists every key, those left out here included) always, last, saying how
        many keys only it lists; beside it the actions of ``first``, then as many of the others
        as fit, each in its place; the command palette's entry goes first when room is short."""
        entries = list(self.entries)

        def cells(shown: list[ShownKey]) -> int:
            return sum(len(e.display) + len(e.description) + 3 for e in shown)

        if cells(entries) <= width:
            return tuple(entries)
        pinned = [e for e in entries if e.key in PINNED_KEYS]
        rest = [e for e in entries if e.key not in PINNED_KEYS and e.key != "ctrl+p"]
        rest.sort(key=lambda e: e.action not in self.first)  # stable: the others keep their order
        kept: list[ShownKey] = []
        for entry in rest:
            left_out = len(entries) - len(pinned) - len(kept) - 1
            if cells([*kept, entry, *self._saying(pinned, left_out)]) > width:
                break
            kept.append(entry)
        pinned = self._saying(pinned, len(entries) - len(pinned) - len(kept))
        return (*[e for e in entries if e in kept], *pinned)

    @staticmethod
    def _saying(pinned: list[ShownKey], left_out: int) -> list[ShownKey]:
        """The pinned entries, the help key's saying how many keys only it lists."""
        if left_out <= 0:
            return pinned
        return [
            ShownKey(e.key, e.display, f"{e.description} +{left_out}", e.action)
            if e.key == "question_mark"
            else e
            for e in pinned
        ]

    def render(self) -> Text:
        key_style = self.get_component_rich_style("key-bar--key")
        text = Text(no_wrap=True, overflow="crop", end="")
        self._spans = []
        for entry in self.fitting(self.size.width):
            start = text.cell_len
            text.append(f" {entry.display} ", key_style)
            text.append(f"{entry.description} ")
            self._spans.append((start, text.cell_len, entry.key))
        return text

    def on_resize(self) -> None:
        self.refresh()

    def on_click(self, event: Click) -> None:
        for start, end, key in self._spans:
            if start <= event.x < end:
                self.app.simulate_key(key)
                return
