"""The report's diagram in headless Chromium: no two labels overlap, no line crosses a label,
and every count drawn equals the model's JSON. Run for the default scenario (two sites), a
4-site campus (ring, unequal sites) and a small pod (one site, one fabric)."""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from tests.writers.test_report import FLAGS, chromium

CAMPUS = """name: campus-4
platform: gb300-nvl72
gpus: 9216
fabrics: {compute: {switch: q3400}, storage: {switch: sn5600}, inband: {}, oob: {switch: sn2201}}
sites: {split: [2, 1, 1, 1], topology: ring, distance: "2 km", dci_bandwidth: "25.6 Tbit/s"}
"""
MESH = CAMPUS.replace("name: campus-4", "name: mesh-5").replace("split: [2, 1, 1, 1], topology: ring",
                                                               "count: 5, topology: mesh")
HUB = CAMPUS.replace("name: campus-4", "name: hub-12").replace("split: [2, 1, 1, 1], topology: ring",
                                                               "split: [2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], "
                                                               "topology: hub").replace("9216", "13824")
POD = "name: small-pod\nplatform: dgx-h100\nnodes: 32\n"

#: Measures the drawing in the browser and writes the findings into the page for --dump-dom.
PROBE = """<script>
const svg = document.getElementById('diagram');
const texts = [...svg.querySelectorAll('text.label')];
const boxes = texts.map(t => { const b = t.getBBox(); return {x: b.x, y: b.y, w: b.width, h: b.height,
  text: t.textContent}; });
const overlaps = [];
for (let i = 0; i < boxes.length; i++) for (let k = i + 1; k < boxes.length; k++) {
  const a = boxes[i], b = boxes[k];
  if (a.x < b.x + b.w - 0.5 && b.x < a.x + a.w - 0.5 && a.y < b.y + b.h - 0.5 && b.y < a.y + a.h - 0.5)
    overlaps.push([a.text, b.text]);
}
const crossings = [];
for (const line of svg.querySelectorAll('.wire, .boundary')) {
  const len = line.getTotalLength();
  for (let s = 0; s <= len; s += 1) {
    const p = line.getPointAtLength(s);
    const hit = boxes.find(b => p.x > b.x + 1 && p.x < b.x + b.w - 1 && p.y > b.y + 1 && p.y < b.y + b.h - 1);
    if (hit) { crossings.push([line.getAttribute('class'), hit.text]); break; }
  }
}
const out = document.createElement('pre'); out.id = 'probe';
out.textContent = JSON.stringify({labels: boxes.length, overlaps, crossings,
  width: svg.getBBox().width, inside: boxes.every(b => b.x >= 0 && b.x + b.w <= svg.width.baseVal.value)});
document.body.appendChild(out);
</script>"""


def _build(bom, tmp_path, text):
    path = tmp_path / "s.yaml"
    path.write_text(text)
    out = tmp_path / "out"
    assert bom("build", str(path), "-o", str(out), "-q").exit_code == 0
    return next(out.glob("*.html")), json.loads(next(out.glob("*.json")).read_text())


def _probe(html, tmp_path):
    page = tmp_path / "probe.html"
    page.write_text(html.read_text().replace("</body>", PROBE + "</body>"))
    dom = subprocess.run([chromium(), *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=5000",
                          "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120).stdout
    m = re.search(r'<pre id="probe">(.*?)</pre>', dom, re.S)
    assert m, dom[-2000:]
    return json.loads(m.group(1).replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<")
                      .replace("&gt;", ">")), dom


def _at(j, path):
    node = j
    for part in path.split("."):
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


def _fmt(v):
    return f"{v:,.0f}" if float(v).is_integer() else f"{v:,.2f}".rstrip("0").rstrip(".")


@pytest.mark.parametrize("text", [None, CAMPUS, MESH, HUB, POD],
                         ids=["default", "campus-4-ring", "mesh-5", "hub-12", "pod"])
def test_diagram_labels_and_counts(bom, tmp_path, default_outputs, text):
    if text is None:
        html, j = default_outputs[".html"], json.loads(default_outputs[".json"].read_text())
    else:
        html, j = _build(bom, tmp_path, text)
    probe, dom = _probe(html, tmp_path)
    assert probe["labels"] > 10
    assert probe["overlaps"] == [], probe["overlaps"]
    assert probe["crossings"] == [], probe["crossings"]
    assert probe["inside"]
    counted = re.findall(r'<text class="label"[^>]*data-json="([^"]+)" data-value="([^"]+)"[^>]*>([^<]*)</text>', dom)
    assert len(counted) >= 8
    for path, value, shown in counted:
        expected = _at(j, path)
        assert float(value) == expected, path
        assert _fmt(expected) in shown.replace("&amp;", "&"), (path, shown)
    paths = {p for p, _, _ in counted}
    for name, f in j["fabrics"].items():  # every fabric and every hop with links is drawn
        for hop, links in f["links"].items():
            if links:
                assert f"fabrics.{name}.links.{hop}" in paths
    for tier in ("scale-out",) + (("scale-across",) if j["sites"] > 1 else ()):
        assert f"tiers.{tier}.links" in paths and f"tiers.{tier}.modules" in paths
    if j["sites"] > 1:
        pairs = j["tiers"]["scale-across"]["pairs"]
        assert len(re.findall(r'class="wire" data-medium="coherent"', dom)) == len(pairs) + 1  # + the legend


def test_report_lists_every_cabled_site_pair(bom, tmp_path):
    html, j = _build(bom, tmp_path, CAMPUS)
    text = html.read_text()
    pairs = j["tiers"]["scale-across"]["pairs"]
    assert pairs == [[1, 2], [2, 3], [3, 4], [1, 4]]
    for a, b in pairs:
        assert f"<td>site {a} - site {b}</td>" in text
    assert [s["gpus"] for s in j["site_sizes"]] == [3672, 1872, 1872, 1800]
    assert "cabled as a ring" in text
