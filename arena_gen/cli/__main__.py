"""``python -m arena_gen.cli``: the same entry point as the ``arena-gen`` script."""

import sys

from arena_gen.cli import main

sys.exit(main())
