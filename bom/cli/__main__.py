"""``python -m bom.cli``: the same commands as ``bom``."""

from bom.cli import main

main()
