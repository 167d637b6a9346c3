"""What people type for a job: 70B, 1.8T, 405e9, 15T, fine-tune."""

from __future__ import annotations

import pytest

from bom.inputs.workload import Workload, parse_count


@pytest.mark.parametrize("text,value", [("70B", 70e9), ("1.8T", 1.8e12), ("405e9", 405e9), ("15T", 15e12),
                                        (70e9, 70e9), ("8k", 8e3), ("1,000", 1e3), ("7 B", 7e9)])
def test_counts(text, value):
    assert parse_count(text) == pytest.approx(value)


@pytest.mark.parametrize("text", ["70 GB", "seventy", "", True])
def test_bad_counts(text):
    with pytest.raises(ValueError):
        parse_count(text)


def test_spellings_of_kind_and_counts():
    w = Workload.model_validate({"kind": "fine-tune", "params": "70B", "tokens": "2B", "deadline": "2 d"})
    assert w.kind == "finetune" and w.params == 70e9 and w.tokens == 2e9
    assert Workload.model_validate({"kind": "Pre-Train", "params": "1.8T", "tokens": "15T",
                                    "deadline": "90 d"}).kind == "pretrain"


def test_bad_count_in_a_scenario_names_file_line_and_key(bom, tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text("name: s\nplatform: dgx-h100\nworkload:\n  kind: pretrain\n  params: 70 GB\n"
                    "  tokens: 15T\n  deadline: 60 d\n")
    r = bom("size", str(path))
    assert r.exit_code == 2
    assert f"{path}:5: workload.params: cannot read '70 GB' as a count" in r.stderr
    assert r.stderr.strip().endswith(".")


def test_unitless_quantity_says_which_unit(bom, tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text("name: s\nplatform: dgx-h100\nnodes: 4\nsites: {count: 2, distance: 40, dci_fraction: 0.1}\n")
    r = bom("build", str(path), "-o", str(tmp_path / "o"))
    assert r.exit_code == 2 and "40 has no unit" in r.stderr and '"30 m"' in r.stderr
