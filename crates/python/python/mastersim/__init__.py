"""mastersim: an FMI co-simulation master.

FMPy's entry points (`simulate_fmu`, `read_model_description`), and what FMPy does not have:
`simulate` for projects, SSP systems and FMUs, and `Session` to step them. See docs/python.md.
"""

import atexit as _atexit

from ._mastersim import (
    InputError,
    MastersimError,
    ProjectNotFoundError,
    Session,
    SimulationError,
    SimulationResult,
    Variable,
    __version__,
    clear_fmu_cache,
    read_model_description,
    simulate,
    simulate_fmu,
)

__all__ = [
    "InputError",
    "MastersimError",
    "ProjectNotFoundError",
    "Session",
    "SimulationError",
    "SimulationResult",
    "Variable",
    "__version__",
    "clear_fmu_cache",
    "read_model_description",
    "simulate",
    "simulate_fmu",
]

# The FMUs that simulate_fmu keeps loaded are freed before the interpreter ends.
_atexit.register(clear_fmu_cache)
