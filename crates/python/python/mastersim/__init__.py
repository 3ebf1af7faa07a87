"""mastersim: an FMI co-simulation master.

See docs/python.md for the API.
"""

from ._mastersim import InputError, MastersimError, SimulationError, __version__
from ._mastersim import ProjectNotFoundError, Session, SimulationResult, Variable, simulate

__all__ = ["InputError", "MastersimError", "SimulationError", "__version__"]
__all__ += ["ProjectNotFoundError", "Session", "SimulationResult", "Variable", "simulate"]
