"""Reusable widgets of the judging screens (response panes, scoring rows)."""
