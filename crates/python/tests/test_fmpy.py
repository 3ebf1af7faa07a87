"""mastersim.simulate_fmu against fmpy.simulate_fmu on the corpus's Reference FMUs: the same
field names, dtypes and values (within 1e-12 relative), with and without an input array; the
result goes through fmpy.util.plot_result and write_csv unchanged."""

import os
from pathlib import Path

import numpy as np
import pytest

import fmpy
import fmpy.util
import mastersim

WORKSPACE = Path(__file__).resolve().parents[3]
CORPUS = Path(os.environ.get("MASTERSIM_CORPUS", WORKSPACE.parent / "shared" / "corpus"))
FMI2 = ["BouncingBall", "Dahlquist", "Feedthrough", "Resource", "Stair", "VanDerPol"]
FMI3 = FMI2


def corpus_file(relative):
    path = CORPUS / relative
    if not path.is_file():
        pytest.fail(f"corpus file missing: {path} (set MASTERSIM_CORPUS to the corpus folder)")
    return str(path)


def fmi2(model):
    return corpus_file(f"crosscheck/fmi2/TestFMUs-0.0.1/{model}/{model}.fmu")


def fmi3(model):
    return corpus_file(f"fmi3/{model}/{model}.fmu")


def assert_same(ours, theirs):
    assert ours.dtype == theirs.dtype, (ours.dtype, theirs.dtype)
    assert ours.shape == theirs.shape
    assert len(ours) > 1
    for name in ours.dtype.names:
        a, b = ours[name], theirs[name]
        if a.dtype.kind == "f":
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=0, err_msg=name)
        else:
            np.testing.assert_array_equal(a, b, err_msg=name)


FMUS = [("fmi2", m) for m in FMI2 if m != "BouncingBall"] + [("fmi3", m) for m in FMI3]


@pytest.mark.parametrize("kind,model", FMUS)
def test_same_result_as_fmpy(kind, model):
    path = fmi2(model) if kind == "fmi2" else fmi3(model)
    assert_same(mastersim.simulate_fmu(path, validate=False),
                fmpy.simulate_fmu(path, validate=False))


@pytest.mark.parametrize("model", ["BouncingBall", "Stair"])
@pytest.mark.parametrize("options", [dict(use_event_mode=True), dict(early_return_allowed=True)])
def test_fmi3_event_mode_and_early_return_as_fmpy(model, options):
    path = fmi3(model)
    assert_same(mastersim.simulate_fmu(path, **options), fmpy.simulate_fmu(path, **options))


@pytest.mark.parametrize("kind,model", [("fmi2", "Dahlquist"), ("fmi3", "VanDerPol")])
def test_same_result_with_options(kind, model):
    path = fmi2(model) if kind == "fmi2" else fmi3(model)
    md = mastersim.read_model_description(path)
    names = [v.name for v in md.modelVariables if v.causality == "parameter"]
    options = dict(validate=False, start_time=0.5, stop_time=2, output_interval=0.05,
                   relative_tolerance=1e-6, start_values={names[0]: 0.8})
    ours = mastersim.simulate_fmu(path, **options)
    assert_same(ours, fmpy.simulate_fmu(path, **options))
    del options["start_values"]
    unchanged = mastersim.simulate_fmu(path, **options)
    assert not np.array_equal(ours[ours.dtype.names[1]], unchanged[unchanged.dtype.names[1]])


@pytest.mark.parametrize("model", FMI2)
def test_validate_refuses_what_fmpy_refuses(model):
    path = fmi2(model)
    try:
        fmpy.simulate_fmu(path)
        refused = False
    except Exception:
        refused = True
    if refused:
        with pytest.raises(mastersim.InputError, match="validate=False"):
            mastersim.simulate_fmu(path)
    else:
        mastersim.simulate_fmu(path)


def feedthrough_input(md):
    """A Real input ramp with a step at t=0.5, an Integer/Int32 and a Boolean input switching."""
    inputs = {v.name: v.type for v in md.modelVariables if v.causality == "input"}
    real = next(n for n, t in inputs.items() if t in ("Real", "Float64") and "continuous" in n)
    integer = next(n for n, t in inputs.items() if t in ("Integer", "Int32"))
    boolean = next(n for n, t in inputs.items() if t == "Boolean")
    dtype = [("time", np.float64), (real, np.float64), (integer, np.int32), (boolean, np.bool_)]
    rows = [(0.0, 0.0, 0, False), (0.5, 1.0, 0, False), (0.5, 2.0, 3, True),
            (1.33, 0.5, -2, True), (2.0, -1.0, 7, False)]
    return np.array(rows, dtype=dtype)


@pytest.mark.filterwarnings("ignore:missing input")
@pytest.mark.parametrize("path", [lambda: fmi2("Feedthrough"), lambda: fmi3("Feedthrough")])
def test_feedthrough_input_as_fmpy(path):
    path = path()
    signals = feedthrough_input(mastersim.read_model_description(path))
    ours = mastersim.simulate_fmu(path, validate=False, input=signals, output_interval=0.1)
    theirs = fmpy.simulate_fmu(path, validate=False, input=signals, output_interval=0.1)
    assert_same(ours, theirs)
    # The input reaches the output (events at 0.5 and 1.33 are communication points).
    assert 1.33 in np.round(ours["time"], 12)


def test_fmpy_refuses_bouncing_ball_0_0_1_mastersim_runs_it():
    path = fmi2("BouncingBall")
    with pytest.raises(Exception):
        fmpy.simulate_fmu(path, validate=False)
    result = mastersim.simulate_fmu(path, validate=False)
    assert result.dtype.names[0] == "time" and len(result) > 100
    assert result["h"][0] == 1.0 and result["h"].min() < 0.5


def test_plot_result_and_write_csv_accept_the_result(tmp_path, monkeypatch):
    result = mastersim.simulate_fmu(fmi3("VanDerPol"))
    csv = tmp_path / "result.csv"
    fmpy.util.write_csv(str(csv), result)
    lines = csv.read_text().splitlines()
    assert lines[0] == '"time","x0","x1"' and len(lines) == len(result) + 1
    # plot_result builds a plotly figure and shows it; keep the figure instead of a browser.
    import plotly.graph_objects
    shown = []
    monkeypatch.setattr(plotly.graph_objects.Figure, "show", lambda figure: shown.append(figure))
    fmpy.util.plot_result(result)
    traces = {trace.name: trace for trace in shown[0].data}
    assert set(traces) == {"x0", "x1"}
    np.testing.assert_array_equal(traces["x0"].y, result["x0"])


def test_read_model_description_has_fmpy_names():
    ours = mastersim.read_model_description(fmi3("BouncingBall"))
    theirs = fmpy.read_model_description(fmi3("BouncingBall"))
    for attr in ["fmiVersion", "modelName", "guid", "generationTool", "description"]:
        assert getattr(ours, attr) == getattr(theirs, attr), attr
    assert ours.coSimulation.modelIdentifier == theirs.coSimulation.modelIdentifier
    assert ours.defaultExperiment.stopTime == float(theirs.defaultExperiment.stopTime)
    assert [v.name for v in ours.modelVariables] == [v.name for v in theirs.modelVariables]
    for a, b in zip(ours.modelVariables, theirs.modelVariables):
        assert (a.valueReference, a.causality, a.variability, a.type) == \
            (b.valueReference, b.causality, b.variability, b.type), a.name


def test_unsupported_keywords_are_refused_by_name():
    path = fmi3("Dahlquist")
    with pytest.raises(mastersim.InputError, match="ModelExchange"):
        mastersim.simulate_fmu(path, fmi_type="ModelExchange")
    with pytest.raises(mastersim.InputError, match="step_finished"):
        mastersim.simulate_fmu(path, step_finished=lambda t, r: True)
    with pytest.raises(mastersim.InputError, match="fmu_instance"):
        mastersim.simulate_fmu(path, fmu_instance=object())
    with pytest.raises(TypeError, match="no_such_keyword"):
        mastersim.simulate_fmu(path, no_such_keyword=1)
    with pytest.raises(mastersim.SimulationError, match="nonexistent"):
        mastersim.simulate_fmu(path, start_values={"nonexistent": 1})


def test_missing_file_is_named():
    with pytest.raises(mastersim.InputError, match="nowhere.fmu"):
        mastersim.simulate_fmu("nowhere.fmu")


def test_runs_release_the_gil_and_stop_on_ctrl_c():
    import threading
    import time
    import _thread

    path = fmi3("VanDerPol")
    long = dict(stop_time=2e3, output_interval=1e-2)  # 200,000 steps, about 0.1 s
    count = [0]
    done = threading.Event()

    def counter():
        while not done.is_set():
            count[0] += 1

    thread = threading.Thread(target=counter)
    thread.start()
    try:
        before = count[0]
        result = mastersim.simulate_fmu(path, **long)
        during = count[0] - before
    finally:
        done.set()
        thread.join()
    assert len(result) == 200_001
    assert during > 1000, f"another thread ran only {during} times during the run"

    # Ctrl-C (SIGINT's flag, as _thread.interrupt_main raises it) ends a long run promptly.
    timer = threading.Timer(0.2, _thread.interrupt_main)
    began = time.perf_counter()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        mastersim.simulate_fmu(path, stop_time=1e6, output_interval=1e-2)
    assert time.perf_counter() - began < 2.0


def test_a_changed_fmu_file_is_loaded_again(tmp_path):
    import shutil
    path = tmp_path / "model.fmu"
    shutil.copyfile(fmi3("Dahlquist"), path)
    assert mastersim.simulate_fmu(path).dtype.names == ("time", "x")
    shutil.copyfile(fmi3("VanDerPol"), path)
    assert mastersim.simulate_fmu(path).dtype.names == ("time", "x0", "x1")
