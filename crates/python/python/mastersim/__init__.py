"""mastersim: an FMI co-simulation master.

See docs/python.md for the API.
"""

from ._mastersim import InputError, MastersimError, SimulationError, __version__

__all__ = ["InputError", "MastersimError", "SimulationError", "__version__"]

import atexit as _atexit

from ._mastersim import clear_fmu_cache, read_model_description, simulate_fmu

__all__ += ["clear_fmu_cache", "read_model_description", "simulate_fmu"]
_atexit.register(clear_fmu_cache)
