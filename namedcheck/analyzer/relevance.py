"""The cheap pre-filter (no libcst import): files that never mention jax (nor namedcheck, xmap, or equinox and
diffrax, whose programs may import only them) are skipped without parsing; every other file is analysed."""

import re

RELEVANT = re.compile(r"jax|namedcheck|xmap|equinox|diffrax")


def is_relevant(source: str) -> bool:
    return RELEVANT.search(source) is not None
