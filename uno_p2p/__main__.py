"""``python -m uno_p2p`` runs the ``uno-lan`` command."""

from __future__ import annotations

import sys

from uno_p2p.cli import main

sys.exit(main())
