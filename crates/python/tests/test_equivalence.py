"""`Session` stepping, `simulate()` and the command line give identical values for every
bundled project (projects/*.msim) and SSP example (projects/ssp/*.ssd): the same result files
byte for byte, the same arrays bit for bit, and arrays that match values.csv."""

import subprocess

import numpy as np
import pytest

import mastersim
from conftest import PROJECTS

BUNDLED = sorted(PROJECTS.glob("*.msim")) + sorted((PROJECTS / "ssp").glob("*.ssd"))
RESULT_FILES = ["values.csv", "strings.csv"]


def test_the_bundled_projects_are_there():
    assert len(BUNDLED) >= 20, f"expected the bundled projects in {PROJECTS}"


def read_csv(path):
    """values.csv as (header without units, rows of floats)."""
    lines = path.read_text().splitlines()
    header = [c.strip().rsplit(" [", 1)[0] for c in lines[0].split("\t")]
    rows = np.array([[float(x) for x in line.split("\t")] for line in lines[1:]])
    return header, rows.reshape(len(lines) - 1, len(header))


def stepped(project, working_dir):
    """Runs `project` one `step()` at a time; returns the session's values and counters."""
    with mastersim.Session(project, working_dir=working_dir) as session:
        while session.outcome is None:
            session.step()
        return session.values, session.statistics


@pytest.mark.parametrize("project", BUNDLED, ids=lambda p: p.relative_to(PROJECTS).as_posix())
def test_session_simulate_and_command_line_agree(project, cli, tmp_path):
    subprocess.run(
        [cli, project, "--working-dir", tmp_path / "cli"],
        check=True,
        capture_output=True,
    )
    result = mastersim.simulate(project, working_dir=tmp_path / "simulate")
    values, statistics = stepped(project, tmp_path / "session")

    assert result.summary["outcome"] == "Completed"
    assert result.working_dir == tmp_path / "simulate"
    assert values.dtype == result.values.dtype
    assert values.tobytes() == result.values.tobytes(), "Session and simulate() differ"
    assert statistics == result.statistics
    assert result.statistics == result.summary["counters"]
    for name in RESULT_FILES:
        cli_file = tmp_path / "cli" / "results" / name
        for run in ["simulate", "session"]:
            own = tmp_path / run / "results" / name
            assert own.is_file() == cli_file.is_file(), f"{own} vs {cli_file}"
            if cli_file.is_file():
                assert own.read_bytes() == cli_file.read_bytes(), f"{own} differs from {cli_file}"
    header, rows = read_csv(tmp_path / "cli" / "results" / "values.csv")
    names = ["time"] + header[1:]
    assert names == list(values.dtype.names)
    for i, name in enumerate(names):
        # values.csv holds 14 significant digits.
        np.testing.assert_allclose(values[name], rows[:, i], rtol=1e-13, atol=1e-300)
