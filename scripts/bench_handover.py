"""What a hand-over costs (table.md §13), on the in-memory network.

For 3, 4, 6 and 10 peers: a bot game runs to entry 60, the host is cut off,
and each shell's link time-out tells its peer (``host_lost``). Printed per
table size: the table time from then to every peer holding the ``handover``
entry (0 when every vote came at once: the successor waits ``VOTE_WAIT_MS``
only for votes that do not come), the frames and bytes the election put on the network (votes and
entries relayed among peers) until every peer accepted the hand-over, and
the wall time this machine spent on it. ``--json`` prints the same as
``{"3": {"handover_ms": ..., "frames": ..., "bytes": ..., "wall_ms": ...}, ...}``.
"""

from __future__ import annotations

import argparse
import json
import time

from uno_p2p.rules.options import preset
from uno_p2p.table.memnet import TableSetup, seat_table

SIZES = (3, 4, 6, 10)


def measure(players: int) -> dict[str, float]:
    net = seat_table(TableSetup(players, preset("official", ["target=500"]),
                                b"bench handover %d" % players, preset="official"))
    host = net.host
    net.run(until=lambda n: host.state.seq > 60, max_steps=400_000)
    others = [p for p in net.peers.values() if p is not host]
    net.silent.add(host.peer_id.key)
    cut_ms, frames, sent = net.now_ms, net.traffic.frames, net.traffic.sent_bytes
    start = time.perf_counter()
    for peer in others:  # the shells' link time-outs fire (not included in the time)
        peer.host_lost()
        net.flush(peer)
    net.run(until=lambda n: all(p.state.term == 1 for p in others), max_steps=400_000)
    wall = (time.perf_counter() - start) * 1000
    if not all(p.state.term == 1 for p in others):
        raise SystemExit(f"{players} peers: no hand-over")
    return {"handover_ms": net.now_ms - cut_ms, "frames": net.traffic.frames - frames,
            "bytes": net.traffic.sent_bytes - sent, "wall_ms": round(wall, 1)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--peers", default=",".join(map(str, SIZES)))
    args = parser.parse_args()
    results = {str(n): measure(int(n)) for n in args.peers.split(",")}
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"{'peers':>5}  {'table ms to hand-over':>21}  {'frames':>6}  {'bytes':>8}  "
          f"{'wall ms':>8}")
    for n, r in results.items():
        print(f"{n:>5}  {r['handover_ms']:>21.0f}  {r['frames']:>6.0f}  {r['bytes']:>8.0f}  "
              f"{r['wall_ms']:>8.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
