"""Model Exchange against FMPy: the corpus's VanDerPol (Reference FMUs 0.0.1, FMI 2.0, and
0.0.37, FMI 3.0) run as Model Exchange by mastersim (its CVODE integrator) and by
`fmpy.simulate_fmu(..., fmi_type='ModelExchange', solver='CVode')` at the same relative
tolerance and output grid agree within 1e-4 of each state's range over the run (x0 and x1 span
about 4 and 5.3; measured 2.2e-5). Both integrate with CVODE's BDF method, but each with its own
step-size history (mastersim restarts at no communication point, FMPy stops at each), so they
differ by their integration errors, well inside the tolerance's 1e-6 relative per step summed
over the run.

mastersim runs through `mastersim.simulate(path, fmi_type=..., solver=...,
relative_tolerance=...)` and through the `mastersim` program's `--fmi-type me --solver CVode
--relative-tolerance`; both give the same values (to the 14 digits of values.csv)."""

import subprocess

import numpy as np
import pytest

import fmpy
import mastersim

from test_fmpy import fmi2, fmi3

TOLERANCE = 1e-6
STOP, INTERVAL = 20.0, 0.01


def fmpy_result(path):
    return fmpy.simulate_fmu(path, fmi_type="ModelExchange", solver="CVode",
                             relative_tolerance=TOLERANCE, stop_time=STOP,
                             output_interval=INTERVAL)


def api_result(path, tmp_path):
    result = mastersim.simulate(path, fmi_type="ModelExchange", solver="CVode",
                                relative_tolerance=TOLERANCE, stop_time=STOP,
                                step_size=INTERVAL, working_dir=tmp_path / "api")
    values = result.values
    return {"time": values["time"], "x0": values["VanDerPol.x0"], "x1": values["VanDerPol.x1"]}


def cli_result(cli, path, tmp_path):
    working_dir = tmp_path / "cli"
    subprocess.run([str(cli), path, "--fmi-type", "me", "--solver", "CVode",
                    "--relative-tolerance", repr(TOLERANCE), "--stop-time", repr(STOP),
                    "--step-size", repr(INTERVAL), "--working-dir", str(working_dir),
                    "--verbosity-level", "0"], check=True, capture_output=True)
    lines = (working_dir / "results" / "values.csv").read_text().splitlines()
    names = [c.strip().split(" [")[0] for c in lines[0].split("\t")]
    rows = np.array([[float(c) for c in line.split("\t")] for line in lines[1:] if line])
    columns = {name: rows[:, i] for i, name in enumerate(names)}
    return {"time": columns["Time"], "x0": columns["VanDerPol.x0"],
            "x1": columns["VanDerPol.x1"]}


def largest_deviation(ours, theirs):
    """The largest |ours − FMPy| over x0 and x1, relative to each state's range in FMPy's run."""
    np.testing.assert_allclose(ours["time"], theirs["time"], rtol=0, atol=1e-9)
    return max(float(np.max(np.abs(ours[n] - theirs[n])) / np.ptp(theirs[n]))
               for n in ("x0", "x1"))


@pytest.mark.parametrize("kind", ["fmi2", "fmi3"])
def test_van_der_pol_as_model_exchange_matches_fmpy_cvode(cli, tmp_path, kind):
    path = fmi2("VanDerPol") if kind == "fmi2" else fmi3("VanDerPol")
    theirs = fmpy_result(path)
    assert len(theirs) == int(STOP / INTERVAL) + 1
    from_api = api_result(path, tmp_path)
    from_cli = cli_result(cli, path, tmp_path)
    for ours in (from_api, from_cli):
        deviation = largest_deviation(ours, theirs)
        assert deviation <= 1e-4, f"{kind} VanDerPol: {deviation:.2e} of the range"
    for name in ("x0", "x1"):
        # values.csv prints 14 significant digits; the API gives the same numbers in full.
        np.testing.assert_allclose(from_api[name], from_cli[name], rtol=1e-12, atol=1e-13,
                                   err_msg=name)


def test_model_exchange_keywords_are_checked(tmp_path):
    path = fmi2("VanDerPol")
    with pytest.raises(mastersim.InputError, match="solver: .*Euler"):
        mastersim.simulate(path, fmi_type="ModelExchange", solver="RK45",
                           working_dir=tmp_path / "a")
    with pytest.raises(mastersim.InputError, match="fmi_type: .*ModelExchange"):
        mastersim.simulate(path, fmi_type="Hybrid", working_dir=tmp_path / "b")
    with pytest.raises(mastersim.InputError, match="mastersim.simulate"):
        mastersim.simulate_fmu(path, fmi_type="ModelExchange")
