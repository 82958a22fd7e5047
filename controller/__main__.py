"""`python -m controller` is the `knapp` command."""

import sys

from controller.cli import main

sys.exit(main())
