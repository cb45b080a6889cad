"""`python -m namedcheck` runs the command line."""

from namedcheck.cli.main import run

run()
