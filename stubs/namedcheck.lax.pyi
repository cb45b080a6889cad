# namedcheck's own lax additions (namedcheck.lax): pvary on every supported JAX.
# Decorators name rule families (engine/ops/); `@rule` binds the procedural rule of the same name.
from namedcheck import Array

@rule
def pvary(x: Array, axis_name) -> Array: ...
