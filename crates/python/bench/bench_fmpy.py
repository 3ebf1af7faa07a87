"""mastersim.simulate_fmu against fmpy.simulate_fmu, side by side in one process.

    python crates/python/bench/bench_fmpy.py [runs]

1. `runs` (default 1000) runs of the Reference FMU BouncingBall (FMI 3.0, 0.0.37, its default
   experiment) through each, with each one's fastest documented reuse: FMPy with the FMU
   extracted once, the model description read once and one instance reset between runs
   (`unzipdir`-style folder, `model_description=`, `fmu_instance=`); mastersim with its own
   cache (the FMU stays extracted and loaded between calls).
2. One long run of VanDerPol (FMI 3.0) with 10**6 communication steps, returning the array.
3. The process's resident memory (VmRSS) and open file descriptors before and after the
   mastersim runs.

The corpus is found at ../shared/corpus from the workspace root, or $MASTERSIM_CORPUS.
"""

import os
import sys
import time
from pathlib import Path

import fmpy
from fmpy import extract, instantiate_fmu, read_model_description

import mastersim

WORKSPACE = Path(__file__).resolve().parents[3]
CORPUS = Path(os.environ.get("MASTERSIM_CORPUS", WORKSPACE.parent / "shared" / "corpus"))


def corpus_file(relative):
    path = CORPUS / relative
    if not path.is_file():
        sys.exit(f"corpus file missing: {path} (set MASTERSIM_CORPUS)")
    return str(path)


def rss_kib():
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def open_files():
    return len(os.listdir("/proc/self/fd"))


def timed(label, function, runs):
    began = time.perf_counter()
    for _ in range(runs):
        result = function()
    seconds = time.perf_counter() - began
    print(f"{label:<40} {seconds:8.3f} s  ({1000 * seconds / runs:.3f} ms per run, {len(result)} rows)")
    return seconds


def fmpy_reusing(path, **options):
    """FMPy's fastest documented reuse: extract once, read once, one instance reset per run."""
    unzipdir = extract(path)
    md = read_model_description(unzipdir)
    instance = instantiate_fmu(unzipdir, md, "CoSimulation")

    def run():
        instance.reset()
        return fmpy.simulate_fmu(unzipdir, model_description=md, fmu_instance=instance, **options)

    return run


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    ball = corpus_file("fmi3/BouncingBall/BouncingBall.fmu")
    vdp = corpus_file("fmi3/VanDerPol/VanDerPol.fmu")

    print(f"1. {runs} runs of BouncingBall (FMI 3.0, default experiment)")
    mastersim.simulate_fmu(ball)  # load once, as FMPy's extract/instantiate above
    rss0, files0 = rss_kib(), open_files()
    ours = timed("mastersim.simulate_fmu", lambda: mastersim.simulate_fmu(ball), runs)
    rss1, files1 = rss_kib(), open_files()
    theirs = timed("fmpy.simulate_fmu (reused instance)", fmpy_reusing(ball), runs)
    print(f"   mastersim is {theirs / ours:.1f}x faster")
    print(f"   after the mastersim runs: RSS grew by {(rss1 - rss0) / 1024:.2f} MiB, "
          f"open files {files0} -> {files1}")

    print("2. VanDerPol, 10**6 communication steps")
    long = dict(stop_time=1e4, output_interval=1e-2)
    ours = timed("mastersim.simulate_fmu", lambda: mastersim.simulate_fmu(vdp, **long), 1)
    theirs = timed("fmpy.simulate_fmu", fmpy_reusing(vdp, **long), 1)
    print(f"   mastersim is {theirs / ours:.1f}x faster")


if __name__ == "__main__":
    main()
