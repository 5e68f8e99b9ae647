"""``python -m arena_gen.cli``: the same entry point as the ``arena-gen`` script."""

import sys

from . import main

sys.exit(main())
