# A file that does not parse is one diagnostic, not a crash.
from namedcheck import f32

def f(x: f32[(3,)]) -> f32[(3,)]:
    return x +  # expect: NC001
