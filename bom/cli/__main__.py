"""``python -m bom.cli``: the same commands as ``bom``."""

from bom.cli import main

if __name__ == "__main__":   # not in a `bom sweep` worker, which spawns with this module as its main
    main()
