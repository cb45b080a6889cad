"""`python -m namedcheck` runs the command line."""

import sys

from namedcheck.cli.main import main

sys.exit(main())
