"""xmap programs that must fail: each `error_*` function has one line marked `# runtime: ErrorClass NCxxx`
(the exception and code namedcheck raises when the function runs, on that line) and, where the static
checker can see the mistake, `# expect: NCxxx` with the same code on the same line."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import Mesh, NamedSharding, PartitionSpec

import namedcheck.nn as nnn
import namedcheck.numpy as nnp
from namedcheck import xmap


def error_in_axes_longer_than_arguments():
    x = jnp.ones((4, 3))
    xmap(lambda a: a, in_axes=(["i", ...], ["i", ...]), out_axes=["i", ...])(x)  # expect: NC401  # runtime: AxisMappingError


def error_bare_name_as_in_axes():
    x = jnp.ones((4, 3))
    xmap(lambda a: a, in_axes="i", out_axes=["i", ...])(x)  # expect: NC401  # runtime: AxisMappingError


def error_bare_name_as_out_axes():
    x = jnp.ones((4, 3))
    xmap(lambda a: a, in_axes=["i", ...], out_axes="i")(x)  # expect: NC401  # runtime: AxisMappingError


def error_list_mapping_rank():
    x = jnp.ones((4, 3))
    xmap(lambda a: a, in_axes=["i"], out_axes=["i", ...])(x)  # expect: NC402  # runtime: XmapError


def error_out_axes_list_rank():
    x = jnp.ones((4, 3))
    xmap(lambda a: a, in_axes=["i", ...], out_axes=["i"])(x)  # expect: NC402  # runtime: XmapError


def error_negative_in_position():
    x = jnp.ones((4, 3))
    xmap(lambda a: a, in_axes={-1: "i"}, out_axes=["i", ...])(x)  # expect: NC402  # runtime: XmapError


def error_negative_out_position():
    x = jnp.ones((4, 3))
    xmap(lambda a: a, in_axes=["i", ...], out_axes={-1: "i"})(x)  # expect: NC402  # runtime: XmapError


def error_repeated_name():
    x = jnp.ones((4, 3))
    xmap(lambda a: a, in_axes=["i", "i"], out_axes=["i", ...])(x)  # expect: NC402  # runtime: XmapError


def error_position_out_of_range():
    x = jnp.ones((4, 3))
    xmap(lambda a: a, in_axes={2: "i"}, out_axes=["i", ...])(x)  # expect: NC402  # runtime: XmapError


def error_sizes_disagree_across_arguments():
    x, y = jnp.ones((4, 3)), jnp.ones((5, 3))
    xmap(lambda a, b: a + b, in_axes=(["i", ...], ["i", ...]), out_axes=["i", ...])(x, y)  # expect: NC403  # runtime: XmapError


def error_axis_sizes_disagree():
    x = jnp.ones((4, 3))
    xmap(lambda a: a, in_axes=["i", ...], out_axes=["i", ...], axis_sizes={"i": 7})(x)  # expect: NC403  # runtime: XmapError


def error_axis_size_too_large():
    xmap(lambda: 1.0, in_axes=(), out_axes=["k", ...], axis_sizes={"k": 2**62})  # runtime: XmapError NC403


def error_result_keeps_named_axis():
    x = jnp.ones((4, 3))
    xmap(lambda a: jnp.sin(a), in_axes=["i", ...], out_axes=[...])(x)  # expect: NC404  # runtime: NamedAxisError


def error_out_axes_name_defined_nowhere():
    xmap(lambda a: a, in_axes=["i", ...], out_axes=["i", "k", ...])  # expect: NC405  # runtime: XmapError


def error_resources_for_undefined_axis():
    xmap(lambda a: a, in_axes=["i", ...], out_axes=["i", ...], axis_resources={"k": "r"})  # expect: NC406  # runtime: XmapError


def error_axis_resources_not_a_dict():
    xmap(lambda a: a, in_axes=["i", ...], out_axes=["i", ...], axis_resources="r")  # runtime: BadInputError NC406


def error_nested_rebinds_name():
    x = jnp.ones((2, 3, 4))
    inner = xmap(lambda b: b, in_axes=["i", ...], out_axes=["i", ...])
    xmap(lambda a: inner(a), in_axes=["i", ...], out_axes=["i", ...])(x)  # expect: NC407  # runtime: XmapError


def error_resource_without_mesh():
    x = jnp.ones((4, 3))
    xmap(lambda a: a, in_axes=["i", ...], out_axes=["i", ...], axis_resources={"i": "r"})(x)  # runtime: XmapError NC501


def error_resource_not_in_mesh():
    x = jnp.ones((4, 3))
    with jax.set_mesh(Mesh(np.array(jax.devices()[:2]), ("r",))):
        xmap(lambda a: a, in_axes=["i", ...], out_axes=["i", ...], axis_resources={"i": "s"})(x)  # expect: NC501  # runtime: XmapError


def error_resources_cooccur():
    x, y = jnp.ones((4, 3)), jnp.ones((2, 3))
    with jax.set_mesh(Mesh(np.array(jax.devices()[:2]), ("r",))):
        xmap(lambda a, b: a + b, in_axes=(["i", ...], ["j", ...]), out_axes=["i", "j", ...], axis_resources={"i": "r", "j": "r"})(x, y)  # expect: NC502  # runtime: NamedAxisError


def error_indivisible_by_resources():
    y = jnp.ones((5, 3))
    with jax.set_mesh(Mesh(np.array(jax.devices()[:2]), ("r",))):
        xmap(lambda a: a, in_axes=["i", ...], out_axes=["i", ...], axis_resources={"i": "r"})(y)  # expect: NC503  # runtime: XmapError


def error_repeated_resource():
    x = jnp.ones((4, 3))
    with jax.set_mesh(Mesh(np.array(jax.devices()[:2]), ("r",))):
        xmap(lambda a: a, in_axes=["i", ...], out_axes=["i", ...], axis_resources={"i": ("r", "r")})(x)  # expect: NC504  # runtime: XmapError


def error_psum_over_unbound_name():
    x = jnp.ones((4, 3))
    xmap(lambda a: lax.psum(a, "j"), in_axes=["i", ...], out_axes=["i", ...])(x)  # expect: NC705  # runtime: UnboundAxisError


def error_named_einsum_spec():
    x = jnp.ones((4, 3))
    xmap(lambda a: nnp.einsum("{k}->", a), in_axes=["k", ...], out_axes=[...])(x)  # expect: NC702  # runtime: XmapError


def error_one_hot_classes_disagree():
    labels = jnp.array([0, 1, 2, 1])
    xmap(lambda v: nnn.one_hot(v, 3, axis="c"), in_axes=["b"], out_axes=["b", "c"], axis_sizes={"c": 4})(labels)  # runtime: XmapError NC403


def error_argument_not_an_array():
    xmap(lambda a: a, in_axes=["i", ...], out_axes=["i", ...])("not an array")  # runtime: BadInputError NC401


def error_argument_is_none():
    xmap(lambda a: a, in_axes=["i", ...], out_axes=["i", ...])(None)  # runtime: BadInputError NC401


def error_mesh_changes_inside_body():
    x = jnp.ones((4, 2))

    def body(row):
        with Mesh(np.array(jax.devices()[2:4]), ("s",)):
            return xmap(lambda v: v * 2, in_axes=["j"], out_axes=["j"], axis_resources={"j": "s"})(row)  # runtime: XmapError NC501

    with jax.set_mesh(Mesh(np.array(jax.devices()[:2]), ("r",))):
        xmap(body, in_axes=["i", ...], out_axes=["i", ...], axis_resources={"i": "r"})(x)


def error_input_placed_differently():
    mesh = Mesh(np.array(jax.devices()[:2]), ("r",))
    x = jax.device_put(jnp.ones((4, 6)), NamedSharding(mesh, PartitionSpec(None, "r")))
    with jax.set_mesh(mesh):
        xmap(lambda a: a, in_axes=["i", ...], out_axes=["i", ...], axis_resources={"i": "r"})(x)  # runtime: XmapError NC501
