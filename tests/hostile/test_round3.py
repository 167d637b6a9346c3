"""Round three's smaller classes (issue 24): long output folder names, `bom init` over what exists
or through a link, a starter that cannot build, a symlinked output folder, a number format the
GPU does not run."""

from __future__ import annotations

import os

import pytest

from tests.hostile.conftest import SMALL, check, leftovers, run, write


@pytest.mark.slow   # three builds: about 3 s
def test_a_240_byte_folder_name_is_written(tmp_path):
    scenario = write(tmp_path, "s.yaml", SMALL)
    for name in ("a" * 240, "\u00e9" * 127, "b" * 255):   # bytes: 240, 254, 255 (the longest a name may be)
        out = tmp_path / name
        check(run("build", str(scenario), "-o", str(out), "-q"), code=0)
        assert (out / "small.json").is_file()
        check(run("build", str(scenario), "-o", str(out), "-q"), code=0)   # over the first: exchanged in
    assert not leftovers(tmp_path)


def test_init_over_an_existing_file_exits_2_and_keeps_it(tmp_path):
    path = write(tmp_path, "s.yaml", "mine\n")
    check(run("init", str(path)), key="exists already")
    assert path.read_text() == "mine\n"


@pytest.mark.slow   # about 2.5 s
def test_init_never_writes_through_a_link(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    folder = tmp_path / "here"
    folder.mkdir()
    os.symlink(outside / "target.yaml", folder / "s.yaml")          # dangling
    os.symlink(tmp_path / "real.yaml", folder / "t.yaml")
    write(tmp_path, "real.yaml", "keep\n")
    for name in ("s.yaml", "t.yaml"):
        for force in ([], ["--force"]):
            check(run("init", str(folder / name), *force), key="symbolic link")
    assert not (outside / "target.yaml").exists() and (tmp_path / "real.yaml").read_text() == "keep\n"
    check(run("init", str(folder / "new.yaml")), code=0)
    check(run("build", str(folder / "new.yaml"), "-o", str(tmp_path / "out"), "-q"), code=0)
    check(run("init", str(folder / "new.yaml"), "--force", "--platform", "dgx-h100"), code=0)
    assert "dgx-h100" in (folder / "new.yaml").read_text() and not leftovers(tmp_path)


def test_init_refuses_a_starter_that_cannot_build(tmp_path):
    path = tmp_path / "s.yaml"
    r = run("init", str(path), "--gpus", str(10 ** 20))
    check(r, key="--gpus")
    assert "does not build" in r.stderr and not path.exists()


def test_a_symlinked_output_folder_is_written_file_by_file(tmp_path):
    scenario = write(tmp_path, "s.yaml", SMALL)
    real = tmp_path / "real"
    real.mkdir()
    os.symlink(real, tmp_path / "link")
    check(run("build", str(scenario), "-o", str(tmp_path / "link"), "-q"), code=0)
    assert (real / "small.json").is_file() and os.path.islink(tmp_path / "link")
    assert not leftovers(tmp_path)


def test_a_dtype_the_gpu_does_not_run_is_refused(tmp_path):
    scenario = write(tmp_path, "s.yaml", "name: x\nplatform: dgx-h100\nworkload:\n  kind: serve\n  params: 70B\n"
                                         "  dtype: fp4\n")
    check(run("build", str(scenario), "-o", str(tmp_path / "out"), "-q"), where=f"{scenario}:6",
          key="workload.dtype")
    scenario.write_text(scenario.read_text().replace("fp4", "fp8"))
    check(run("build", str(scenario), "-o", str(tmp_path / "out"), "-q"), code=0)
