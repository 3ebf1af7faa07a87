"""The package imports and reports the version of the workspace it was built from."""

import re

import mastersim


def test_version_is_the_workspace_version():
    assert re.fullmatch(r"\d+\.\d+\.\d+", mastersim.__version__)
