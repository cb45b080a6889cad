# namedcheck op signatures for jax.image (annotation language; see engine/stubs.py for the format).
# Decorators name rule families (engine/ops/); `@rule` binds the procedural rule of the same name.
from namedcheck import Array

@rule
def resize(image: Array, shape, method, antialias=True, precision=None) -> Array: ...
