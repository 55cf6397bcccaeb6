"""The typing guard applied to a screen whose keys act at once on a judgment form.

The compare screen and the adjudication screen both have a :class:`JudgmentForm` whose rows take
single keys (a score, a choice, a tick) and screen keys that submit, record or leave. A sentence
typed there while no text field has the focus would decide, submit or leave letter by letter.
:class:`TypingShield` asks the pure rules of :mod:`abp_tui.tui.typing_guard` about each key as
the app receives it, and carries out their verdict on the screen: it drops the key, defers a key
that submits or leaves for a moment (dropped if a letter follows), undoes a letter's decision
when typing follows it, and tells the reviewer once per burst. A screen using it inherits
:class:`HoldsBackTyping` (the app asks those screens about every key first) and answers the
few questions of :class:`FormHost`.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any, ClassVar, NamedTuple, Protocol, cast

from textual import events
from textual.app import App
from textual.containers import VerticalScroll
from textual.dom import DOMNode
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Input

from abp_tui.models import Judgment
from abp_tui.tui.typing_guard import KeyFacts, TypingGuard
from abp_tui.tui.widgets.choices import ChoiceRow
from abp_tui.tui.widgets.judgment_form import JudgmentForm

_UNKNOWN: Any = object()
"""What a decision key's row held when the focus was not on a row of choices."""


class Tentative(NamedTuple):
    """A decision key that may turn out to be the first letter of typing."""

    judgment: Judgment
    """The form's judgment before the key."""
    focused: Widget | None
    """What had the focus when the key came."""
    key: str
    """The key's character."""
    row_value: Any
    """The focused row's choice before the key (``_UNKNOWN``: not a row of choices)."""


FORM_KEYS = frozenset({"tab", "shift+tab", "left_curly_bracket", "right_curly_bracket"})
"""Keys that move through the form: on a narrow terminal they bring it on screen."""


class FormHost(Protocol):
    """What the shield needs of its screen besides the screen itself."""

    @property
    def form(self) -> JudgmentForm: ...

    @property
    def form_shown(self) -> bool:
        """The form is on screen (a narrow terminal shows the texts or the form in turn)."""
        ...

    def show_form(self, shown: bool) -> None: ...

    def restore_judgment(self, before: Judgment) -> None:
        """Put ``before`` back in the form, as the reviewer's own change (stored as drafts are)."""
        ...


PENDING_SECONDS = 1.0
"""How long a decision found to be typing may take to reach the form and still be undone."""


class TypingShield:
    """Holds back typing on ``screen``, whose judgment form ``host`` describes."""

    def __init__(self, screen: Screen[Any], host: FormHost) -> None:
        self.screen = screen
        self.host = host
        self.guard = TypingGuard()
        self._keys: frozenset[str] | None = None
        self._tentative: Tentative | None = None
        """The judgment and the focus before the last decision key, and the key's character."""
        self._deferred: Timer | None = None
        """The key that submits or leaves, waiting for the guard's moment to act."""
        self._waiting: list[tuple[str, str | None, float]] | None = None
        """Keys typed before the form was there (key, character, when on the guard's clock);
        None: keys are judged as they come."""
        self._replayed: dict[events.Key, float] = {}
        """The keys that waited, sent again, with when they were typed."""
        self._sending = False
        self._undo_on_change: tuple[Tentative, float] | None = None
        """A decision found to be typing before it reached the form (keys that came in one
        burst, as a terminal sends a fast typist's or a pasted line's): undone when it does."""

    @property
    def deferring(self) -> bool:
        """A key that submits or leaves is waiting for its moment (it acts unless a letter
        follows), or keys typed before the form are still being sent."""
        return self._deferred is not None or self._sending

    def keys_changed(self) -> None:
        """The screen's widgets changed (a form built anew brings its rows' keys)."""
        self._keys = None

    # -- keys typed before the form is there -------------------------------------------------
    def wait_for_form(self) -> None:
        """From now until :meth:`form_ready`, keys wait instead of acting: the form they are
        meant for is not there yet (a screen shows its texts first, then builds its form)."""
        if self._waiting is None:
            self._waiting = []

    def form_ready(self) -> None:
        """The form is there (or will not be: no item): the keys that waited are sent again,
        in order, each once the one before it has been handled, as a person's keys come, and
        judged by the guard at the moment it was typed (keys typed meanwhile wait behind)."""
        if self._waiting is not None and not self._sending:
            self._sending = True
            app = self.screen.app
            app.run_worker(self._send_waiting(), group="typing-waited", description="Keys typed")

    async def _send_waiting(self) -> None:
        app = self.screen.app
        waiting = self._waiting or []
        while waiting and app.is_running:
            if self._deferred is not None:  # a key that submits or leaves acts first
                await asyncio.sleep(self.guard.defer_seconds / 4)
                continue
            key, character, at = waiting.pop(0)
            again = events.Key(key, character)
            self._replayed[again] = at
            app.post_message(again)
            await _handled(app)
        self._waiting = None
        self._sending = False

    def typed_before(self, keys: list[tuple[str, str | None, float]]) -> None:
        """Keys typed before the screen was there (key, character, when on the guard's
        clock): they come first, and wait for the form like the keys typed since."""
        if self._waiting is None:  # the form is there: they are sent now
            self._waiting = list(keys)
            self.form_ready()
        else:
            self._waiting[:0] = keys

    def holds_back(self, event: events.Key) -> bool:
        """Whether a key is typing meant for a text field, to be ignored (or waits for the
        form: it is sent again once the form is there)."""
        at = self._replayed.pop(event, None)
        if at is None and self._waiting is not None:
            self._waiting.append((event.key, event.character, self.guard.clock()))
            return True
        return self._judge(event, at)

    def _judge(self, event: events.Key, at: float | None) -> bool:
        screen = self.screen
        in_field = isinstance(screen.focused, Input)
        active = None
        if in_field or not event.is_printable:
            facts = KeyFacts(in_field, event.is_printable)
        else:
            active = screen.active_bindings.get(event.key)
            facts = KeyFacts(
                False,
                True,
                bound=active is not None,
                binding_id=active.binding.id if active is not None else None,
                bound_elsewhere=event.key in self._screen_keys(),
                # The focused row's keys are priority bindings: those are scores.
                score=active is not None and active.binding.priority,
            )
        verdict = self.guard.holds_back(facts, at)
        moves_in_form = event.key in FORM_KEYS
        host = self.host
        if not host.form_shown and (facts.score or in_field or moves_in_form) and not verdict.hold:
            # A decision is never made on a form the reviewer cannot see: it comes on screen.
            host.show_form(True)
        if verdict.cancel and self._deferred is not None:
            self._deferred.stop()
            self._deferred = None
        undone = self._undo_tentative(event.character) if verdict.undo else ""
        self._tentative = None
        if verdict.defer and active is not None:
            binding, node = active.binding, active.node
            self._deferred = screen.set_timer(
                self.guard.defer_seconds, lambda: self._act_deferred(binding.action, node)
            )
            return True
        if verdict.announce:
            # In a field a letter had moved the focus to, the words typed there stay: only the
            # letter's decision was not the reviewer's.
            title, said = (
                ("Typing, not a decision", "Keys act at once unless a text field has the focus.")
                if in_field
                else (
                    "Typing ignored",
                    "No text field had the focus, so keys act at once here: the typing was "
                    "ignored.",
                )
            )
            screen.notify(
                (f"{undone} " if undone else "")
                + f"{said} Tab moves to the next field; Esc leaves a field.",
                title=title,
                severity="warning",
                markup=False,
            )
        if not verdict.hold and facts.score:
            # A decision key: what the form held before it, in case it was typing after all.
            focused = screen.focused
            self._tentative = Tentative(
                host.form.judgment,
                focused,
                event.character or "",
                focused.value if isinstance(focused, ChoiceRow) else _UNKNOWN,
            )
            if not (event.character or "").isdigit():
                # Tentative from now, not only once its change reaches the form: the next key
                # of a burst is judged before that.
                self.guard.decided(letter=True)
        return verdict.hold

    def form_hidden(self, focused: Widget | None) -> None:
        """The form was just hidden (a narrow terminal shows the texts) while ``focused`` had
        the focus. Textual moves the focus off a widget that is hidden, to a sibling; for the
        preference row that is the justification field, where the next key would be typed out
        of sight. The focus goes back to ``focused``: the form's keys act there and bring it
        back on screen."""
        if focused is None or isinstance(focused, Input):
            return

        def back() -> None:
            if isinstance(self.screen.focused, Input) and focused.is_attached:
                self.screen.set_focus(focused, scroll_visible=False)

        self.screen.call_after_refresh(back)

    def judgment_changed(self, urgent: bool) -> None:
        """The form changed; a key's change (urgent) made by any key but a digit (a score)
        stays tentative: a letter, or a space that ticks a criterion amid words."""
        pending, self._undo_on_change = self._undo_on_change, None
        if pending is not None and urgent and self.guard.clock() - pending[1] < PENDING_SECONDS:
            self._restore(pending[0], first_letter=True)
            return
        if self._tentative is not None and urgent:
            self.guard.decided(letter=not self._tentative.key.isdigit())

    async def _act_deferred(self, action: str, node: DOMNode) -> None:
        """A key that submits or leaves, held back a moment, acts: no letter followed it."""
        self._deferred = None
        self.guard.deferred_done()
        screen = self.screen
        if screen.is_attached and screen.app.screen is screen:
            await screen.app.run_action(action, node)

    def _undo_tentative(self, typed: str | None) -> str:
        """Undo the decision a letter made just before typing began; say what was undone."""
        tentative, self._tentative = self._tentative, None
        if tentative is None:
            return ""
        row = tentative.focused
        if isinstance(row, ChoiceRow) and row.value == tentative.row_value:
            # The letter chose what its row held (a row takes its choice at once, before the
            # form hears of it): no decision changed, so none is undone or waits to be (a
            # decision key soon after is the reviewer's). The focus it moved goes back.
            self._restore(tentative, first_letter=False, judgment=False)
            return f"The key {tentative.key!r} was the start of typing; it changed no decision."
        if tentative.judgment == self.host.form.judgment:
            # Its change has not reached the form yet (a burst of keys): undone when it does.
            self._undo_on_change = (tentative, self.guard.clock())
        else:
            self._restore(tentative, first_letter=False)
        return f"The key {tentative.key!r} was the start of typing: its decision was undone."

    def _restore(self, tentative: Tentative, first_letter: bool, judgment: bool = True) -> None:
        """The judgment (unless ``judgment`` is False: it did not change) and the focus as they
        were before the letter; the letter goes to the field it moved the focus to, before what
        followed it there (``first_letter``: when nothing followed it there, the rest was held
        back as typing, and so is the letter)."""
        before, focused_before, letter, _value = tentative
        focused_now = self.screen.focused
        if judgment:
            self.host.restore_judgment(before)
        if (
            isinstance(focused_now, Input)
            and focused_now is not focused_before
            and letter
            and (focused_now.value or not first_letter)
        ):
            # The letter had moved the focus to this field: it was the field's first letter.
            value = focused_now.value
            focused_now.value = letter + value if first_letter else value + letter
            focused_now.cursor_position = len(focused_now.value)
        elif focused_before is not None and focused_before.is_attached:
            self.screen.set_focus(focused_before)

    def _screen_keys(self) -> frozenset[str]:
        """Every key bound anywhere on the screen or by the app, whatever has the focus."""
        if self._keys is None:
            keys: set[str] = set(self.screen.app._bindings.key_to_bindings)
            for node in self.screen.walk_children(with_self=True):
                keys.update(node._bindings.key_to_bindings)
            self._keys = frozenset(keys)
        return self._keys


async def _handled(app: App[Any]) -> None:
    """Wait until a key posted to ``app`` has been handled: by the app, then by the focused widget
    and each ancestor on the way to the screen (one round per hop), with what it posted there
    (a form's change reaches the screen before the next key is judged)."""
    focused = app.focused
    for _ in range(len(focused.ancestors_with_self) + 1 if focused is not None else 2):
        if not app.is_running:
            return
        nodes: set[DOMNode] = {app, app.screen}
        if app.focused is not None:
            nodes.update(app.focused.ancestors_with_self)
        waits = []
        for node in nodes:
            done = asyncio.Event()
            if node.call_later(done.set):
                waits.append(done.wait())
        await asyncio.gather(*waits)


NARROW_WIDTH = 110
"""Below this many columns a judging screen shows its texts or its form in turn."""


class TakesTurns:
    """A judging screen whose texts and form take turns on a narrow terminal: ``o``, Tab or a
    scoring key bring the form (the panel ``FORM_PANEL``), Escape the texts again."""

    FORM_PANEL: ClassVar[str]
    """The selector of the container that holds the form."""
    shield: TypingShield

    @property
    def narrow(self) -> bool:
        return 0 < cast(Screen[Any], self).size.width < NARROW_WIDTH

    @property
    def form_shown(self) -> bool:
        """The form is on screen (always, unless the terminal is narrow)."""
        return not self.narrow or cast(Screen[Any], self).has_class("-form-shown")

    def on_resize(self) -> None:
        cast(Screen[Any], self).refresh_bindings()

    def show_form(self, shown: bool) -> None:
        screen = cast(Screen[Any], self)
        if shown == screen.has_class("-form-shown"):
            return
        screen.set_class(shown, "-form-shown")
        if shown:
            panel = screen.query_one(self.FORM_PANEL, VerticalScroll)
            panel.scroll_to_widget(screen.focused or panel.query_one(JudgmentForm), animate=False)
        else:
            self.shield.form_hidden(screen.focused)
        screen.refresh_bindings()

    def action_toggle_form(self) -> None:
        self.show_form(not cast(Screen[Any], self).has_class("-form-shown"))


class HoldsBackTyping:
    """A screen whose keys act at once: the app asks it about every key before any binding."""

    shield: TypingShield

    @property
    def guard(self) -> TypingGuard:
        """The rules, with their clock and their moment (a test sets its own)."""
        return self.shield.guard

    def holds_back(self, event: events.Key) -> bool:
        return self.shield.holds_back(event)

    def typed_before(self, keys: list[tuple[str, str | None, float]]) -> None:
        """Keys typed before the screen was there, in order (see ``TypingShield``)."""
        self.shield.typed_before(keys)

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """A notice replaces the ones before it: the reviewer reads what is true now, never
        "Cannot submit" beside "Submitted" (from a worker thread it is only added)."""
        app = cast(Any, self).app
        if threading.get_ident() == app._thread_id:
            app.clear_notifications()
        app.notify(message, title=title, severity=severity, timeout=timeout, markup=markup)
