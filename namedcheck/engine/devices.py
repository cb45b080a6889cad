"""The run's device count as the engine sees it: an int where the configuration (`[tool.namedcheck] devices`)
or the program (`XLA_FLAGS=--xla_force_host_platform_device_count=N`) states it, else the one symbol
`ndev` (a size >= 1), so sizes computed from it stay expressions and nothing is proven about its value.

The rules here compare a mesh or a pmapped size against that count (NC505); a reshape or split of a batch by
the count is the ordinary reshape / split rule over the count's size."""

from __future__ import annotations

from typing import Any

from namedcheck.engine import symbolic
from namedcheck.engine.codes import NC505
from namedcheck.engine.errors import RuleError

# The device count where nothing states it: one symbol for the whole analysis.
NDEV = "ndev"


def _shape_text(shape: tuple[Any, ...]) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def check_mesh_shape(shape: tuple[Any, ...], count: Any, exact: bool, what: str) -> None:
    """A mesh of `shape` built from the run's devices (`count`: int or symbol). `exact`: every device is laid
    out (`mesh_utils.create_device_mesh(shape)`: JAX raises unless the product is the count); otherwise the
    first devices are taken (`jax.make_mesh(shape, names)`: JAX raises when the product exceeds it). Neither
    infers a -1 (JAX raises for any count)."""
    if any(isinstance(d, int) and d < 0 for d in shape):
        raise RuleError(
            NC505,
            f"{what} mesh shape {_shape_text(shape)} has a negative size: it does not infer one from the device "
            f"count (JAX raises 'Number of devices ... must equal the product of mesh_shape')",
            hint="compute the size from jax.device_count(), e.g. (jax.device_count() // 2, 2)",
            data={"shape": [d if isinstance(d, int) else str(d) for d in shape]},
        )
    total = symbolic.product(shape)
    if total is None or count is None:
        return
    wrong = symbolic.differ(total, count) if exact else symbolic.exceeds(total, count)
    if wrong:
        need = "equal" if exact else "be at least"
        raise RuleError(
            NC505,
            f"{what} mesh shape {_shape_text(shape)} needs {total} devices; the run has {count} "
            f"(JAX: the number of devices must {need} the product of mesh_shape)",
            hint=f"make the mesh shape's product {count} (a -1 is not inferred: divide jax.device_count())",
            data={"shape": [d if isinstance(d, int) else str(d) for d in shape], "devices": count},
        )


def check_pmap_size(size: Any, count: Any) -> None:
    """pmap maps its leading axis onto devices, one per index: a size larger than the device count raises."""
    if size is None or count is None or not symbolic.exceeds(size, count):
        return
    raise RuleError(
        NC505,
        f"pmap maps an axis of size {size} onto devices, one each; the run has {count} devices",
        hint=f"reshape the batch to ({count}, -1, ...) first (one slice per device), or map it with vmap",
        data={"size": size if isinstance(size, int) else str(size), "devices": count},
    )


__all__ = ["NDEV", "check_mesh_shape", "check_pmap_size"]
