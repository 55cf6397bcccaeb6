"""Benchmarks that print JSON, each figure beside a baseline measured in the same run.

TO BE IMPLEMENTED.
"""

from __future__ import annotations

import argparse
from typing import Any

from abp_tui.errors import AbpError


def run(what: str, args: argparse.Namespace) -> dict[str, Any]:
    raise AbpError(f"bench {what}: not implemented yet")
