"""xmap programs for the error paths jax 0.4.30's xmap test suite exercised (XMapErrorTest and the AOT
checks): each `error_*` function has one line marked `# runtime: ErrorClass NCxxx` (the exception and code
raised when it runs, from that line; a class that namedcheck.errors does not define is a Python builtin
raised by JAX itself, without a code) and, where the static checker sees the mistake, `# expect: NCxxx`.
The `case_*` functions are the valid spellings next to those errors."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import Mesh

from namedcheck import serial_loop, xmap


def grid(*shape):
    n = int(np.prod(shape))
    return Mesh(np.array(jax.devices()[:n]).reshape(shape), ("x", "y")[:len(shape)])


def error_in_axes_need_more_dims_than_the_argument_has():
    xmap(lambda a: a, in_axes=["i", "j", ...], out_axes=["j", "i", ...])(jnp.ones((5,)))  # expect: NC402  # runtime: XmapError


def error_out_axes_position_beyond_the_result():
    xmap(lambda a: a, in_axes=["i", ...], out_axes={1: "i"})(jnp.ones((5,)))  # expect: NC402  # runtime: XmapError


def error_list_with_none_fixes_the_argument_rank():
    xmap(lambda a: a, in_axes=["i", None], out_axes=["i", None])(jnp.ones((5,)))  # expect: NC402  # runtime: XmapError


def error_list_with_none_fixes_the_result_rank():
    xmap(lambda a: a.reshape((2, 2)), in_axes=["i", None], out_axes=["i", None])(jnp.ones((5, 4)))  # expect: NC402  # runtime: XmapError


def error_size_of_a_name_no_argument_carries():
    xmap(lambda a: a, in_axes=["i", ...], out_axes=["i", ...])({})  # runtime: XmapError NC403


def error_axis_sizes_indivisible_by_two_mesh_axes():
    with grid(2, 2):
        xmap(lambda a: a, in_axes=["i", ...], out_axes=["i", ...], axis_sizes={"i": 5}, axis_resources={"i": ("x", "y")})({})  # expect: NC503  # runtime: XmapError


def error_two_names_of_one_argument_share_a_resource():
    with grid(2):
        xmap(lambda a: lax.psum(a, ("a", "b")), in_axes=["a", "b"], out_axes=[], axis_resources={"a": "x", "b": "x"})(np.arange(16).reshape(4, 4))  # expect: NC502  # runtime: NamedAxisError


def error_result_broadcast_over_a_name_sharing_a_resource():
    x, y = np.arange(12).reshape(4, 3), np.arange(6).reshape(2, 3)
    with grid(2):
        xmap(lambda a, b: a, in_axes=(["a", ...], ["b", ...]), out_axes=["a", "b", ...], axis_resources={"a": "x", "b": "x"})(x, y)  # runtime: NamedAxisError NC502


def error_nested_names_share_a_resource_at_the_input():
    inner = xmap(lambda a: a, in_axes=["i"], out_axes=["i"], axis_resources={"i": "x"})
    with grid(2):
        xmap(inner, in_axes=["j", ...], out_axes=["j", ...], axis_resources={"j": "x"})(np.arange(16).reshape(4, 4))  # expect: NC502  # runtime: NamedAxisError


def error_nested_names_share_a_resource_in_the_body():
    inner = xmap(lambda a: lax.axis_index("i") + a, in_axes=[], out_axes=["i"], axis_sizes={"i": 4}, axis_resources={"i": "x"})  # expect: NC502  # runtime: NamedAxisError
    with grid(2):
        xmap(inner, in_axes=["j", ...], out_axes=["j", ...], axis_resources={"j": "x"})(np.arange(4, dtype=np.int32))


def error_nested_names_share_a_resource_at_the_output():
    inner = xmap(lambda a: a, in_axes=[], out_axes=["i"], axis_sizes={"i": 4}, axis_resources={"i": "x"})
    with grid(2):
        xmap(inner, in_axes=["j", ...], out_axes=["j", ...], axis_resources={"j": "x"})(np.arange(4))  # runtime: NamedAxisError NC502


def error_two_names_share_a_loop_resource():
    with serial_loop("l", 2):
        xmap(lambda a: a, in_axes=["a", "b"], out_axes=["a", "b"], axis_resources={"a": "l", "b": "l"})(np.arange(16).reshape(4, 4))  # expect: NC502  # runtime: NamedAxisError


def error_inner_xmap_under_an_empty_mesh():
    x = jnp.arange(60).reshape(2, 5, 6)

    def body(v):
        with Mesh(np.empty((), dtype=object), ()):
            return xmap(lambda w: w, in_axes={0: "b"}, out_axes={0: "b"})(v)  # runtime: XmapError NC501

    with grid(2):
        xmap(body, in_axes={0: "a"}, out_axes={0: "a"}, axis_resources={"a": "x"})(x)


def error_in_axes_not_a_prefix_of_two_arguments():
    p = [["x"], ["x"], ["x"]]
    x = jnp.ones((4,))
    xmap(lambda a, b: a, p, p)(x, x)  # expect: NC401  # runtime: AxisMappingError


def error_out_axes_not_a_prefix_of_the_result():
    p = [["x"], ["x"], ["x"]]
    x = jnp.ones((4,))
    xmap(lambda a: a, (p,), (p, ["x"]))([x, x, x])  # expect: NC401  # runtime: AxisMappingError


def case_list_of_mappings_for_a_list_argument():
    p = [["x"], ["x"], ["x"]]
    xs = [jnp.arange(4.0), jnp.arange(4.0) * 2, jnp.arange(4.0) * 3]
    tupled = xmap(lambda a: a, (p,), p)(xs)
    listed = xmap(lambda a: a, [p], p)(xs)
    return [*zip(tupled, xs), *zip(listed, xs)]


def case_dict_out_axes_for_a_dict_result():
    out = xmap(lambda a: a, in_axes=[...], out_axes={"a": [...]})({"a": 1})
    return [(out["a"], 1), (list(out) == ["a"], True)]


def error_compiled_called_with_another_pytree():
    x = jnp.arange(4.0).reshape(2, 2)
    compiled = xmap(lambda v: v + 4, in_axes=["i", ...], out_axes=["i", ...]).lower(x).compile()
    compiled([x])  # runtime: TypeError


def error_compiled_called_with_another_dtype():
    x = jnp.arange(4.0).reshape(2, 2)
    compiled = xmap(lambda v: v + 4, in_axes=["i", ...], out_axes=["i", ...]).lower(x).compile()
    compiled(x.astype(jnp.int32))  # runtime: TypeError
