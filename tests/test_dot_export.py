"""DOT and SVG pictures: holonomy cascades, networks, the --dot flag, writing files.

Expected structure comes from independent facts: the holonomy decomposition
of the full transformation monoid T_3 has S_3 on 3 tiles above C_2 on 2
tiles (Egri-Nagy & Nehaniv, arXiv 1508.06345, the T_3 example, also the
doctest of fsmnet.algebra.holonomy); latch:4 is aperiodic, so every
component is a reset; Z_6 = Z_2 x Z_3 (Chinese remainder theorem), so the
bilinear-block network of modadd:6 has blocks of sizes 2 and 3.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import threading
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import fsmnet
from fsmnet.algebra.holonomy.dot import holonomy_to_dot, holonomy_to_svg
from fsmnet.automata.convert import to_dot
from fsmnet.automata.render import dot_to_svg, have_dot, write_picture
from fsmnet.cli import main
from fsmnet.errors import BackendUnavailable, FsmnetError
from fsmnet.nets import Network
from fsmnet.nets.dot import network_to_dot, network_to_svg, support_blocks

needs_dot = pytest.mark.skipif(shutil.which("dot") is None,
                               reason="Graphviz 'dot' is not installed (apt-get install graphviz)")
T3 = [[1, 2, 0], [1, 0, 2], [0, 0, 2]]


def declared_nodes(text: str) -> set[str]:
    return set(re.findall(r"^\s*(\w+) \[", text, flags=re.M))


def edges(text: str) -> list[tuple[str, str]]:
    return re.findall(r"^\s*(\w+) -> (\w+)", text, flags=re.M)


def assert_well_formed(text: str) -> None:
    """Without Graphviz: braces balance and every edge joins declared nodes."""
    assert text.startswith("digraph ") and text.rstrip().endswith("}")
    assert text.count("{") - text.count("\\{") >= 1
    nodes = declared_nodes(text)
    for a, b in edges(text):
        assert a in nodes and b in nodes, (a, b)


def test_holonomy_dot_of_t3():
    text = holonomy_to_dot(fsmnet.decompose(T3))
    assert_well_formed(text)
    assert "S_3 (order 6)" in text and "C_2 (order 2)" in text
    assert "level 1: 3 points" in text and "level 2: 2 points" in text
    assert "{0,1} {0,2} {1,2}" in text  # the three 2-subsets tile {0,1,2}
    assert ("l1c0", "l2c0") in edges(text)


def test_holonomy_dot_uses_state_names_and_marks_resets():
    a = fsmnet.load("latch:4")
    text = holonomy_to_dot(fsmnet.decompose(a), state_names=a.states)
    assert_well_formed(text)
    assert text.count("reset (trivial group)") == 2 and "order" not in text
    for name in a.states:
        assert name in text


def test_network_dot_bilinear_block_shows_crt_blocks():
    net = fsmnet.compile("modadd:6", "bilinear-block")
    text = network_to_dot(net)
    assert_well_formed(text)
    assert "block 0: 2x2" in text and "block 1: 3x3" in text
    assert support_blocks(net) == [[0, 1], [2, 3, 4]]


def test_network_dot_minmax_units():
    net = fsmnet.compile("latch:4", "minmax-scalar")
    text = network_to_dot(net)
    assert_well_formed(text)
    assert text.count("scalar unit") == 2 and "max(min(r, x), s)" in text
    assert ("u0", "u1") in edges(text)  # the lower level reads the unit above
    cascade = network_to_dot(fsmnet.compile("modadd:5", "minmax-cascade"))
    assert "matrix unit, 5x5" in cascade


def test_network_dot_product_cascade_keeps_components_apart():
    # sequences:2,tracks=2 splits into one cascade per track (format 3): a unit reads
    # only its own component's units, so no "units above" edge crosses components.
    net = fsmnet.compile("sequences:2,tracks=2", "minmax-scalar")
    component = [int(c) for c in net.params["unit_component"]]
    assert len(set(component)) == 2
    text = network_to_dot(net)
    assert_well_formed(text)
    assert "component 1, level 0" in text
    above = [(a, b) for a, b in edges(text) if a != b and a.startswith("u") and b.startswith("u")]
    assert above and all(component[int(a[1:])] == component[int(b[1:])] for a, b in above)


def test_support_blocks_of_a_block_diagonal_bilinear_net():
    # Two independent one-hot counters (mod 2 on h[0:2], mod 3 on h[2:5]) in one W.
    w = np.zeros((5, 5, 1))
    w[[1, 0], [0, 1], 0] = 1
    w[[3, 4, 2], [2, 3, 4], 0] = 1
    net = Network(arch="bilinear-full", params={"W": w, "h0": np.eye(5)[0] + np.eye(5)[2],
                                                "readout": np.ones((1, 5))},
                  symbols=["a"], labels=[0])
    assert support_blocks(net) == [[0, 1], [2, 3, 4]]
    assert "block 1: 3 units" in network_to_dot(net)


@pytest.mark.parametrize("arch", ["bilinear-full", "bilinear-cp", "bilinear-r2", "minmax-dense",
                                  "deltaproduct", "fixed-point"])
def test_every_linear_arch_exports(arch):
    net = fsmnet.compile("parity", arch)  # parity: the cheapest, Z3's CP search included
    text = network_to_dot(net)
    assert_well_formed(text)
    assert f"hidden {net.hidden_size}" in text
    if arch == "bilinear-r2":  # 2x2 rotation blocks stay separate
        assert all(len(b) == 2 for b in support_blocks(net))


@needs_dot
def test_svg_renders_and_parses():
    pictures = [dot_to_svg(to_dot(fsmnet.load("starfree"))),
                holonomy_to_svg(fsmnet.decompose(T3)),
                network_to_svg(fsmnet.compile("modadd:6", "bilinear-block")),
                network_to_svg(fsmnet.compile("latch:4", "minmax-scalar"))]
    for svg in pictures:
        root = ET.fromstring(svg.encode())
        assert root.tag.endswith("svg")
        assert len(root.findall(".//{http://www.w3.org/2000/svg}g")) > 2


def test_missing_dot_says_so(monkeypatch, tmp_path):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert not have_dot()
    with pytest.raises(BackendUnavailable, match="Graphviz 'dot' program, which is not installed"):
        dot_to_svg("digraph g {}")
    out = tmp_path / "x.svg"
    with pytest.raises(BackendUnavailable):
        write_picture(str(out), "digraph g {}")
    assert not out.exists()
    write_picture(str(tmp_path / "x.dot"), "digraph g {}\n")  # DOT needs nothing
    assert (tmp_path / "x.dot").read_text() == "digraph g {}\n"


@needs_dot
def test_dot_failure_is_typed():
    with pytest.raises(BackendUnavailable, match="failed"):
        dot_to_svg("digraph {{{ not dot")


# ------------------------------------------------------------- writing files
# write_picture writes through fsmnet.io (its own tests cover the rules); these
# check that pictures follow them.
def test_write_picture_replaces_a_regular_file(tmp_path):
    target = tmp_path / "p.dot"
    target.write_text("old")
    write_picture(str(target), "digraph g {}\n")
    assert target.read_text() == "digraph g {}\n"
    assert sorted(os.listdir(tmp_path)) == ["p.dot"]  # no temporary left


def test_write_picture_streams_into_a_fifo(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(open(fifo).read()))
    reader.start()
    write_picture(str(fifo), "digraph g {}\n")
    reader.join(timeout=10)
    assert got == ["digraph g {}\n"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)  # not replaced by a regular file


def test_write_picture_dash_is_stdout(capfd):
    write_picture("-", "digraph g {}\n")
    assert capfd.readouterr().out == "digraph g {}\n"


def test_write_picture_bad_targets(tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("")
    for bad in [tmp_path, afile / "x.dot", tmp_path / "missing" / "x.dot",
                tmp_path / "missing" / "x.svg"]:
        with pytest.raises(FsmnetError, match="cannot write here"):
            write_picture(str(bad), "digraph g {}")
    assert sorted(os.listdir(tmp_path)) == ["afile"]


# ------------------------------------------------------------- the --dot flag
@pytest.mark.parametrize("argv,expect", [
    (["info", "parity"], 'digraph "parity"'),
    (["decompose", "latch:4", "--no-verify"], "digraph holonomy"),
])
def test_cli_dot_flag(tmp_path, capsys, argv, expect):
    out = tmp_path / "pic.dot"
    assert main([*argv, "--dot", str(out)]) == 0
    text = out.read_text()
    assert text.startswith(expect)
    assert_well_formed(text)
    capsys.readouterr()
    assert main([*argv, "--dot", "-"]) == 0
    assert expect in capsys.readouterr().out


@pytest.mark.parametrize("command", [["info", "parity"], ["decompose", "parity"]])
def test_cli_dot_bad_path_is_one_line(tmp_path, capsys, command):
    afile = tmp_path / "afile"
    afile.write_text("")
    for bad in [str(afile / "x.dot"), str(tmp_path), str(tmp_path / "no" / "x.dot")]:
        assert main([*command, "--dot", bad]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err and "cannot write" in err
    assert sorted(os.listdir(tmp_path)) == ["afile"]


@needs_dot
def test_cli_dot_svg(tmp_path):
    out = tmp_path / "cascade.svg"
    assert main(["decompose", "latch:4", "--dot", str(out)]) == 0
    assert ET.fromstring(out.read_bytes()).tag.endswith("svg")


def test_cli_compile_dot(tmp_path):
    out, net = tmp_path / "net.dot", tmp_path / "net.safetensors"
    assert main(["compile", "modadd:6", "--arch", "bilinear-block", "-o", str(net),
                 "--dot", str(out)]) == 0
    text = out.read_text()
    assert_well_formed(text)
    assert "block 0: 2x2" in text and "block 1: 3x3" in text and net.exists()


def test_cli_compile_dot_bad_path_writes_nothing(tmp_path, capsys):
    afile = tmp_path / "afile"
    afile.write_text("")
    net = tmp_path / "net.safetensors"
    assert main(["compile", "parity", "--arch", "bilinear-full", "-o", str(net),
                 "--dot", str(afile / "x.dot")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert sorted(os.listdir(tmp_path)) == ["afile"]  # no network file either


# The pictures in docs/pictures.md, and the exporters that made them: a picture
# whose text no longer matches what the exporter writes today is stale.
DOC_PICTURES = {
    "automaton-flipflop.svg": lambda: to_dot(fsmnet.load("flipflop")),
    "automaton-starfree.svg": lambda: to_dot(fsmnet.load("starfree")),
    "holonomy-random5.svg": lambda: _holonomy_of("random:n=5,k=2,seed=3"),
    "holonomy-modarith3.svg": lambda: _holonomy_of("modarith:3"),
    "network-minmax-latch4.svg": lambda: network_to_dot(fsmnet.compile("latch:4",
                                                                       "minmax-scalar")),
    "network-bilinear-block-modadd6.svg": lambda: network_to_dot(
        fsmnet.compile("modadd:6", "bilinear-block")),
}


def _holonomy_of(spec: str) -> str:
    a = fsmnet.load(spec)
    return holonomy_to_dot(fsmnet.decompose(a), state_names=a.states)


def _dot_label_lines(text: str) -> set[str]:
    lines = set()
    for raw in re.findall(r'label="((?:[^"\\]|\\.)*)"', text):
        for part in re.split(r"\\[ln]", raw):
            part = part.replace('\\"', '"').replace("\\\\", "\\").strip()
            if part:
                lines.add(part)
    return lines


@pytest.mark.parametrize("name", sorted(DOC_PICTURES))
def test_docs_pictures_are_current(name):
    path = os.path.join(os.path.dirname(__file__), "..", "docs", "pictures", name)
    root = ET.parse(path).getroot()
    shown = {" ".join((t.text or "").split()) for t in root.iter("{http://www.w3.org/2000/svg}text")}
    wanted = {" ".join(line.split()) for line in _dot_label_lines(DOC_PICTURES[name]())}
    assert wanted <= shown, sorted(wanted - shown)


def test_every_docs_picture_is_checked():
    folder = os.path.join(os.path.dirname(__file__), "..", "docs", "pictures")
    assert sorted(f for f in os.listdir(folder) if f.endswith(".svg")) == sorted(DOC_PICTURES)
