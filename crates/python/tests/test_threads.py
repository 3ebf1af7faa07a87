"""Long runs release the GIL (simulations in several Python threads run at once) and Ctrl-C
stops a run within 100 ms, with complete result files as after SIGINT on the command line."""

import os
import signal
import threading
import time

import pytest

import mastersim
from conftest import PROJECTS, fmu

# Ctrl-C must end a run within this wall time, s.
INTERRUPT_LIMIT = 0.1


def long_project(tmp_path):
    """Lotka-Volterra for 10⁶ s, a row every 0.01 s: runs far longer than any test."""
    text = (PROJECTS / "lotka_volterra.msim").read_text()
    text = text.replace('"../fmus/', f'"{PROJECTS.parent}/fmus/')
    project = tmp_path / "long.msim"
    project.write_text(text + "\ntEnd 1000000 s\nhOutputMin 0.01 s\n")
    return project


def ctrl_c_after(seconds):
    """Sends SIGINT to this process after `seconds` from another thread; returns the list
    that receives the time it was sent (time.perf_counter)."""
    sent = []

    def send():
        sent.append(time.perf_counter())
        os.kill(os.getpid(), signal.SIGINT)

    threading.Timer(seconds, send).start()
    return sent


def assert_complete_rows(wd, t):
    """values.csv ends with a complete row at `t`, and summary.json says interrupted."""
    lines = (wd / "results" / "values.csv").read_text().splitlines()
    assert all(len(line.split("\t")) == 3 for line in lines[1:]), "no partial row"
    assert float(lines[-1].split("\t")[0]) == pytest.approx(t)
    summary = (wd / "log" / "summary.json").read_text()
    assert '"outcome": "Interrupted"' in summary
    assert "KeyboardInterrupt" in (wd / "log" / "summary.txt").read_text()
    assert (wd / "results" / "long.mat").stat().st_size > 0


def test_ctrl_c_stops_a_session_run_within_100_ms(tmp_path):
    wd = tmp_path / "wd"
    with mastersim.Session(
        long_project(tmp_path), working_dir=wd, result_formats=["csv", "mat"],
        checkpoint_on_stop=True,
    ) as session:
        sent = ctrl_c_after(0.5)
        with pytest.raises(KeyboardInterrupt):
            session.run()
        delay = time.perf_counter() - sent[0]
        print(f"Session.run ended {delay * 1000:.1f} ms after SIGINT")
        assert delay < INTERRUPT_LIMIT
        assert session.outcome == "interrupted"
        t = session.time
        assert 0 < t < 1e6
    assert_complete_rows(wd, t)
    assert (wd / "checkpoint" / "state.bin").stat().st_size > 0, "checkpoint at the stop"


def test_ctrl_c_stops_simulate_within_100_ms(tmp_path):
    wd = tmp_path / "wd"
    sent = ctrl_c_after(0.5)
    with pytest.raises(KeyboardInterrupt):
        mastersim.simulate(long_project(tmp_path), working_dir=wd, result_formats=["csv", "mat"])
    delay = time.perf_counter() - sent[0]
    print(f"simulate() ended {delay * 1000:.1f} ms after SIGINT (result files finished)")
    assert delay < INTERRUPT_LIMIT
    last = (wd / "results" / "values.csv").read_text().splitlines()[-1]
    assert_complete_rows(wd, float(last.split("\t")[0]))


def busy_run(wd, seconds, work_micros):
    """The Busy FMU for `seconds` of simulated time in steps of 0.01 s, each spending
    `work_micros` µs of CPU."""
    return mastersim.simulate(
        fmu("Busy"), working_dir=wd, stop_time=seconds, step_size=0.01,
        set={"workMicros": work_micros},
    )


def test_simulations_in_two_threads_run_at_once(tmp_path):
    """A short run started in a second thread while a 1 s run goes on ends first: with the
    GIL held by the long run, the second thread could not even wake from its sleep."""
    ended = {}

    def run(name, delay, seconds, work_micros):
        time.sleep(delay)
        started = time.perf_counter()
        busy_run(tmp_path / name, seconds, work_micros)
        ended[name] = (started, time.perf_counter())

    long = threading.Thread(target=run, args=("long", 0.0, 1.0, 10_000))
    short = threading.Thread(target=run, args=("short", 0.3, 0.1, 1_000))
    long.start()
    short.start()
    long.join()
    short.join()
    print({name: f"{(end - start) * 1000:.0f} ms" for name, (start, end) in ended.items()})
    assert ended["long"][1] - ended["long"][0] > 0.5, "the long run takes about 1 s"
    assert ended["short"][1] < ended["long"][1], "the short run ended while the long one ran"


def test_a_busy_session_refuses_at_once_and_stop_ends_its_run(tmp_path):
    session = mastersim.Session(long_project(tmp_path), working_dir=tmp_path / "wd")
    outcome = []
    runner = threading.Thread(target=lambda: outcome.append(session.run()))
    runner.start()
    time.sleep(0.3)
    with pytest.raises(mastersim.MastersimError, match="busy"):
        session.time
    asked = time.perf_counter()
    session.stop()
    runner.join(timeout=10)
    print(f"stop() ended the run in {(time.perf_counter() - asked) * 1000:.1f} ms")
    assert not runner.is_alive()
    assert session.outcome == "interrupted"
    assert outcome == [session.time]
    session.close()
    assert session.closed


def test_real_time_paces_the_run_and_keeps_the_values(tmp_path):
    lotka = PROJECTS / "lotka_volterra.msim"
    started = time.perf_counter()
    paced = mastersim.simulate(lotka, working_dir=tmp_path / "paced", stop_time=2, real_time=10)
    wall = time.perf_counter() - started
    assert wall >= 0.19, f"2 s at 10× real time take 0.2 s, not {wall:.3f} s"
    unpaced = mastersim.simulate(lotka, working_dir=tmp_path / "unpaced", stop_time=2)
    assert paced.values.tobytes() == unpaced.values.tobytes()
    assert "RealTimeFactor=" in (tmp_path / "paced" / "log" / "summary.txt").read_text()
