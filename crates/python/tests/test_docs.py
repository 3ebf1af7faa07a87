"""The Python examples of docs/python.md run as written (from the repository's root, here in
a temporary folder with the bundled projects' paths made absolute), and their comments hold."""

import re

import pytest

from conftest import ROOT

DOC = ROOT / "docs" / "python.md"


def examples():
    """The examples that run the bundled projects (those of `simulate` and `Session`)."""
    assert DOC.is_file(), f"missing {DOC}"
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    return [code for code in blocks if '"projects/' in code]


def test_the_documented_examples_are_there():
    assert len(examples()) >= 2


@pytest.mark.parametrize("index", range(2))
def test_an_example_runs(index, tmp_path, monkeypatch):
    code = examples()[index].replace('"projects/', f'"{ROOT}/projects/')
    monkeypatch.chdir(tmp_path)
    namespace = {}
    exec(compile(code, f"{DOC}, example {index + 1}", "exec"), namespace)
    if "result" in namespace:
        result = namespace["result"]
        assert result.statistics["steps"] == 4000
        assert result.summary["outcome"] == "Completed"
        assert result.working_dir == tmp_path / "lv40"
        assert (tmp_path / "lv40" / "results" / "lotka_volterra.mat").is_file()
    else:
        assert namespace["session"].closed
        assert namespace["rows"]["time"][-1] == 20.0
        assert isinstance(namespace["prey"], float)
        assert (tmp_path / "lv" / "checkpoint" / "state.bin").is_file()
