"""The report's diagram in headless Chromium: no two labels overlap, no line crosses a label,
and every count drawn equals the model's JSON. Run for the default scenario (two sites), a
4-site campus as a mesh, a ring of unequal sites and a hub, larger meshes and hubs, a small
pod with every fabric (8 DGX B200: compute, storage, in-band, OOB) and one with the compute
fabric alone."""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from tests.outputs.writers.test_report import FLAGS, chromium

#: Subprocesses, a spreadsheet engine, a browser or generated inputs: left out of the fast loop.
pytestmark = pytest.mark.slow

CAMPUS = """name: campus-4
platform: gb300-nvl72
gpus: 9216
fabrics: {compute: {switch: q3400, oversubscription: 1.25}, storage: {switch: sn5600}, inband: {},
          oob: {switch: sn2201}}
sites: {split: [2, 1, 1, 1], topology: ring, distance: "2 km", dci_bandwidth: "25.6 Tbit/s"}
"""
MESH = CAMPUS.replace("name: campus-4", "name: mesh-5").replace("split: [2, 1, 1, 1], topology: ring",
                                                               "count: 5, topology: mesh")
HUB = CAMPUS.replace("name: campus-4", "name: hub-12").replace("split: [2, 1, 1, 1], topology: ring",
                                                               "split: [2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], "
                                                               "topology: hub").replace("9216", "13824").replace(
    "25.6 Tbit/s", "3.2 Tbit/s")   # the hub site's routers: 11 pairs (on the in-band border leaves)
CAMPUS_MESH = CAMPUS.replace("name: campus-4", "name: campus-4-mesh").replace(
    "split: [2, 1, 1, 1], topology: ring", "count: 4, topology: mesh")
CAMPUS_HUB = CAMPUS.replace("name: campus-4", "name: campus-4-hub").replace(
    "split: [2, 1, 1, 1], topology: ring", "count: 4, topology: hub")
POD = "name: small-pod\nplatform: dgx-h100\nnodes: 32\n"
#: Two sites on InfiniBand alone: the DCI's own border leaves, told in the routers' box.
OWN_BORDER = ("name: own-border\nplatform: dgx-h100\nnodes: 64\nfabrics: {compute: {switch: qm9700}}\n"
              'sites: {count: 2, distance: "40 km", dci_bandwidth: "12.8 Tbit/s"}\n')
POD_ALL = ("name: pod-8\nplatform: dgx-b200\nnodes: 8\n"
           "fabrics: {compute: {}, storage: {}, inband: {}, oob: {}}\n")

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


@pytest.mark.parametrize("text", [None, CAMPUS_MESH, CAMPUS, CAMPUS_HUB, MESH, HUB, POD_ALL, POD, OWN_BORDER],
                         ids=["default", "campus-4-mesh", "campus-4-ring", "campus-4-hub", "mesh-5", "hub-12",
                              "pod-8-all-fabrics", "pod-compute-only", "own-border-leaves"])
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
    # Every edge's colour is its medium's: copper, optical or both (the OOB's patch cords are copper).
    wires = re.findall(r'class="wire" data-medium="([^"]+)"(?: data-json="([^"]+)")?', dom)
    for medium, path in wires:
        if path.startswith("fabrics."):
            f, hop = _at(j, path.rsplit(".links.", 1)[0]), path.rsplit(".links.", 1)[1]
            media = {m for m, v in f.get("media", {}).get(hop, {}).items() if v} or (
                {"copper"} if not f["optical_links"] else {"optical"} if not f["copper_links"] else set())
            kinds = {"copper" if m in ("copper", "passive-copper", "active-copper") else "optical" for m in media}
            assert medium == (kinds.pop() if len(kinds) == 1 else "mixed"), (path, medium, media)
    assert {p for _, p in wires if p.startswith("fabrics.")} == {
        f"fabrics.{name}.links.{hop}" for name, f in j["fabrics"].items() for hop, links in f["links"].items()
        if links and hop != "site-site"} - _told_in_words(dom)
    # The legend has a sample (a line with no JSON path) and a word for every medium drawn.
    words = {"copper": ">copper<", "optical": ">optical (fibre)<", "mixed": ">copper and optical<",
             "coherent": ">coherent wavelengths<"}
    for medium in {m for m, p in wires if p}:
        assert (medium, "") in wires and words[medium] in dom, medium
    # Several sites: every cabled pair is a line of its own, and a switch box says "each site" only
    # when the sites are alike and its number times the sites is the total.
    if j["sites"] > 1:
        pairs = j["tiers"]["scale-across"]["pairs"]
        drawn = [p for m, p in wires if m == "coherent" and p]
        assert sorted(drawn) == sorted(f"tiers.scale-across.pairs.{i}" for i in range(len(pairs)))
        assert len(re.findall(r'class="wire" data-medium="coherent"', dom)) == len(pairs) + 1  # + the legend
        for path, value, shown in counted:
            if ".site_switches." in path:
                name, layer = path.split(".")[1], path.split(".")[-1]
                assert shown.startswith("each site: ")
                assert float(value) * j["sites"] == j["fabrics"][name]["switches"][layer]
        assert "fabrics.dci.routers" in paths


def _told_in_words(dom):
    """Hops whose ends are not drawn layers: told as text under the fabric's heading (no white
    plate, which only the labels on edges have), not drawn as an edge."""
    labels = re.finditer(r'<text class="label"[^>]*data-json="(fabrics\.[^"]+\.links\.[^"]+)"[^>]*>', dom)
    return {m.group(1) for m in labels
            if 'stroke="#ffffff"' not in m.group(0)}


def test_report_lists_every_cabled_site_pair(bom, tmp_path):
    html, j = _build(bom, tmp_path, CAMPUS)
    text = html.read_text()
    pairs = j["tiers"]["scale-across"]["pairs"]
    assert pairs == [[1, 2], [2, 3], [3, 4], [1, 4]]
    for a, b in pairs:
        assert f"<td>site {a} - site {b}</td>" in text
    assert [s["gpus"] for s in j["site_sizes"]] == [3672, 1872, 1872, 1800]
    assert "cabled as a ring" in text
