"""`python -m docmill.cli`."""

import sys

from docmill.cli import main

sys.exit(main())
