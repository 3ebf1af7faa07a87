"""Errors are exceptions under `mastersim.MastersimError` with the messages of the command line
(file, line, did-you-mean); wrong argument types are `TypeError`; nothing crashes the
interpreter."""

import pytest

import mastersim
from conftest import PROJECTS, fmu

LOTKA = PROJECTS / "lotka_volterra.msim"


def test_the_exceptions_belong_to_the_package():
    for name in ["MastersimError", "InputError", "SimulationError", "ProjectNotFoundError"]:
        cls = getattr(mastersim, name)
        assert cls.__module__ == "mastersim"
        assert issubclass(cls, mastersim.MastersimError)
    assert issubclass(mastersim.ProjectNotFoundError, mastersim.InputError)
    assert issubclass(mastersim.ProjectNotFoundError, FileNotFoundError)
    assert issubclass(mastersim.SimulationError, mastersim.MastersimError)


@pytest.mark.parametrize("call", [mastersim.simulate, mastersim.Session])
def test_a_missing_file_names_the_path(call, tmp_path):
    missing = tmp_path / "nowhere" / "plant.msim"
    with pytest.raises(mastersim.ProjectNotFoundError) as raised:
        call(missing, working_dir=tmp_path / "wd")
    assert str(missing) in str(raised.value)
    assert "doesn't exist" in str(raised.value)
    assert raised.value.filename == str(missing)
    assert isinstance(raised.value, FileNotFoundError)
    assert not (tmp_path / "wd").exists(), "nothing is created for a missing project"


def test_a_misspelt_start_value_offers_the_name_meant(tmp_path):
    with pytest.raises(mastersim.InputError) as raised:
        mastersim.simulate(LOTKA, working_dir=tmp_path, set={"Prey.alpah": 1})
    message = str(raised.value)
    assert "Prey.alpah" in message
    assert "did you mean 'alpha'?" in message


def test_a_bad_project_line_names_file_and_line(tmp_path):
    text = LOTKA.read_text()
    assert "hStart                        0.01 s" in text
    text = text.replace("hStart                        0.01 s", "hStart zero s")
    text = text.replace('"../fmus/', f'"{PROJECTS.parent}/fmus/')
    project = tmp_path / "broken.msim"
    project.write_text(text)
    line = text.splitlines().index("hStart zero s") + 1
    with pytest.raises(mastersim.InputError) as raised:
        mastersim.simulate(project, working_dir=tmp_path / "wd")
    assert f"{project}:{line}:" in str(raised.value)
    assert "hStart 'zero s'" in str(raised.value)


def test_an_fmu_that_fails_is_a_simulation_error_and_keeps_the_results(tmp_path):
    with pytest.raises(mastersim.SimulationError) as raised:
        mastersim.simulate(
            fmu("Faulty"), working_dir=tmp_path, stop_time=2, set={"errorTime": 0.95}
        )
    message = str(raised.value)
    assert "slave 'Faulty'" in message and "t=0.9 s" in message and "Error" in message
    rows = (tmp_path / "results" / "values.csv").read_text().splitlines()
    assert rows[-1].split("\t")[0] == "0.9", "the rows up to the failure are written"
    assert '"outcome": "Failed"' in (tmp_path / "log" / "summary.json").read_text()


def test_a_session_that_fails_raises_from_the_step(tmp_path):
    with mastersim.Session(
        fmu("Faulty"), working_dir=tmp_path, stop_time=2, set={"errorTime": 0.95}
    ) as session:
        for _ in range(9):
            session.step()
        assert session.time == pytest.approx(0.9)
        with pytest.raises(mastersim.SimulationError, match="doStep failed at t=0.9 s"):
            session.step()


def test_a_closed_session_says_so(tmp_path):
    session = mastersim.Session(LOTKA, working_dir=tmp_path)
    session.run_until(1.0)
    session.close()
    assert session.closed
    session.close()  # a second close does nothing
    for call in [session.step, session.run, lambda: session.get("Prey.x"), lambda: session.time]:
        with pytest.raises(mastersim.MastersimError, match="is closed"):
            call()


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda p, wd: mastersim.simulate(123), "PathLike"),
        (lambda p, wd: mastersim.simulate(p, working_dir=wd, stop_tme=3), "did you mean 'stop_time'"),
        (lambda p, wd: mastersim.simulate(p, working_dir=wd, threads="two"), "threads"),
        (lambda p, wd: mastersim.simulate(p, working_dir=wd, stop_time=True), "stop_time"),
        (lambda p, wd: mastersim.simulate(p, working_dir=wd, set=["Prey.alpha=1"]), "set"),
        (lambda p, wd: mastersim.simulate(p, working_dir=wd, set={"Prey.alpha": []}), "Prey.alpha"),
        (lambda p, wd: mastersim.simulate(p, working_dir=wd, skip_unzip=1), "True or False"),
        (lambda p, wd: mastersim.Session(p, working_dir=wd).get(5), "name"),
        (lambda p, wd: mastersim.Session(p, working_dir=wd).run_until("end"), "real number"),
    ],
)
def test_wrong_argument_types_are_type_errors(call, message, tmp_path):
    with pytest.raises(TypeError, match=message):
        call(LOTKA, tmp_path)


@pytest.mark.parametrize(
    "options, message",
    [
        ({"threads": 0}, "at least 1 thread"),
        ({"real_time": -1.0}, "factor > 0"),
        ({"result_formats": ["csv", "nat"]}, "did you mean 'mat'"),
        ({"time_arithmetic": "fast"}, "'exact' or 'mastersim'"),
        ({"output_threshold": 0.0}, "threshold > 0"),
    ],
)
def test_options_out_of_range_are_input_errors(options, message, tmp_path):
    with pytest.raises(mastersim.InputError, match=message):
        mastersim.simulate(LOTKA, working_dir=tmp_path, **options)


def test_an_unknown_variable_offers_the_name_meant(tmp_path):
    with mastersim.Session(LOTKA, working_dir=tmp_path) as session:
        session.initialize()
        with pytest.raises(mastersim.InputError, match="Prey"):
            session.get("Prey.xx")
        with pytest.raises(mastersim.InputError, match="no slave 'Pray'"):
            session.get(["Prey.x", "Pray.x"])


def test_a_value_the_slave_refuses_is_a_simulation_error(tmp_path):
    """The own Prey FMU refuses fmi2GetReal of its state before initialization."""
    with mastersim.Session(LOTKA, working_dir=tmp_path) as session:
        with pytest.raises(mastersim.SimulationError, match="slave 'Prey'.*fmi2GetReal"):
            session.get("Prey.x")
