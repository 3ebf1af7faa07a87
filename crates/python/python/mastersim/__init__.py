"""mastersim: an FMI co-simulation master.

See docs/python.md for the API.
"""

from ._mastersim import InputError, MastersimError, SimulationError, __version__

__all__ = ["InputError", "MastersimError", "SimulationError", "__version__"]
