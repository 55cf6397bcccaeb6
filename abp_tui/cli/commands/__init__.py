"""The commands, one module per area. Each command parses nothing itself (``cli.parser`` did),
calls one core function, and prints through ``cli.output``: no SQL, no rules, no statistics here.

Every command imports what it uses inside its function, so ``abp-tui status`` never pays for
the import machinery, the statistics or the exporters.
"""
