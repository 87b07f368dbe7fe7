"""Tests of ``fsmnet decompose``: the JSON contract (docs/architecture.md) and text output."""

from __future__ import annotations

import json

from holonomy_oracles import full_transformation_generators

from fsmnet.cli import main


def _t3_spec(tmp_path):
    gens = full_transformation_generators(3)
    names = ["cycle", "swap", "collapse"]
    spec = {
        "states": ["0", "1", "2"],
        "input_symbols": names,
        "transitions": {str(q): {a: str(g[q]) for a, g in zip(names, gens, strict=True)}
                        for q in range(3)},
        "name": "T3",
    }
    path = tmp_path / "t3.json"
    path.write_text(json.dumps(spec))
    return str(path)


def test_json_schema_for_t3(tmp_path, capsys):
    assert main(["decompose", _t3_spec(tmp_path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"levels", "verified"}
    assert out["verified"] is True
    # SgpDec / Egri-Nagy & Nehaniv arXiv 1508.06345: T_3 has levels (3,S3), (2,C2).
    assert out["levels"] == [
        {"level": 1, "points": 3, "components": [{"points": 3,
                                                   "group": {"order": 6, "name": "S_3"}}]},
        {"level": 2, "points": 2, "components": [{"points": 2,
                                                   "group": {"order": 2, "name": "C_2"}}]},
    ]


def test_text_output_one_line_per_level(tmp_path, capsys):
    assert main(["decompose", _t3_spec(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("T3: 3 states, 2 levels (verified)")
    assert lines[1:] == ["1: (3,S_3)", "2: (2,C_2)"]


def test_reset_component_has_null_group(capsys):
    # The flip-flop (set, reset, read) has no non-trivial permutation of its tiles.
    assert main(["decompose", "flipflop", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["levels"][0]["components"] == [{"points": 2, "group": None}]
    assert main(["decompose", "flipflop"]) == 0
    assert "1: (2,-)" in capsys.readouterr().out


def test_no_verify_reports_unverified(capsys):
    assert main(["decompose", "modcount:3", "--json", "--no-verify"]) == 0
    assert json.loads(capsys.readouterr().out)["verified"] is False


def test_bad_spec_exits_2(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert main(["decompose", str(bad)]) == 2
    assert "error" in capsys.readouterr().err


def test_orbit_beyond_the_limit_is_a_clear_error(monkeypatch, capsys):
    import fsmnet.algebra.holonomy.skeleton as skeleton
    from fsmnet.cli import main

    monkeypatch.setattr(skeleton, "ORBIT_LIMIT", 10)
    assert main(["decompose", "random:n=12,k=2,seed=1"]) == 2  # it has more than 10 sets
    err = capsys.readouterr().err.strip()
    assert "more than 10 sets" in err and "\n" not in err and "Traceback" not in err
