"""Model Exchange: mastersim's CVODE against FMPy's CVode, side by side in one run.

    python crates/python/bench/bench_me.py [runs] [relative_tolerance]

Three Model Exchange runs, each `runs` times (default 7, medians printed) at the same relative
tolerance (default 1e-6) and the same output grid:
- VanDerPol (corpus, Reference FMUs 0.0.1, FMI 2.0) from 0 to 20 s, output every 0.04 s;
- the own stiff `Robertson` FMU (fmus/packed) from 0 to 4e4 s, output every 40 s;
- VanDerPol again for one communication step of 0.04 s: the fixed cost of a call (loading,
  instantiation, result files, freeing), nearly without integration.

FMPy: `fmpy.simulate_fmu(..., fmi_type='ModelExchange', solver='CVode',
relative_tolerance=...)` in this process, with the FMU extracted once and its model description
read once (its fastest documented reuse). mastersim, reusing its extracted FMU as FMPy does
(`skip_unzip`), three figures:
- `mastersim.simulate(path, fmi_type='ModelExchange', solver='CVode', relative_tolerance=...)`
  in this process (loading, instantiation, run, result files, freeing): the like-for-like
  comparison, and the ratio the table's "speed-up" column gives;
- the `mastersim` program (`target/release/mastersim` or $MASTERSIM_BIN) with `--fmi-type me
  --solver CVode --relative-tolerance ... --skip-unzip`: the whole process, start to exit;
- the run itself: `WallClockTime` of the program's `log/summary.txt` (first to last
  communication point).

Besides the wall time, the CPU time of this process (all its threads, `time.process_time`)
during each in-process call, for FMPy and `mastersim.simulate`: on a machine loaded by other
work a call of a few milliseconds is often preempted, and its wall time then measures the
scheduler more than the program; the CPU time does not.

Accuracy: both against a reference made by FMPy's CVode on the same grid at a tight relative
tolerance (VanDerPol 1e-12; Robertson 1e-9, the tightest at which FMPy's CVode does not stop at
its limit of steps per output interval); the error is the largest deviation over all states and output times, relative to each
state's range over the run (Robertson's y2 is four orders of magnitude below y1 and y3, so each
state counts against its own range).

The corpus is found at ../shared/corpus from the workspace root, or $MASTERSIM_CORPUS.
"""

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import fmpy
from fmpy import extract, read_model_description

import mastersim

WORKSPACE = Path(__file__).resolve().parents[3]
CORPUS = Path(os.environ.get("MASTERSIM_CORPUS", WORKSPACE.parent / "shared" / "corpus"))
MASTERSIM = Path(os.environ.get("MASTERSIM_BIN", WORKSPACE / "target" / "release" / "mastersim"))


def existing(path):
    if not Path(path).is_file():
        sys.exit(f"missing: {path} (corpus: set MASTERSIM_CORPUS; program: cargo build --release)")
    return str(path)


def read_values(path):
    """values.csv of a mastersim run: {variable name: column}, `time` first."""
    lines = Path(path).read_text().splitlines()
    names = [c.strip().split(" [")[0].split(".", 1)[-1] for c in lines[0].split("\t")]
    names[0] = "time"
    data = np.array([[float(c) for c in line.split("\t")] for line in lines[1:] if line])
    return {name: data[:, i] for i, name in enumerate(names)}


def summary_value(path, key):
    for line in Path(path).read_text().splitlines():
        if line.startswith(key + "="):
            return float(line.split("=", 1)[1])
    sys.exit(f"{path}: no {key}")


class Case:
    """One model: its FMU, stop time (s), output interval (s) and states."""

    def __init__(self, label, fmu, stop, interval, states, reference_tolerance):
        self.label, self.fmu, self.stop, self.interval, self.states = (
            label, existing(fmu), stop, interval, states)
        self.reference_tolerance = reference_tolerance
        self.model = Path(self.fmu).stem
        self.unzipdir = extract(self.fmu)
        self.md = read_model_description(self.unzipdir)

    def fmpy(self, rtol):
        return fmpy.simulate_fmu(
            self.unzipdir, model_description=self.md, fmi_type="ModelExchange",
            solver="CVode", relative_tolerance=rtol, stop_time=self.stop,
            output_interval=self.interval)

    def api(self, rtol, working_dir):
        result = mastersim.simulate(
            self.fmu, fmi_type="ModelExchange", solver="CVode", relative_tolerance=rtol,
            stop_time=self.stop, step_size=self.interval, working_dir=working_dir,
            skip_unzip=True)
        values = result.values
        return {"time": values["time"],
                **{n: values[f"{self.model}.{n}"] for n in self.states}}

    def program(self, rtol, working_dir, reuse):
        args = [str(MASTERSIM), self.fmu, "--fmi-type", "me", "--solver", "CVode",
                "--relative-tolerance", repr(rtol), "--stop-time", repr(self.stop),
                "--step-size", repr(self.interval), "--working-dir", str(working_dir),
                "--verbosity-level", "0"] + (["--skip-unzip"] if reuse else [])
        began = time.perf_counter()
        subprocess.run(args, check=True, capture_output=True)
        seconds = time.perf_counter() - began
        run = summary_value(Path(working_dir) / "log" / "summary.txt", "WallClockTime")
        return seconds, run, read_values(Path(working_dir) / "results" / "values.csv")

    def error(self, result, reference):
        worst = 0.0
        for name in self.states:
            scale = np.ptp(reference[name])
            worst = max(worst, float(np.max(np.abs(result[name] - reference[name])) / scale))
        return worst


def measure(case, runs, rtol, tmp):
    reference = case.fmpy(case.reference_tolerance)
    theirs, ours_api, ours_process, ours_run = [], [], [], []
    theirs_cpu, ours_cpu = [], []
    working_dir = Path(tmp) / case.label
    case.program(rtol, working_dir, reuse=False)  # extract once, as FMPy's extract() above
    for _ in range(runs):
        began, cpu = time.perf_counter(), time.process_time()
        fmpy_result = case.fmpy(rtol)
        theirs.append(time.perf_counter() - began)
        theirs_cpu.append(time.process_time() - cpu)
        began, cpu = time.perf_counter(), time.process_time()
        api = case.api(rtol, working_dir)
        ours_api.append(time.perf_counter() - began)
        ours_cpu.append(time.process_time() - cpu)
        process, run, ours = case.program(rtol, working_dir, reuse=True)
        ours_process.append(process)
        ours_run.append(run)
    for result in (api, ours):
        if len(result["time"]) != len(reference["time"]) or \
                np.max(np.abs(result["time"] - reference["time"])) > 1e-9:
            sys.exit(f"{case.label}: the output grids differ")
    if any(not np.allclose(api[n], ours[n], rtol=1e-12, atol=1e-13) for n in case.states):
        sys.exit(f"{case.label}: mastersim.simulate and the program differ")
    m = [1000 * statistics.median(x)
         for x in (theirs, theirs_cpu, ours_api, ours_cpu, ours_process, ours_run)]
    print(f"{case.label:<26} {m[0]:8.2f} {m[1]:8.2f} {case.error(fmpy_result, reference):8.1e} "
          f"{m[2]:8.2f} {m[3]:8.2f} {m[4]:8.2f} {m[5]:8.2f} "
          f"{case.error(ours, reference):8.1e} {m[0] / m[2]:8.1f}x {m[1] / m[3]:8.1f}x")


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    rtol = float(sys.argv[2]) if len(sys.argv) > 2 else 1e-6
    existing(MASTERSIM)
    cases = [
        Case("VanDerPol (FMI 2.0), 20 s",
             CORPUS / "crosscheck/fmi2/TestFMUs-0.0.1/VanDerPol/VanDerPol.fmu",
             20.0, 0.04, ["x0", "x1"], 1e-12),
        Case("Robertson, 4e4 s", WORKSPACE / "fmus/packed/Robertson.fmu",
             4e4, 40.0, ["y1", "y2", "y3"], 1e-9),
        Case("VanDerPol, 1 step (fixed)",
             CORPUS / "crosscheck/fmi2/TestFMUs-0.0.1/VanDerPol/VanDerPol.fmu",
             0.04, 0.04, ["x0", "x1"], 1e-12),
    ]
    print(f"Model Exchange, CVODE at relative tolerance {rtol:g}; medians of {runs} runs; "
          "errors relative to each state's range, against FMPy CVode at a tight tolerance")
    print(f"{'':<26} {'FMPy':>26} | {'mastersim':>44} | {'speed-up (api)':>18}")
    print(f"{'model':<26} {'ms':>8} {'cpu ms':>8} {'error':>8} {'ms: api':>8} {'cpu ms':>8} "
          f"{'process':>8} {'run':>8} {'error':>8} {'wall':>9} {'cpu':>9}")
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases:
            measure(case, runs, rtol, tmp)


if __name__ == "__main__":
    main()
