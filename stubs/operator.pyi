# namedcheck op signatures for operator (annotation language; see engine/stubs.py for the format).
# Decorators name rule families (engine/ops/); `@rule` binds the procedural rule of the same name.
from namedcheck import Array

# `a[b]`: basic indexing
@rule
def getitem(a: Array, b, /) -> Array: ...
