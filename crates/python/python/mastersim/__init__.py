"""mastersim: an FMI co-simulation master.

See docs/python.md for the API.
"""

from ._mastersim import __version__

__all__ = ["__version__"]
