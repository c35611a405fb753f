"""uno-lan: UNO for friends on the same network, with no trusted server.

The package is layered, imports pointing only down (STYLE.md):
``rules`` (the pure engine) and ``crypto`` (the mental-poker deck) know nothing
of ours; ``wire`` (canonical messages and the signed log) builds on them;
``table`` (one peer's sans-IO protocol) joins all three; ``net``, ``ui`` and
``cli`` are thin shells on top.
"""

from __future__ import annotations

__version__ = "0.1.0"
