"""Hardware-layer figures: what an idle simulated box costs, and how fast a tap reaches the loop.

    .venv/bin/python bench/hardware.py [--idle-seconds 3] [--taps 10000]

1. Idle CPU: the ``sim`` profile's devices started, the loop waiting for
   events, for a few seconds; process CPU time over wall time (limit: 1 % of
   one core). Simulated devices run no threads or timers, so this is the
   cost of an asyncio loop with nothing to do.
2. Tap latency: a thread taps cards on the simulated reader, one at a time,
   as a reader thread would; each TagSeen's clock stamp is compared with
   the time the loop takes it off the queue (limit: p99 under 1 ms). The
   next tap waits until the loop has taken the previous one, so this is
   the wake-up latency of one event, not the throughput of a flood.

Exit code 0 when both are within their limits, 1 otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hardware.clock import SystemClock  # noqa: E402
from hardware.events import EventSink, TagSeen  # noqa: E402
from hardware.factory import build_devices
from hardware.profile import load_profile  # noqa: E402

IDLE_LIMIT_PERCENT = 1.0
P99_LIMIT_MS = 1.0


async def idle_cpu_percent(seconds: float) -> float:
    clock = SystemClock()
    devices = build_devices(load_profile("sim"), EventSink(), clock)
    devices.start()
    cpu, wall = time.process_time(), time.perf_counter()
    await clock.sleep(seconds)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    devices.stop()
    return 100 * cpu / wall


async def tap_latencies_ms(taps: int) -> list[float]:
    clock = SystemClock()
    sink = EventSink()
    devices = build_devices(load_profile("sim"), sink, clock)
    devices.start()
    reader = devices.readers["table"]
    taken = threading.Event()

    def tapper() -> None:
        for n in range(taps):
            taken.clear()
            reader.tap(b"\x04" + n.to_bytes(6, "big"))
            if not taken.wait(5):
                return

    thread = threading.Thread(target=tapper, name="bench-tapper")
    thread.start()
    latencies: list[float] = []
    while len(latencies) < taps:
        event = await asyncio.wait_for(sink.get(), 5)
        if isinstance(event, TagSeen):
            latencies.append((clock.monotonic() - event.at) * 1000)
            taken.set()
    thread.join(5)
    devices.stop()
    return latencies


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--idle-seconds", type=float, default=3.0)
    parser.add_argument("--taps", type=int, default=10_000)
    args = parser.parse_args()

    idle = asyncio.run(idle_cpu_percent(args.idle_seconds))
    latencies = asyncio.run(tap_latencies_ms(args.taps))
    percentiles = statistics.quantiles(latencies, n=100)
    p50, p99 = statistics.median(latencies), percentiles[98]
    idle_ok, latency_ok = idle <= IDLE_LIMIT_PERCENT, p99 <= P99_LIMIT_MS

    print(
        f"idle CPU, sim devices, {args.idle_seconds:g} s: {idle:.3f} % of a core "
        f"(limit {IDLE_LIMIT_PERCENT:g} %) {'ok' if idle_ok else 'OVER'}"
    )
    print(
        f"tag seen -> event in loop, {len(latencies)} taps: p50 {p50:.3f} ms, p99 {p99:.3f} ms, "
        f"max {max(latencies):.3f} ms (limit p99 {P99_LIMIT_MS:g} ms) {'ok' if latency_ok else 'OVER'}"
    )
    return 0 if idle_ok and latency_ok else 1


if __name__ == "__main__":
    sys.exit(main())
