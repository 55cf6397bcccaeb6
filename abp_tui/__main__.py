"""``python -m abp_tui``: the same entry point as the ``abp-tui`` console script."""

from abp_tui.cli import main

raise SystemExit(main())
