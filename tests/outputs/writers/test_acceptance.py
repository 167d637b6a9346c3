"""bom export anta / cvt / expected-topology: each file read by its consumer (ANTA's own catalog loader, the
workbook library CVT's file is read with) and checked against the cable plan it is written from, row for row."""

from __future__ import annotations

import io
import json
from collections import Counter

import pytest

from bom import pipeline
from bom.cableplan import rows as plan
from bom.inputs.scenario import load_scenario
from bom.outputs.writers import acceptance
from bom.pipeline import exports
from bom.rules.lengths import LOSS_MARGIN_DB
from tests.paths import TESTS

#: Every tier in a small design: NVLink (DGX H100), InfiniBand compute, Ethernet storage and OOB, the DCI line.
TWO_SITE = TESTS / "netbox" / "scenarios" / "two-site.yaml"


def _built(path):
    sc, src = load_scenario(path)
    cat = pipeline.catalog_for(sc, src, None, None)
    return sc.name, pipeline.build_scenario(sc, src, cat), cat


def _files(kind, model, cat, name):
    return exports.rendered(exports.export(kind, model, cat, name))


@pytest.fixture(scope="module")
def two_site():
    return _built(TWO_SITE)


def _switch_ends(rows, fabrics):
    """(fabric, switch, port) of every switch end the plan has in ``fabrics`` (runs of one link once)."""
    c = plan.COL
    out = set()
    for r in rows:
        if r[c["fabric"]] in fabrics:
            for s in ("a", "b"):
                if acceptance.is_switch(r[c[f"{s}_role"]]) and acceptance.eos_port(r[c[f"{s}_port"]]):
                    out.add((r[c["fabric"]], r[c[f"{s}_device"]], acceptance.eos_port(r[c[f"{s}_port"]])))
    return out


def _check_anta(name, model, cat, tmp_path, least_switches=0):
    from anta.catalog import AntaCatalog

    files = _files("anta", model, cat, name)
    ethernet = (set(model.fabrics) - exports.infiniband(model, cat)) | ({"dci"} if model.dci else set())
    expected = _switch_ends(plan.rows(model, catalog=cat), ethernet)
    seen = set()
    for fname, data in files.items():
        fabric = fname.removeprefix(f"{name}-").removesuffix("-anta.yml")
        (tmp_path / fname).write_bytes(data)
        parsed = AntaCatalog.parse(tmp_path / fname)   # ANTA's loader: every input validated by its models
        lldp = [t for t in parsed.tests if t.test.__name__ == "VerifyLLDPNeighbors"]
        assert len(lldp) >= least_switches or fabric != "oob"
        for t in lldp:
            (switch,) = t.inputs.filters.tags
            seen |= {(fabric, switch, n.port) for n in t.inputs.neighbors}
        speeds = [t for t in parsed.tests if t.test.__name__ == "VerifyInterfacesSpeed"]
        assert all(i.description.startswith("expected ") for t in speeds for i in t.inputs.interfaces)
    assert seen == expected


def test_anta_catalogs_load_and_hold_every_switch_port_of_the_plan(two_site, tmp_path):
    _check_anta(*two_site, tmp_path)


@pytest.mark.slow
def test_anta_catalogs_of_the_default_load_278_oob_switches(default_report, catalog, tmp_path):
    """The default design's OOB fabric: 278 switches (the 200+ device case), each with its tests."""
    _check_anta("gb300-two-sites", default_report.model, catalog, tmp_path, least_switches=200)


def test_anta_takes_the_transceiver_the_plan_puts_in_each_cage(two_site):
    name, model, cat = two_site
    text = _files("anta", model, cat, name)[f"{name}-storage-anta.yml"].decode()
    c = plan.COL
    row = next(r for r in plan.rows(model, catalog=cat) if r[c["fabric"]] == "storage" and r[c["b_module"]])
    port = acceptance.eos_port(row[c["b_port"]])
    assert f"name: {port}\n" in text
    assert f"expected transceiver {row[c['b_module']]}; to {row[c['a_device']]} {row[c['a_port']]}" in text


def test_cvt_workbook_agrees_with_the_plan_row_for_row(two_site):
    _check_cvt(*two_site)


def _check_cvt(name, model, cat):
    from openpyxl import load_workbook

    book = load_workbook(io.BytesIO(_files("cvt", model, cat, name)[f"{name}-cvt-p2p.xlsx"]),
                         read_only=True)
    c = plan.COL
    rows = list(plan.rows(model, catalog=cat))
    got = {ws.title: list(ws.iter_rows(values_only=True)) for ws in book.worksheets}
    assert Counter({k: len(v) - 1 for k, v in got.items()}) == Counter(r[c["fabric"]] for r in rows)
    at = {h: i for i, h in enumerate(acceptance.CVT_HEADER)}
    by_id = {v[at["Cable-ID"]]: v for sheet in got.values() for v in sheet[1:]}
    ib = exports.infiniband(model, cat)
    assert ib == {"compute"}
    for r in rows:
        v = by_id[r[c["cable_id"]]]
        assert (v[at["A-Node Name"]], v[at["A-Plan-Port"]], v[at["Z-Node Name"]], v[at["Z-Plan-Port"]]) == \
            (r[c["a_device"]], r[c["a_port"]], r[c["b_device"]], r[c["b_port"]])
        assert v[at["Protocol"]] == ("ib" if r[c["fabric"]] in ib else "ethernet")
        for side, z in (("a", "A"), ("b", "Z")):
            switch = acceptance.is_switch(r[c[f"{side}_role"]])
            assert v[at[f"{z}-Type"]] == ("Switch" if switch else "Host")
            if switch and r[c[f"{side}_port"]].startswith("p"):
                want = r[c[f"{side}_port"]][1:] if r[c["fabric"]] in ib else "swp"
                assert str(v[at[f"{z}-Port"]]).startswith(want)
    assert all(sheet[0] == acceptance.CVT_HEADER for sheet in got.values())


def test_expected_topology_agrees_with_the_plan_row_for_row_on_every_tier(two_site):
    _check_expected(*two_site, {"nvlink", "compute", "storage", "oob", "dci"})


@pytest.mark.slow
def test_the_defaults_cvt_and_expected_topology_agree_with_its_plan(default_report, catalog):
    """The default design: 15,651 scale-out and DCI rows in the workbook, 98,595 links with NVLink."""
    _check_cvt("gb300-two-sites", default_report.model, catalog)
    _check_expected("gb300-two-sites", default_report.model, catalog,
                    {"nvlink", "compute", "storage", "inband", "oob", "dci"})


def _check_expected(name, model, cat, fabrics):
    doc = json.loads(_files("expected-topology", model, cat, name)[f"{name}-expected-topology.json"])
    c = plan.COL
    rows = list(plan.rows(model, catalog=cat, scale_up=True))
    links = doc["links"]
    assert [link["cable_id"] for link in links] == [r[c["cable_id"]] for r in rows]
    for link, r in zip(links, rows, strict=True):
        for s in ("a", "b"):
            assert (link[s]["device"], link[s]["port"], link[s]["module"]) == \
                (r[c[f"{s}_device"]], r[c[f"{s}_port"]], r[c[f"{s}_module"]])
    assert doc["counts"] == dict(sorted(Counter(f"{r[c['tier']]}/{r[c['fabric']]}/{r[c['hop']]}"
                                                for r in rows).items()))
    assert {link["tier"] for link in links} == {"scale-up", "scale-out", "scale-across"}
    assert {link["fabric"] for link in links} == fabrics


def test_every_fibre_run_has_its_receive_window_from_the_loss_rule(two_site):
    name, model, cat = two_site
    doc = json.loads(_files("expected-topology", model, cat, name)[f"{name}-expected-topology.json"])
    fibre = ("multimode", "smf-parallel", "smf-duplex")
    windows = [(link, link["rx_window"]) for link in doc["links"]]
    for link, w in windows:
        if link["medium"] in fibre and link["hop"] != "mux-amplifier":
            assert w is not None, link
            assert 0 < w["expected_loss_db"] < w["max_loss_db"]
            assert w["rx_db_relative_to_launch"] == [-w["max_loss_db"], -w["expected_loss_db"]]
        if link["medium"] in ("passive-copper", "active-copper", "aoc", "copper"):
            assert w is None
    line = next(w for link, w in windows if link["hop"] == "fibre-pair")
    d = model.dci
    assert line["expected_loss_db"] == pytest.approx(d.loss.total_db, abs=1e-3)
    # A multimode run's budget is the modules' less the rule's margin.
    mm = next(link for link, _ in windows if link["medium"] == "multimode" and link["rx_window"])
    budgets = {g.choice.option.loss_budget_db for g in model.groups if g.medium == "multimode"}
    assert any(abs(mm["rx_window"]["max_loss_db"] + LOSS_MARGIN_DB - b) < 1e-3 for b in budgets)


def test_an_unknown_kind_is_refused_with_the_kinds(two_site):
    from bom.errors import BomError

    name, model, cat = two_site
    with pytest.raises(BomError) as e:
        exports.export("nope", model, cat, name)
    assert "anta" in (e.value.hint or "")
