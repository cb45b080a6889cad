"""A small data-parallel MLP classifier (namedcheck test project)."""

from .config import CONFIG, MLPConfig
from .model import forward, init_params

__all__ = ["CONFIG", "MLPConfig", "forward", "init_params"]
