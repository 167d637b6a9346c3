"""Even shares (bom/model/shares.py): the runs of units one part and one block take are the units
:func:`share` gives, in order."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bom.model.shares import runs, share


@given(total=st.integers(0, 400), parts=st.integers(1, 40), block=st.integers(1, 64))
def test_runs_spell_out_share_and_blocks(total: int, parts: int, block: int) -> None:
    got = [(part, b) for n, part, b in runs(total, parts, block) for _ in range(n)]
    assert got == [(share(u, total, parts), u // block) for u in range(total)]
    assert all(n > 0 for n, _, _ in runs(total, parts, block))
