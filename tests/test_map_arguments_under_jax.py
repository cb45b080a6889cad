"""The map-argument corpora under real JAX (8 CPU devices, set in conftest): every `right_*` function of
tests/cases/nc4_map_arguments.py, nc402_mapped_self.py, nc705_unbound.py, nc604_scalar_in_specs.py, precision_random_shard_map.py and precision_pmap_script.py
runs, every `wrong_*` one raises the error JAX raises for the mistake the checker reports (the case files'
`# expect:` lines, checked by tests/test_cases.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

jax = pytest.importorskip("jax")

CASES = Path(__file__).parent / "cases"
FILES = [
    "nc4_map_arguments.py",
    "nc402_mapped_self.py",
    "nc705_unbound.py",
    "nc604_scalar_in_specs.py",
    "precision_random_shard_map.py",
    "precision_pmap_script.py",
]

INCONSISTENT = "vmap got inconsistent sizes for array axes to be mapped"
RANK0 = "which implies that its rank should be at least 1, but is only 0"
IN_AXES = "vmap in_axes must be an int, None, or a tuple of entries corresponding to the positional arguments"
PREFIX = "vmap in_axes specification must be a tree prefix of the corresponding value"
UNBOUND = "unbound axis name"
TOO_LONG = "in_specs entry which is too long"

# what JAX raises for each wrong program (a substring of its message; pmap's own wording is an internal one)
RAISES: dict[str, tuple[type[BaseException], str]] = {
    "wrong_keyword_size": (ValueError, INCONSISTENT),
    "wrong_keyword_size_one": (ValueError, INCONSISTENT),
    "wrong_decorated_keyword": (ValueError, INCONSISTENT),
    "wrong_keyword_scalar": (ValueError, RANK0),
    "wrong_pmap_keyword_size": (ValueError, ""),
    "wrong_axis_size": (ValueError, INCONSISTENT),
    "wrong_in_axes_for_one_tuple_argument": (ValueError, IN_AXES),
    "wrong_in_axes_nested_too_long": (ValueError, PREFIX),
    "wrong_in_axes_dict_keys": (ValueError, PREFIX),
    "wrong_in_axes_dict_not_in_tuple": (TypeError, IN_AXES),
    "wrong_in_axes_length": (ValueError, IN_AXES),
    "wrong_in_axes_container_for_array": (ValueError, PREFIX),
    "wrong_pmap_in_axes_length": (ValueError, "pytree structure error"),
    "wrong_python_scalar_mapped": (ValueError, RANK0),
    "wrong_rank0_array_mapped": (ValueError, RANK0),
    "wrong_scalar_inside_a_tuple": (ValueError, RANK0),
    "wrong_pmap_python_scalar": (ValueError, ""),
    "wrong_pmap_sizes": (ValueError, ""),
    "wrong_too_few_arguments": (TypeError, "missing 1 required positional argument: 'y'"),
    "wrong_pmap_too_few_arguments": (TypeError, "missing 1 required positional argument: 's'"),
    "wrong_too_many_arguments": (TypeError, "takes 1 positional argument but 2 were given"),
    "wrong_static_argument_array": (ValueError, "Non-hashable static arguments are not supported"),
    "wrong_static_argument_list": (ValueError, "Non-hashable static arguments are not supported"),
    "wrong_pmap_method_maps_self": (TypeError, "abstract array"),
    "wrong_vmap_method_maps_self": (TypeError, "is not a valid JAX type"),
    "wrong_method_calls_pmapped_method": (TypeError, "abstract array"),
    "wrong_pmapped_method_missing_argument": (TypeError, "missing 1 required positional argument: 'y'"),
    "wrong_pmap_without_axis_name": (NameError, UNBOUND),
    "wrong_pmap_other_axis_name": (NameError, UNBOUND),
    "wrong_vmap_without_axis_name": (NameError, UNBOUND),
    "wrong_vmap_other_axis_name": (NameError, UNBOUND),
    "wrong_nested_vmaps_miss_a_name": (NameError, UNBOUND),
    "wrong_jit_psum": (NameError, UNBOUND),
    "wrong_jit_call_psum": (NameError, UNBOUND),
    "wrong_jit_in_shardings_psum": (NameError, UNBOUND),
    "wrong_spec_for_rank0_array": (ValueError, TOO_LONG),
    "wrong_spec_for_python_float": (ValueError, TOO_LONG),
}


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"case_{name[:-3]}", CASES / name)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # not as __main__: the module-level calls of nc705_unbound.py do not run
    return mod


MODULES = {name: _load(name) for name in FILES}
PROGRAMS = sorted(
    (file, fn) for file, mod in MODULES.items() for fn in vars(mod) if fn.startswith(("right_", "wrong_"))
)


def test_every_wrong_program_has_its_error() -> None:
    wrong = {fn for _, fn in PROGRAMS if fn.startswith("wrong_")}
    assert wrong == set(RAISES)


@pytest.mark.parametrize(("file", "fn"), PROGRAMS)
def test_jax_agrees_with_the_checker(file: str, fn: str) -> None:
    call = getattr(MODULES[file], fn)
    if fn.startswith("right_"):
        jax.block_until_ready(call())
        return
    kind, message = RAISES[fn]
    with pytest.raises(kind) as raised:
        jax.block_until_ready(call())
    assert message in str(raised.value)
