# namedcheck op signatures for jax (top level): placement ops keep the value's type.
# Decorators name rule families (engine/ops/); `@rule` binds the procedural rule of the same name.
from namedcheck import Array

@elementwise(static=("device", "src", "donate", "may_alias"))
def device_put(x: Array, device=None, *, src=None, donate=False, may_alias=None) -> Array: ...
@elementwise(static=("out_shardings",))
def reshard(xs: Array, out_shardings) -> Array: ...
