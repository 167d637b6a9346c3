"""Every document the code cites is in the repository (a user's clone has nothing beside it)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CITED = re.compile(r"\b(docs/[a-z-]+\.md|[A-Z][A-Z_]+\.md)\b")


def test_cited_markdown_files_exist() -> None:
    missing = []
    for path in [*ROOT.joinpath("bom").rglob("*.py"), *ROOT.joinpath("tests").rglob("*.py")]:
        for name in CITED.findall(path.read_text()):
            if not any((ROOT / folder / name).exists() for folder in ("", "docs", "catalogs")):
                missing.append(f"{path.relative_to(ROOT)}: {name}")
    assert missing == []
