"""Settings shared by the whole suite.

Under ``scripts/mutate`` (``UNO_MUTATION=1``) hypothesis runs derandomised and
without its example database, so that a mutant's verdict does not depend on
the run: the same mutant is killed or survives every time.
"""

from __future__ import annotations

import os

from hypothesis import settings

if os.environ.get("UNO_MUTATION"):
    settings.register_profile("mutation", derandomize=True, database=None, deadline=None,
                              print_blob=False)
    settings.load_profile("mutation")
