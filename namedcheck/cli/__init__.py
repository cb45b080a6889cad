"""The `namedcheck` command."""
