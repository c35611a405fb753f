"""The asyncio shell around the sans-IO table: links, discovery, the node.

docs/protocol/net.md. Nothing here decides anything about the game: it moves
bytes, timers and events between sockets, mDNS and ``uno_p2p.table``.
"""
