"""The cheap pre-filter (no libcst import): files that mention nothing of namedcheck, xmap or
shard_map are skipped without parsing."""

import re

RELEVANT = re.compile(r"namedcheck|xmap|shard_map")


def is_relevant(source: str) -> bool:
    return RELEVANT.search(source) is not None
