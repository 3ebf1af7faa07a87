"""The type stubs (`mastersim/__init__.pyi`) describe the package as it is: every public name,
every method and property of the classes, every keyword of `simulate` and `Session`. (mypy's
`python -m mypy.stubtest mastersim` checks the same and more where mypy is installed.)"""

import ast
from pathlib import Path

import pytest

import mastersim

STUB = Path(mastersim.__file__).with_suffix(".pyi")


def stub_tree():
    assert STUB.is_file(), f"missing type stubs {STUB}"
    return ast.parse(STUB.read_text())


def stub_class(name):
    for node in stub_tree().body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            return {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
    raise AssertionError(f"class {name} is not in {STUB}")


def stub_keywords(function):
    return [a.arg for a in function.args.kwonlyargs]


def test_the_package_is_typed():
    assert (STUB.parent / "py.typed").is_file()
    names = set()
    for node in stub_tree().body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    missing = set(mastersim.__all__) - names
    assert not missing, f"not in {STUB}: {missing}"


@pytest.mark.parametrize("name", ["Session", "SimulationResult", "Variable"])
def test_the_classes_have_the_methods_of_their_stubs(name):
    runtime = {n for n in dir(getattr(mastersim, name)) if not n.startswith("_")}
    stubbed = {n for n in stub_class(name) if not n.startswith("_")}
    assert runtime == stubbed


def test_every_keyword_of_the_stubs_is_accepted(tmp_path):
    functions = [
        n for n in ast.walk(stub_tree())
        if isinstance(n, ast.FunctionDef) and n.name in {"simulate", "__new__"}
    ]
    assert len(functions) == 2
    for function in functions:
        keywords = stub_keywords(function)
        assert len(keywords) >= 17
        # Every keyword passes the check of keywords; the missing path is what fails.
        with pytest.raises(mastersim.ProjectNotFoundError):
            mastersim.simulate(tmp_path / "none.msim", **{k: None for k in keywords})
