"""On-disk storage: the append-only ``.unolog`` file of one game (I/O, outside the core)."""

from __future__ import annotations

from uno_p2p.store.unolog import (
    GameLog,
    LogContents,
    UnreadableLog,
    games_dir,
    new_log_path,
    read_log,
)

__all__ = ["GameLog", "LogContents", "UnreadableLog", "games_dir", "new_log_path", "read_log"]
