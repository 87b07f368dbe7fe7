"""Short reprs and rich Jupyter display of the main objects.

What each must show is fixed independently of the code: T_3 has 27 elements
(3^3 maps of a 3-set); its holonomy levels are S_3 on 3 tiles above C_2 on 2
(arXiv 1508.06345); a reprs must not run the monoid computation it reports.
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest

import fsmnet
from fsmnet.algebra.monoid import TransitionMonoid
from fsmnet.automata import Automaton
from fsmnet.automata.render import MAX_PICTURE_NODES

needs_dot = pytest.mark.skipif(shutil.which("dot") is None,
                               reason="Graphviz 'dot' is not installed (apt-get install graphviz)")
T3 = [[1, 2, 0], [1, 0, 2], [0, 0, 2]]


def test_transition_monoid_repr_is_cheap_then_shows_size():
    m = TransitionMonoid.from_transformations(T3, symbols=["c", "s", "r"])
    text = repr(m)
    assert "object at 0x" not in text
    assert "degree 3" in text and "3 generators (c, s, r)" in text and "not computed" in text
    assert m._struct is None  # repr did not compute the monoid
    assert m.size == 27
    assert "27 elements" in repr(m)


def test_holonomy_repr_is_short():
    h = fsmnet.decompose(T3)
    text = repr(h)
    assert len(text) < 200 and "\n" not in text
    assert "3 states" in text and "2 levels" in text and "1:[3|6]" in text and "2:[2|2]" in text
    big = fsmnet.decompose("symmetric:4")
    assert len(repr(big)) < 300


def test_holonomy_repr_truncates_wide_levels():
    # A level of 9 components (copies of T_3's top one): the repr lists 6 and a count.
    import dataclasses

    from fsmnet.algebra.holonomy import Level

    h = fsmnet.decompose(T3)
    wide = Level(level=1, components=h.levels[0].components * 9, n_points=27)
    text = repr(dataclasses.replace(h, levels=(wide,)))
    assert text.count("3|6") == 6 and "+3" in text and len(text) < 200


def test_automaton_html_and_svg():
    a = fsmnet.load("parity")
    page = a._repr_html_()
    assert "parity" in page and "<table>" in page
    svg = a._repr_svg_()
    if shutil.which("dot"):
        assert svg is not None and "<svg" in svg and "<svg" in page
    else:
        assert svg is None and "not installed" in page


def test_huge_automaton_shows_text_not_a_picture():
    n = MAX_PICTURE_NODES + 1
    a = Automaton(delta=np.array([[(i + 1) % n for i in range(n)]]), symbols=["a"],
                  outputs=[i == 0 for i in range(n)])
    assert a._repr_svg_() is None
    assert "too many to draw" in a._repr_html_()


def test_network_and_holonomy_html():
    net = fsmnet.compile("modadd:6", "bilinear-block")
    page = net._repr_html_()
    assert "bilinear-block" in page and "W.0 (2, 2, 6)" in page
    hpage = fsmnet.decompose(T3)._repr_html_()
    assert "level 1" in hpage and "3 tiles/order 6" in hpage


@needs_dot
def test_svgs_with_dot():
    for obj in (fsmnet.decompose(T3), fsmnet.compile("latch:4", "minmax-scalar")):
        svg = obj._repr_svg_()
        assert svg is not None and "<svg" in svg
        assert "<svg" in obj._repr_html_()


def test_without_dot_no_svg(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    for obj in (fsmnet.load("parity"), fsmnet.decompose(T3),
                fsmnet.compile("parity", "bilinear-full")):
        assert obj._repr_svg_() is None
        assert "not installed" in obj._repr_html_()


def test_verify_result_html():
    a = fsmnet.load("modadd:3")
    net = fsmnet.compile(a, "bilinear-full")
    ok = fsmnet.verify(a, net)._repr_html_()
    assert "proved" in ok and "green" in ok
    # Swapping two entries of h0 starts the net in the wrong state: the empty
    # word already tells them apart (expected 0, the net says another label).
    bad = net.with_params(h0=net.params["h0"][[1, 0, 2]].copy())
    page = fsmnet.verify(a, bad)._repr_html_()
    assert "refuted" in page and "(empty word)" in page and "firebrick" in page
