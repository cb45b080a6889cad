"""The cheap pre-filter (no libcst import): files that never mention jax (nor namedcheck or xmap)
are skipped without parsing; every other file is analysed."""

import re

RELEVANT = re.compile(r"jax|namedcheck|xmap")


def is_relevant(source: str) -> bool:
    return RELEVANT.search(source) is not None
