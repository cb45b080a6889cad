"""A small equinox sequence classifier (namedcheck test project)."""
