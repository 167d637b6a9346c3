"""The review report in headless Chromium, the Markdown summary, and the JSON contract."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from tests.timeguard import needs_slow

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--enable-logging=stderr", "--v=0"]


def chromium():
    needs_slow("Chromium")   # a test that starts it is marked slow (tests/timeguard.py)
    exe = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if exe is None:
        pytest.skip("Chromium is not installed (scripts/test.sh installs it)")
    return exe


@pytest.mark.slow   # starts Chromium
def test_report_renders_with_the_diagram_and_the_json_counts(default_outputs, tmp_path):
    html = default_outputs[".html"]
    shot = tmp_path / "report.png"
    run = subprocess.run([chromium(), *FLAGS, f"--user-data-dir={tmp_path / 'profile'}",
                          f"--screenshot={shot}", "--window-size=1300,1800", html.as_uri()],
                         capture_output=True, text=True, timeout=120)
    assert shot.exists() and shot.stat().st_size > 20_000, run.stderr[-2000:]
    assert "Uncaught" not in run.stderr and "CONSOLE" not in run.stderr
    dom = subprocess.run([chromium(), *FLAGS, f"--user-data-dir={tmp_path / 'profile2'}", "--dump-dom",
                          html.as_uri()], capture_output=True, text=True, timeout=120).stdout
    assert '<svg id="diagram"' in dom
    tiers = json.loads(default_outputs[".json"].read_text())["tiers"]
    found = {m["tier"]: m for m in (x.groupdict() for x in re.finditer(
        r'class="boundary" data-tier="(?P<tier>[^"]+)" data-links="(?P<links>\d+)" '
        r'data-modules="(?P<modules>\d+)" data-fibre-runs="(?P<runs>\d+)"', dom))}
    assert set(found) == {"scale-out", "scale-across"}
    for tier, m in found.items():
        assert (int(m["links"]), int(m["modules"]), int(m["runs"])) == (
            tiers[tier]["links"], tiers[tier]["modules"], tiers[tier]["fibre_runs"])


def test_report_is_self_contained(default_outputs):
    html = default_outputs[".html"].read_text()
    assert "http://" not in html.replace("http://www.w3.org/2000/svg", "") and "https://" not in html
    assert "<script" not in html and "<link" not in html


def test_markdown_summary(default_outputs):
    md = default_outputs[".md"].read_text()
    j = json.loads(default_outputs[".json"].read_text())
    assert md.startswith(f"# {j['name']}")
    assert f"| scale-out | {j['tiers']['scale-out']['links']:,} |" in md


def test_json_contract(default_outputs):
    j = json.loads(default_outputs[".json"].read_text())
    for key in ("name", "platform", "gpus", "nodes", "domains", "racks", "sizing", "fabrics", "tiers", "lines",
                "totals"):
        assert key in j
    f = j["fabrics"]["compute"]
    for key in ("tier", "switch", "layers", "switches", "links", "modules", "copper_links", "optical_links"):
        assert key in f
    assert set(f["switches"]) == {"leaf", "spine", "core"} and set(f["modules"]) == {"node", "switch", "ufm"}
    assert set(j["tiers"]) == {"scale-up", "scale-out", "scale-across"}
    for key in ("links", "ports", "modules", "cables", "fibre_runs", "fibre_strands", "copper_links",
                "copper_share"):
        assert key in j["tiers"]["scale-out"]
    for key in ("sku", "description", "category", "tier", "quantity", "unit_price_usd", "unit_power_w"):
        assert key in j["lines"][0]
    for key in ("capex_usd", "it_power_kw", "facility_power_kw", "tco_usd", "usd_per_gpu_hour"):
        assert isinstance(j["totals"][key], float)
    assert isinstance(j["gpus"], int) and isinstance(j["lines"][0]["quantity"], int)
    # The lines add up to the totals.
    hardware = sum(x["quantity"] * x["unit_price_usd"] for x in j["lines"])
    assert hardware == pytest.approx(j["totals"]["hardware_usd"], rel=1e-9)


def _text(html):
    body = re.sub(r"<style>.*?</style>", "", html, flags=re.S)
    return re.sub(r"<[^>]+>", " ", body)


def test_numbers_read_like_a_report(default_outputs):
    text = _text(default_outputs[".html"].read_text())
    assert re.findall(r"\b\d+\.0\b", text) == []                       # no "150.0 kW", no "40.0"
    # Thousands separators: a bare number of four or more digits is a year in a source, nothing else.
    bare = re.findall(r"(?<![\d.,\-/A-Za-z])\d{4,}(?![\d\-])", text)
    assert all(re.fullmatch(r"(19|20)\d\d", b) for b in bare), bare
    assert re.search(r"\d kW", text) and "40 km" in text                # units on kW and on the dark fibre


#: Measures the page in the browser: nothing wider than the window, the rack elevations' text at
#: least 10 px and inside its slot.
PAGE_PROBE = """<script>
const wide = [...document.querySelectorAll('table, svg')].filter(e => e.getBoundingClientRect().right > innerWidth)
  .map(e => e.id || e.tagName);
const small = [...document.querySelectorAll('#elevation text')]
  .filter(t => parseFloat(t.getAttribute('font-size')) < 10).map(t => t.textContent);
const spill = [...document.querySelectorAll('#elevation g.slot')].filter(g => {
  const r = g.querySelector('rect').getBBox(), t = g.querySelector('text');
  if (!t) return false; const b = t.getBBox();
  return b.y < r.y - 0.5 || b.y + b.height > r.y + r.height + 2 || b.x + b.width > r.x + r.width; })
  .map(g => g.textContent.trim());
const out = document.createElement('pre'); out.id = 'page';
out.textContent = JSON.stringify({scroll: document.documentElement.scrollWidth, inner: innerWidth, wide, small, spill});
document.body.appendChild(out);
</script>"""


@pytest.mark.slow   # starts Chromium
@pytest.mark.parametrize("which", ["default", "campus-4-mesh", "pod-8-all-fabrics"])
def test_report_fits_the_window_and_racks_are_legible(bom, default_outputs, tmp_path, which):
    from tests.outputs.writers.test_diagram import CAMPUS_MESH, POD_ALL, _build

    html = default_outputs[".html"] if which == "default" else _build(
        bom, tmp_path, CAMPUS_MESH if which.startswith("campus") else POD_ALL)[0]
    page = tmp_path / "page.html"
    page.write_text(html.read_text().replace("</body>", PAGE_PROBE + "</body>"))
    dom = subprocess.run([chromium(), *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1400,1000",
                          "--virtual-time-budget=5000", "--dump-dom", page.as_uri()],
                         capture_output=True, text=True, timeout=120).stdout
    m = re.search(r'<pre id="page">(.*?)</pre>', dom, re.S)
    assert m, dom[-2000:]
    probe = json.loads(m.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    assert probe["wide"] == [] and probe["scroll"] <= probe["inner"], probe
    assert probe["small"] == [] and probe["spill"] == [], probe
    assert "#elevation" not in dom or 'id="elevation"' in dom


# --- issue 42: every warning and "why" reaches the user, through one list ---------------------

def _shown(md: str, html_text: str, xlsx) -> tuple[str, str, list[tuple[object, ...]]]:   # type: ignore[no-untyped-def]
    import html as html_mod

    import openpyxl

    rows = list(openpyxl.load_workbook(xlsx, read_only=True)["Checks"].iter_rows(values_only=True))
    return md.replace("\\", ""), html_mod.unescape(html_text), rows


def test_every_warning_of_the_default_is_a_report_line_and_a_checks_row(default_report, default_outputs):
    from bom.outputs.writers.xlsx import WARNING_ROW, warning_parts

    said = default_report.model.warnings
    # The JSON's whys of the default: where the UFM ports went, the storage defaulted, the OOB's own
    # spines, the coherent line amplified: each a warning of the model, so of the report.
    assert [w.split(":")[0] for w in said] == ["fabrics.storage has no storage block", "fabrics.compute",
                                              "fabrics.oob", "sites"]
    assert set(said) <= set(default_report.warnings)
    assert json.loads(default_outputs[".json"].read_text())["warnings"] == default_report.warnings
    md, html_text, rows = _shown(default_outputs[".md"].read_text(), default_outputs[".html"].read_text(),
                                 default_outputs[".xlsx"])
    for w in default_report.warnings:
        where, what = warning_parts(w)
        assert f"- {w}" in md and w in html_text, w
        assert any(r[:4] == (WARNING_ROW, "warning", where or None, what) for r in rows), w


def test_a_ufm_not_bought_is_said_in_the_terminal_the_checks_sheet_and_the_report(bom, tmp_path):
    # 32 DGX H100 fill the 8 leaves and the 4 spines: the build buys no UFM and says why, everywhere.
    (tmp_path / "full.yaml").write_text("name: full\nplatform: dgx-h100\nnodes: 32\n")
    r = bom("build", str(tmp_path / "full.yaml"), "-o", str(tmp_path / "out"), "-q")
    assert r.exit_code == 0, r.output
    why = ("fabrics.compute: the platform's 4 UFM appliances per site (management.ufm_count) are not bought: no "
           "port of the compute fabric is free for a site's 4 UFM port(s): every one of the 8 leaves' 32 downlinks")
    assert f"warning: {why}" in r.stderr
    out = tmp_path / "out"
    md, html_text, rows = _shown((out / "full.md").read_text(), (out / "full.html").read_text(), out / "full.xlsx")
    assert f"- {why}" in md and why in html_text
    assert any(row[:3] == ("build", "warning", "fabrics.compute") and str(row[3]).startswith(why.split(": ", 1)[1])
               for row in rows)


def test_templates_compile_once_into_jinjas_cache_and_build_without_one(tmp_path, monkeypatch):
    """Compiled templates go to jinja's private cache folder (0.46 s of a build); a folder jinja refuses
    (here a file in its place) leaves no cache and the report renders all the same."""
    import os
    import tempfile

    import jinja2

    from bom.outputs.writers import documents

    monkeypatch.setattr(tempfile, "gettempdir", lambda: str(tmp_path))
    cache = documents._bytecode_cache(jinja2)
    env = jinja2.Environment(loader=jinja2.DictLoader({"t": "{{ 1 + 1 }}"}), bytecode_cache=cache)
    assert env.get_template("t").render() == "2"
    assert list((tmp_path / f"_jinja2-cache-{os.getuid()}").iterdir())
    blocked = tmp_path / "b"
    blocked.mkdir()
    (blocked / f"_jinja2-cache-{os.getuid()}").write_text("not a folder")
    monkeypatch.setattr(tempfile, "gettempdir", lambda: str(blocked))
    assert documents._bytecode_cache(jinja2) is None
