"""The disk probe beside a benchmark run: each slice's slowest flush and the run's flushes."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from bench import run
from bench.disk import Flush, Flushes, FlushMeter, probing
from bench.stats import Figures


def test_each_reading_gets_the_flushes_since_the_last_and_a_line_being_written_waits(
    tmp_path: Path,
) -> None:
    log = tmp_path / "flushes"
    log.write_bytes(b"100.0 1.5\n101.0 25.0\n102.0 0.3")  # the probe is writing its third
    meter = FlushMeter()
    meter.attach(log)
    first = meter.since_last()
    assert first == Flushes((Flush(100.0, 1.5), Flush(101.0, 25.0)))
    assert (first.ms, first.slowest_ms, first.stalls) == ((1.5, 25.0), 25.0, 1)
    with log.open("ab") as more:
        more.write(b"0\n103.0 2.0\n")
    assert meter.since_last().ms == (0.30, 2.0)
    assert meter.since_last() == Flushes(())  # nothing new: no slowest, not zero
    assert meter.since_last().slowest_ms is None
    assert meter.run().ms == (1.5, 25.0, 0.30, 2.0)


def test_a_slice_counts_the_flushes_that_ended_within_it() -> None:
    flushes = Flushes((Flush(10.0, 90.0), Flush(11.0, 4.0), Flush(12.5, 2.0)))
    assert flushes.since(11.0).ms == (4.0, 2.0)  # the first held only the put-back before
    assert flushes.since(13.0).slowest_ms is None


def test_without_a_probe_nothing_is_timed_and_the_run_says_so() -> None:
    meter = FlushMeter()
    assert meter.since_last() == Flushes(())
    assert meter.run().described() == "disk: unknown (no flush timed)"


def test_the_runs_line_says_the_median_p99_slowest_and_stalls() -> None:
    flushes = Flushes(tuple(Flush(0.0, ms) for ms in [0.25] * 98 + [19.9, 131.0]))
    assert flushes.described() == (
        "disk: 8 KB flushed every 20 ms beside the run, 100 flushes: p50 0.25 ms, "
        "p99 131.0 ms, slowest 131 ms; 1 of 20 ms or more"
    )


def test_a_slice_line_ends_with_its_slowest_flush(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    log = tmp_path / "flushes"
    now = time.time()
    log.write_bytes(f"{now - 5:.4f} 140.0\n{now - 0.5:.4f} 0.4\n{now - 0.2:.4f} 87.2\n".encode())
    meter = FlushMeter()
    meter.attach(log)
    monkeypatch.setattr(run, "_FLUSHES", meter)
    run.show(Figures("bot postgresql open 1320/s", 1.5, [0.002] * 10))  # began 1.5 s ago
    assert capsys.readouterr().out.rstrip().endswith("flush 87 ms")
    run.show(Figures("baseline", 1.5, [0.002] * 10))  # no flush since: nothing said
    assert "flush" not in capsys.readouterr().out


def _probes() -> list[int]:
    """This process's children that run the probe."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            cmdline = (stat.parent / "cmdline").read_bytes()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == os.getpid() and b"fdatasync" in cmdline:
            found.append(int(stat.parent.name))
    return found


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads the processes from /proc")
def test_the_probe_flushes_while_the_block_runs_and_ends_with_it() -> None:
    meter = FlushMeter()
    with probing(meter, every_s=0.005):
        assert len(_probes()) == 1
        timed: list[float] = []
        deadline = time.monotonic() + 10
        while len(timed) < 5 and time.monotonic() < deadline:
            time.sleep(0.02)
            timed += meter.since_last().ms
        assert len(timed) >= 5 and all(ms >= 0 for ms in timed)
    assert _probes() == []
    assert len(meter.run().ms) >= 5  # kept for the run's line after the log is gone
    assert meter.since_last() == Flushes(())
