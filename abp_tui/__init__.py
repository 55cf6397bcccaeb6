"""abp-tui: an offline adjudication workstation for AI-agent and LLM benchmark results.

Everything in this package except :mod:`abp_tui.tui` works without a terminal and never
imports Textual; the CLI and the TUI are two thin faces over the same core functions.
"""

__version__ = "0.1.0"
