# namedcheck op signatures for numpy.testing (annotation language; see engine/stubs.py for the format).
from namedcheck import Array

@rule
def assert_allclose(actual: Array, desired: Array, rtol=1e-07, atol=0, equal_nan=True, err_msg='',
                    verbose=True, *, strict=False) -> Array: ...
@rule
def assert_array_equal(actual: Array, desired: Array, err_msg='', verbose=True, *, strict=False) -> Array: ...
