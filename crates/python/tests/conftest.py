"""Shared fixtures of the Python package's tests: the repository's own projects and FMUs, and
the command-line program built by the workspace build (`target/release/mastersim`, or
`$MASTERSIM_BIN`)."""

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PROJECTS = ROOT / "projects"
PACKED = ROOT / "fmus" / "packed"


def fmu(name):
    """The path of the own packed FMU `name` (fails naming it when missing)."""
    path = PACKED / f"{name}.fmu"
    assert path.is_file(), f"missing own FMU {path}: build the workspace first"
    return path


@pytest.fixture(scope="session")
def cli():
    """The `mastersim` command-line program; fails naming where it looked."""
    path = Path(os.environ.get("MASTERSIM_BIN", ROOT / "target" / "release" / "mastersim"))
    assert path.is_file(), (
        f"no mastersim program at {path}: run `cargo build --release` "
        "(or set MASTERSIM_BIN)"
    )
    return path
