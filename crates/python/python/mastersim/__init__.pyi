"""Type stubs of the package `mastersim` (see docs/python.md). Times are in seconds."""

import os
from pathlib import Path
from types import TracebackType
from types import SimpleNamespace
from typing import Any, Callable, Dict, List, Literal, Mapping, Optional, Sequence, Type, Union, final, overload

import numpy as np
import numpy.typing as npt

__version__: str

__all__ = ["InputError", "MastersimError", "SimulationError", "__version__"]
__all__ += ["ProjectNotFoundError", "Session", "SimulationResult", "Variable", "simulate"]
__all__ += ["clear_fmu_cache", "read_model_description", "simulate_fmu"]

class MastersimError(Exception):
    """Base class of every error that mastersim raises."""

class InputError(MastersimError):
    """A project, FMU, SSP system, option or argument that cannot be used (the command
    line's exit code 2); the message names the file and line and offers the name meant."""

class ProjectNotFoundError(InputError, FileNotFoundError):
    """The project, FMU or SSP system does not exist; `filename` is the path given."""

class SimulationError(MastersimError):
    """Initializing or stepping failed (exit code 1); the results up to there stay written."""

_Path = Union[str, "os.PathLike[str]"]
#: A time: seconds, or a text with a unit ("2 min").
_Time = Union[float, int, str]
#: A value for `set`: written into the project as `<name>=<value>`.
_SetValue = Union[bool, int, float, str]
#: A variable's value: Real, Integer, Boolean, String, Binary (FMI 3.0).
_Value = Union[float, int, bool, str, bytes]
_Format = Literal["csv", "mat", "json"]

@final
class Variable:
    """A variable of a slave (`Session.variables`)."""

    @property
    def name(self) -> str:
        """`<slave>.<variable>`."""
    @property
    def type(self) -> Literal["Real", "Integer", "Boolean", "String", "Binary"]: ...
    @property
    def causality(self) -> str:
        """FMI causality: parameter, calculatedParameter, input, output, local, independent."""
    @property
    def variability(self) -> str:
        """FMI variability: constant, fixed, tunable, discrete, continuous."""
    @property
    def unit(self) -> Optional[str]: ...

@final
class SimulationResult:
    """What `simulate` returns."""

    @property
    def values(self) -> npt.NDArray[np.void]:
        """Structured array, shape (rows,): field `time` (s), then one float64 field per
        column of values.csv, named `<slave>.<variable>`."""
    @property
    def statistics(self) -> Dict[str, int]:
        """Run-wide counters: steps, algorithm_calls, iterations, convergence_fails,
        iteration_limit_exceeded, error_test_fails, fmu_errors."""
    @property
    def summary(self) -> Dict[str, Any]:
        """The content of log/summary.json."""
    @property
    def working_dir(self) -> Path:
        """The working directory (absolute): results/, log/, fmus/."""

def simulate(
    path: _Path,
    *,
    start_time: Optional[_Time] = None,
    stop_time: Optional[_Time] = None,
    step_size: Optional[_Time] = None,
    working_dir: Optional[_Path] = None,
    result_formats: Optional[Union[_Format, Sequence[_Format]]] = None,
    output_threshold: Optional[float] = None,
    output_only: Union[str, Sequence[str], None] = None,
    set: Optional[Mapping[str, _SetValue]] = None,
    parameter_set: Optional[str] = None,
    real_time: Optional[float] = None,
    checkpoint_interval: Optional[float] = None,
    checkpoint_on_stop: Optional[bool] = None,
    threads: Optional[int] = None,
    time_arithmetic: Optional[Literal["exact", "mastersim"]] = None,
    input: Optional[_Path] = None,
    skip_unzip: Optional[bool] = None,
    allow_outside_references: Optional[bool] = None,
    fmu_logging: Optional[bool] = None,
    fmi_type: Optional[str] = None,
    solver: Optional[str] = None,
    relative_tolerance: Optional[float] = None,
) -> SimulationResult:
    """Runs a project (.msim), SSP system (.ssp, .ssd, folder) or FMU to the end.

    Raises ProjectNotFoundError, InputError, SimulationError; TypeError for a wrong
    argument; KeyboardInterrupt after Ctrl-C stopped the run (result files complete)."""

@final
class Session:
    """A project, SSP system or FMU opened for simulation; a context manager whose end
    (also by an exception) completes the result files, terminates and frees every FMU."""

    def __new__(
        cls,
        path: _Path,
        *,
        start_time: Optional[_Time] = None,
        stop_time: Optional[_Time] = None,
        step_size: Optional[_Time] = None,
        working_dir: Optional[_Path] = None,
        result_formats: Optional[Union[_Format, Sequence[_Format]]] = None,
        output_threshold: Optional[float] = None,
        output_only: Union[str, Sequence[str], None] = None,
        set: Optional[Mapping[str, _SetValue]] = None,
        parameter_set: Optional[str] = None,
        real_time: Optional[float] = None,
        checkpoint_interval: Optional[float] = None,
        checkpoint_on_stop: Optional[bool] = None,
        threads: Optional[int] = None,
        time_arithmetic: Optional[Literal["exact", "mastersim"]] = None,
        input: Optional[_Path] = None,
        skip_unzip: Optional[bool] = None,
        allow_outside_references: Optional[bool] = None,
        fmu_logging: Optional[bool] = None,
        fmi_type: Optional[str] = None,
        solver: Optional[str] = None,
        relative_tolerance: Optional[float] = None,
    ) -> "Session": ...
    def __enter__(self) -> "Session": ...
    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc_value: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> bool: ...
    def initialize(self) -> None:
        """Initializes the slaves, creates the result files, writes the first row."""
    def step(self) -> float:
        """One communication step; returns the new communication point, s."""
    def run_until(self, t: float) -> float:
        """Steps until the communication point reaches t (s) or the run ends."""
    def run(self) -> float:
        """Runs to the end (paced with real_time); returns the last communication point, s."""
    def stop(self) -> None:
        """From another thread: ends a run at its next communication point."""
    @property
    def time(self) -> float:
        """The current communication point, s."""
    @overload
    def get(self, names: str) -> _Value: ...  # type: ignore[overload-overlap]
    @overload
    def get(self, names: Sequence[str]) -> List[_Value]: ...
    def set(self, name: str, value: _Value) -> None:
        """Sets an input no connection drives, or a tunable parameter, between steps."""
    @property
    def variables(self) -> List[Variable]: ...
    def snapshot(self) -> bytes:
        """The state of the whole run, for restore()."""
    def restore(self, state: bytes) -> None: ...
    def save_checkpoint(self, path: _Path) -> int:
        """Writes a checkpoint of the current communication point; returns its size, bytes."""
    @property
    def values(self) -> npt.NDArray[np.void]:
        """The rows so far: shape (rows,), field `time` (s), one float64 field per column."""
    @property
    def statistics(self) -> Dict[str, int]: ...
    @property
    def outcome(self) -> Optional[Literal["completed", "terminated", "interrupted"]]: ...
    @property
    def working_dir(self) -> Path: ...
    @property
    def closed(self) -> bool: ...
    def close(self) -> None:
        """Completes the result files and summary, terminates and frees every FMU."""

def simulate_fmu(
    filename: Union[str, "os.PathLike[str]"],
    validate: bool = True,
    start_time: Union[float, str, None] = None,
    stop_time: Union[float, str, None] = None,
    solver: str = "CVode",
    step_size: Union[float, str, None] = None,
    relative_tolerance: Union[float, str, None] = None,
    output_interval: Union[float, str, None] = None,
    record_events: bool = True,
    fmi_type: Optional[str] = None,
    start_values: Optional[Dict[str, Any]] = None,
    apply_default_start_values: bool = False,
    input: Optional[npt.NDArray[np.void]] = None,
    output: Optional[Sequence[str]] = None,
    timeout: Union[float, str, None] = None,
    debug_logging: bool = False,
    visible: bool = False,
    logger: Optional[Callable[..., Any]] = None,
    fmi_call_logger: Optional[Callable[[str], None]] = None,
    step_finished: Optional[Callable[[float, Any], bool]] = None,
    model_description: Any = None,
    fmu_instance: Any = None,
    set_input_derivatives: bool = False,
    remote_platform: Optional[str] = "auto",
    early_return_allowed: bool = False,
    use_event_mode: bool = False,
    initialize: bool = True,
    terminate: bool = True,
    fmu_state: Any = None,
    set_stop_time: bool = True,
) -> npt.NDArray[np.void]:
    """FMPy 0.3's simulate_fmu for a co-simulation FMU.

    Returns a structured array of shape (rows,): field 'time' (float64, s) first, then one
    field per recorded variable with FMPy's names, order and dtypes. Times in seconds.
    Raises InputError for a bad file, argument or an unsupported keyword (fmi_type=
    'ModelExchange', step_finished, fmu_instance, fmu_state, logger, fmi_call_logger,
    set_input_derivatives=True, initialize=False, apply_default_start_values=True, a
    remote_platform other than 'auto'), SimulationError for a failed FMI call.
    """

def read_model_description(
    filename: Union[str, "os.PathLike[str]"], validate: bool = True
) -> SimpleNamespace:
    """The FMU's description with FMPy's attribute names (fmiVersion, modelName, guid,
    coSimulation, modelExchange, defaultExperiment, modelVariables, ...). Raises InputError."""

def clear_fmu_cache() -> None:
    """Frees the FMUs simulate_fmu keeps loaded between calls."""
