"""Type stubs of the extension module mastersim._mastersim (see docs/python.md)."""

from os import PathLike
from types import SimpleNamespace
from typing import Any, Callable, Dict, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

__version__: str

class MastersimError(Exception):
    """Base class of every error that mastersim raises."""

class InputError(MastersimError):
    """A file, option or argument that cannot be used; the message names file and line."""

class SimulationError(MastersimError):
    """A simulation that failed while initializing or stepping."""

def simulate_fmu(
    filename: Union[str, "PathLike[str]"],
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
    filename: Union[str, "PathLike[str]"], validate: bool = True
) -> SimpleNamespace:
    """The FMU's description with FMPy's attribute names (fmiVersion, modelName, guid,
    coSimulation, modelExchange, defaultExperiment, modelVariables, ...). Raises InputError."""

def clear_fmu_cache() -> None:
    """Frees the FMUs simulate_fmu keeps loaded between calls."""
