"""Network files: bit-exact round trips, and one clear NetworkFileError per kind of damage."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from safetensors.numpy import save_file

import fsmnet
from fsmnet.errors import NetworkFileError
from fsmnet.nets import Network, load_network

ARCHS = ["bilinear-full", "bilinear-cp", "bilinear-block"]


def _write(path, tensors, header):
    """A safetensors file with an arbitrary fsmnet header (written without the library)."""
    save_file(tensors, str(path), metadata={"fsmnet": header if isinstance(header, str)
                                            else json.dumps(header)})


@pytest.fixture(scope="module")
def nets():
    return {arch: fsmnet.compile("modadd:6", arch, **({"search": False}
                                                       if arch == "bilinear-cp" else {}))
            for arch in ARCHS}


@pytest.mark.parametrize("arch", ARCHS)
def test_round_trip_is_bit_exact(nets, arch, tmp_path):
    net = nets[arch]
    path = tmp_path / "net.safetensors"
    net.save(path)
    back = load_network(path)
    assert back.header() == net.header()
    assert sorted(back.params) == sorted(net.params)
    for key, value in net.params.items():
        assert back.params[key].dtype == value.dtype
        assert back.params[key].tobytes() == value.tobytes()
    # The header is plain JSON in the file (read back with safetensors, not fsmnet).
    from safetensors import safe_open
    with safe_open(str(path), framework="numpy") as handle:
        header = json.loads(handle.metadata()["fsmnet"])
    assert header["arch"] == arch and header["format_version"] == 1
    assert header["symbols"] == list(net.symbols)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False, width=64), min_size=6,
                max_size=6))
def test_round_trip_of_arbitrary_weights(nets, tmp_path_factory, values):
    net = nets["bilinear-full"].with_params(h0=np.array(values))
    path = tmp_path_factory.mktemp("rt") / "net.safetensors"
    net.save(path)
    assert load_network(path).params["h0"].tobytes() == np.array(values).tobytes()


def _assert_error(path, *fragments):
    with pytest.raises(NetworkFileError) as info:
        load_network(path)
    message = str(info.value)
    assert str(path) in message
    for fragment in fragments:
        assert fragment in message, (fragment, message)
    assert "\n" not in message


def test_truncated_file(nets, tmp_path):
    path = tmp_path / "net.safetensors"
    nets["bilinear-full"].save(path)
    data = path.read_bytes()
    for cut in (3, 10, len(data) // 2, len(data) - 1):
        path.write_bytes(data[:cut])
        _assert_error(path, "safetensors")


@given(st.binary(min_size=0, max_size=200))
def test_random_bytes(tmp_path_factory, blob):
    path = tmp_path_factory.mktemp("rb") / "junk.safetensors"
    path.write_bytes(blob)
    with pytest.raises(NetworkFileError, match="junk.safetensors"):
        load_network(path)


def test_missing_file(tmp_path):
    _assert_error(tmp_path / "absent.safetensors", "no such")


def test_header_errors(nets, tmp_path):
    net = nets["bilinear-full"]
    tensors = {k: np.ascontiguousarray(v) for k, v in net.params.items()}
    good = net.header()
    cases = [
        ("{not json", ["metadata.fsmnet", "invalid JSON"]),
        ({**good, "format": "other"}, ["'format'", "'other'"]),
        ({**good, "format_version": 99}, ["'format_version'", "99"]),
        ({**good, "arch": "bogus-arch"}, ["'arch'", "'bogus-arch'"]),
        ({**good, "symbols": "abc"}, ["'symbols'", "'abc'"]),
        ({**good, "labels": [0, [1]]}, ["'labels'", "[1]"]),
        ({**good, "exact": 3}, ["'exact'", "3"]),
    ]
    for i, (header, fragments) in enumerate(cases):
        path = tmp_path / f"h{i}.safetensors"
        _write(path, tensors, header)
        _assert_error(path, *fragments)
    path = tmp_path / "nometa.safetensors"
    save_file(tensors, str(path))
    _assert_error(path, "metadata.fsmnet")


@pytest.mark.parametrize("arch,name,bad", [
    ("bilinear-full", "W", np.zeros((6, 5, 6))),
    ("bilinear-full", "readout", np.zeros((2, 6))),
    ("bilinear-cp", "V", np.zeros((6, 1))),
    ("bilinear-block", "W.1", np.zeros((3, 3, 2))),
])
def test_wrong_shapes_in_files(nets, tmp_path, arch, name, bad):
    net = nets[arch]
    tensors = {k: np.ascontiguousarray(v) for k, v in net.params.items()}
    tensors[name] = bad
    path = tmp_path / "shape.safetensors"
    _write(path, tensors, net.header())
    _assert_error(path, f"'{name}'", str(bad.shape))


def test_wrong_dtype_and_missing_tensor(nets, tmp_path):
    net = nets["bilinear-full"]
    tensors = {k: np.ascontiguousarray(v) for k, v in net.params.items()}
    path = tmp_path / "dtype.safetensors"
    _write(path, {**tensors, "h0": tensors["h0"].astype(np.float32)}, net.header())
    _assert_error(path, "'h0'", "float32")
    del tensors["readout"]
    _write(path, tensors, net.header())
    _assert_error(path, "'readout'", "missing")


@pytest.mark.parametrize("arch,name", [("bilinear-full", "W"), ("bilinear-cp", "U"),
                                       ("bilinear-block", "W.0"), ("bilinear-block", "readout")])
@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
def test_nan_and_inf_rejected(nets, arch, name, value):
    net = nets[arch]
    arr = np.array(net.params[name])
    arr.flat[0] = value
    with pytest.raises(NetworkFileError) as info:
        net.with_params(**{name: arr})
    assert f"'{name}'" in str(info.value) and str(value) in str(info.value)


def test_unknown_arch_in_constructor(nets):
    net = nets["bilinear-full"]
    with pytest.raises(NetworkFileError, match="'arch'.*'nope'"):
        Network(arch="nope", params=net.params, symbols=net.symbols, labels=net.labels)


def test_docs_example_runs(tmp_path, monkeypatch, capsys):
    # docs/formats.md promises a runnable example; run it as written.
    import pathlib
    import re

    text = (pathlib.Path(__file__).parent.parent / "docs" / "formats.md").read_text()
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "docs/formats.md", "exec"), {})
    lines = capsys.readouterr().out.splitlines()
    # 1 + 2 + 4 = 7 ≡ 1 (mod 6), computed both through fsmnet and by hand.
    assert lines[1:] == ["1", "1"]
