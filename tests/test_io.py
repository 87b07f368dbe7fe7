"""fsmnet.io: atomic writes to regular files only, streams for devices, refusals otherwise."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import fsmnet
from fsmnet.errors import FsmnetError
from fsmnet.io import (
    OutputError,
    check_output,
    check_output_dir,
    is_stdout,
    make_dir,
    output_path,
    write_bytes,
    write_text,
)


@given(data=st.binary(max_size=2000))
def test_round_trip_and_no_temporary_left(tmp_path_factory: pytest.TempPathFactory,
                                          data: bytes) -> None:
    folder = tmp_path_factory.mktemp("w")
    target = folder / "f.bin"
    write_bytes(target, b"old")
    write_bytes(target, data)
    assert target.read_bytes() == data
    assert os.listdir(folder) == ["f.bin"]


def test_modes(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    assert check_output(tmp_path / "new") == "atomic"
    assert check_output(tmp_path / "file") == "atomic"
    assert check_output("-") == "stdout"
    assert check_output("/dev/null") == "stream"
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert check_output(fifo) == "stream"


@pytest.mark.parametrize("make, name, words", [
    (lambda p: p.mkdir(), "d", "is a directory"),
    (lambda p: None, "missing/x", "does not exist"),
    (lambda p: p.parent.write_text(""), "file/x", "not a directory"),
    (lambda p: p.symlink_to(p.parent / "nowhere"), "dangling", "symbolic link"),
])
def test_refusals_name_the_path(tmp_path: Path, make, name: str, words: str) -> None:
    target = tmp_path / name
    make(target)
    before = sorted(os.listdir(tmp_path))
    with pytest.raises(OutputError, match=words) as info:
        write_text(target, "data")
    assert str(target) in str(info.value)
    assert isinstance(info.value, FsmnetError)
    assert sorted(os.listdir(tmp_path)) == before


def test_symlink_to_a_file_stays_a_link(tmp_path: Path) -> None:
    real = tmp_path / "real.txt"
    real.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    write_text(link, "new")
    assert link.is_symlink() and real.read_text() == "new"


def test_existing_mode_is_kept_and_new_files_follow_the_umask(tmp_path: Path) -> None:
    target = tmp_path / "script"
    target.write_text("")
    os.chmod(target, 0o750)
    write_text(target, "x")
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o750
    umask = os.umask(0o022)
    try:
        write_text(tmp_path / "fresh", "x")
    finally:
        os.umask(umask)
    assert stat.S_IMODE(os.stat(tmp_path / "fresh").st_mode) == 0o644  # 0666 & ~022


def test_fifo_is_streamed_not_replaced(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    write_bytes(fifo, b"through the pipe")
    reader.join(timeout=10)
    assert got == [b"through the pipe"]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)  # still a FIFO, not a regular file


def test_failed_writer_leaves_nothing(tmp_path: Path) -> None:
    target = tmp_path / "pic.png"
    with pytest.raises(RuntimeError), output_path(target) as tmp:
        assert tmp.endswith(".png")  # writers that pick a format by suffix still can
        Path(tmp).write_bytes(b"half")
        raise RuntimeError("writer failed")
    assert os.listdir(tmp_path) == []
    with output_path(target) as tmp:
        Path(tmp).write_bytes(b"whole")
    assert target.read_bytes() == b"whole" and os.listdir(tmp_path) == ["pic.png"]


def test_output_path_to_stdout(capfdbinary: pytest.CaptureFixture[bytes]) -> None:
    with output_path("-") as tmp:
        Path(tmp).write_bytes(b"picture bytes")
    assert capfdbinary.readouterr().out == b"picture bytes"


def test_dirs(tmp_path: Path) -> None:
    make_dir(tmp_path / "a" / "b")
    assert (tmp_path / "a" / "b").is_dir()
    (tmp_path / "f").write_text("")
    with pytest.raises(OutputError, match="not a directory"):
        check_output_dir(tmp_path / "f" / "w")
    with pytest.raises(OutputError):
        make_dir("-")


def test_is_stdout() -> None:
    assert is_stdout("-")
    assert not is_stdout("/dev/null")


def test_library_writers_use_it(tmp_path: Path) -> None:
    net = fsmnet.compile("parity", "bilinear-full")
    with pytest.raises(OutputError, match="is a directory"):
        net.save(tmp_path)
    with pytest.raises(OutputError, match="does not exist"):
        net.save(tmp_path / "no" / "net.safetensors")
    from fsmnet.proofs.certificate import write_certificate

    with pytest.raises(OutputError):
        write_certificate({"format": "x"}, tmp_path / "no" / "c.json")
    from fsmnet.automata.spec import save_file
    from fsmnet.errors import SpecError

    with pytest.raises(SpecError, match="is a directory"):
        save_file(fsmnet.load("parity"), tmp_path, format="json")
    assert os.listdir(tmp_path) == []
    save_file(fsmnet.load("parity"), tmp_path / "p.yaml")
    assert fsmnet.load(str(tmp_path / "p.yaml")) == fsmnet.load("parity")  # read back exactly
    assert os.listdir(tmp_path) == ["p.yaml"]
