"""`mastersim.Session`: stepping, reading, the variables, checkpoints, and closing, which
frees every FMU also after an exception."""

from pathlib import Path

import numpy as np
import pytest

import mastersim
from conftest import PROJECTS, fmu

LOTKA = PROJECTS / "lotka_volterra.msim"


def loaded_libraries(under):
    """The shared libraries mapped into this process from below the folder `under`."""
    under = str(Path(under).resolve())
    paths = set()
    for line in Path("/proc/self/maps").read_text().splitlines():
        fields = line.split(maxsplit=5)
        if len(fields) == 6 and fields[5].startswith(under) and ".so" in fields[5]:
            paths.add(fields[5])
    return paths


def test_closing_after_an_exception_frees_every_fmu(tmp_path):
    project = tmp_path / "fault.msim"
    project.write_text(
        "tStart 0 s\ntEnd 2 s\nhStart 0.1 s\nMasterMode GAUSS_SEIDEL\nErrorControlMode NONE\n"
        f'simulator 0 0 F #ff0000 "{fmu("Faulty")}"\n'
        f'simulator 1 0 S #00ff00 "{fmu("Scale")}"\n'
        f'simulator 2 0 P #0000ff "{fmu("Prey")}"\n'
        "graph F.y S.u\nparameter F.errorTime 0.95\n"
    )
    wd = tmp_path / "wd"
    with pytest.raises(mastersim.SimulationError, match="slave 'F'"):
        with mastersim.Session(project, working_dir=wd) as session:
            loaded = loaded_libraries(wd)
            assert len(loaded) == 3, f"one library per FMU while open: {loaded}"
            session.run()
    assert loaded_libraries(wd) == set(), "every FMU library is unloaded after the with block"
    assert session.closed
    summary = (wd / "log" / "summary.json").read_text()
    assert '"outcome": "Failed"' in summary
    # The working directory is free again: another session can use it at once.
    with mastersim.Session(LOTKA, working_dir=wd) as again:
        again.run_until(0.5)
    assert loaded_libraries(wd) == set()


def test_an_exception_of_the_caller_also_closes(tmp_path):
    with pytest.raises(ZeroDivisionError):
        with mastersim.Session(LOTKA, working_dir=tmp_path) as session:
            session.run_until(1.0)
            1 / 0
    assert session.closed
    assert loaded_libraries(tmp_path) == set()
    text = (tmp_path / "log" / "summary.txt").read_text()
    assert "finished before the end time" in text
    assert (tmp_path / "results" / "values.csv").read_text().splitlines()[-1].startswith("1\t")


def test_stepping_reading_and_values(tmp_path):
    with mastersim.Session(LOTKA, working_dir=tmp_path) as session:
        assert session.time == 0.0 and session.outcome is None
        session.initialize()
        assert session.values.shape == (1,)
        assert session.step() == pytest.approx(0.01)
        assert session.run_until(2.0) == pytest.approx(2.0)
        x, y = session.get(["Prey.x", "Predator.y"])
        values = session.values
        assert values.shape == (21,)
        assert values.dtype.names == ("time", "Prey.x", "Predator.y")
        assert values["time"][-1] == pytest.approx(2.0)
        assert (values["Prey.x"][-1], values["Predator.y"][-1]) == (x, y)
        assert session.statistics["steps"] == 200
        assert session.run() == 20.0
        assert session.outcome == "completed"
        assert session.working_dir == tmp_path
        # After the end, no step is taken.
        assert (session.step(), session.statistics["steps"]) == (20.0, 2000)


def test_variables_name_causality_variability_and_type(tmp_path):
    with mastersim.Session(fmu("AllTypes"), working_dir=tmp_path) as session:
        variables = {v.name: v for v in session.variables}
    assert variables, "AllTypes declares variables"
    types = {v.type for v in variables.values()}
    assert {"Real", "Integer", "Boolean", "String"} <= types
    for v in variables.values():
        assert v.name.startswith("AllTypes.")
        assert v.causality in {
            "parameter", "calculatedParameter", "input", "output", "local", "independent",
            "structuralParameter",
        }
        assert v.variability in {"constant", "fixed", "tunable", "discrete", "continuous"}
    with mastersim.Session(LOTKA, working_dir=tmp_path / "lv") as session:
        alpha = next(v for v in session.variables if v.name == "Prey.alpha")
    assert (alpha.causality, alpha.variability, alpha.type, alpha.unit) == (
        "parameter", "fixed", "Real", "1/s",
    )
    assert "Prey.alpha" in repr(alpha)


def test_values_of_every_type_are_python_values(tmp_path):
    with mastersim.Session(fmu("AllTypes"), working_dir=tmp_path) as session:
        session.initialize()
        kinds = {}
        for v in session.variables:
            kinds.setdefault(v.type, v.name)
        read = {ty: session.get(name) for ty, name in kinds.items()}
    assert isinstance(read["Real"], float)
    assert isinstance(read["Integer"], int) and not isinstance(read["Integer"], bool)
    assert isinstance(read["Boolean"], bool)
    assert isinstance(read["String"], str)


def test_a_checkpoint_resumes_with_the_command_line(cli, tmp_path):
    import subprocess

    wd = tmp_path / "wd"
    with mastersim.Session(LOTKA, working_dir=wd) as session:
        session.run_until(5.0)
        size = session.save_checkpoint(wd / "checkpoint" / "state.bin")
        assert size == (wd / "checkpoint" / "state.bin").stat().st_size > 0
    subprocess.run([cli, LOTKA, "--working-dir", wd, "--resume"], check=True, capture_output=True)
    subprocess.run([cli, LOTKA, "--working-dir", tmp_path / "whole"], check=True, capture_output=True)
    resumed = (wd / "results" / "values.csv").read_bytes()
    assert resumed == (tmp_path / "whole" / "results" / "values.csv").read_bytes()


def test_set_an_input_no_connection_drives(tmp_path):
    with mastersim.Session(fmu("Faulty"), working_dir=tmp_path, stop_time=1) as session:
        session.run_until(0.5)
        session.set("Faulty.u", 2.0)
        assert session.get("Faulty.y") == pytest.approx(2.5)
        session.step()
        assert session.get("Faulty.y") == pytest.approx(2.6)


def test_snapshot_and_restore_repeat_the_same_steps(tmp_path):
    # The control loop's FMUs serialize their FMU state, so a live session restores in place.
    project = PROJECTS / "control_loop_seidel.msim"
    names = ["Part1.x1", "Part2.x3", "Part3.x4"]
    with mastersim.Session(project, working_dir=tmp_path / "a", stop_time=3) as session:
        session.run_until(1.0)
        state = session.snapshot()
        assert isinstance(state, bytes) and state
        session.run_until(2.0)
        first = session.get(names)
        session.restore(state)
        assert session.time == pytest.approx(1.0)
        assert session.values["time"][-1] == pytest.approx(1.0)
        session.run_until(2.0)
        assert session.get(names) == first
        session.run()
        restored = session.values
    unbroken = mastersim.simulate(project, working_dir=tmp_path / "b", stop_time=3).values
    assert restored.dtype == unbroken.dtype
    assert (restored == unbroken).all()
    a = (tmp_path / "a" / "results" / "values.csv").read_bytes()
    assert a == (tmp_path / "b" / "results" / "values.csv").read_bytes()


def test_set_wrong_types_are_type_errors(tmp_path):
    with mastersim.Session(LOTKA, working_dir=tmp_path) as session:
        with pytest.raises(TypeError, match="bool, int, float, str or bytes"):
            session.set("Prey.y", [1.0])
        with pytest.raises(TypeError):
            session.restore("not bytes")


def test_values_without_rows_have_the_fields(tmp_path):
    with mastersim.Session(LOTKA, working_dir=tmp_path) as session:
        values = session.values
    assert values.shape == (0,)
    assert isinstance(values, np.ndarray)
