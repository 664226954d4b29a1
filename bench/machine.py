"""What the benchmark says of the machine it ran on: the CPU by family and model (this machine
kind comes with several, all named "AMD EPYC" or "Intel Xeon", whose figures differ:
bench/README.md, "Current figures"), and the share of the cores' time the hypervisor took
(steal) while it measured, in all and slice by slice: a run, or a pair of slices, that met a
noisy neighbour says so."""

from __future__ import annotations

import contextlib
import os
import platform
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from bot import loop

CPUINFO = Path("/proc/cpuinfo")
STAT = Path("/proc/stat")


def cpu(cpuinfo: str) -> str:
    """`AMD EPYC, family 25 model 1` from /proc/cpuinfo's first processor; "?" where unknown."""
    fields: dict[str, str] = {}
    for line in cpuinfo.splitlines():
        if not line.strip():
            break  # the first processor's block ends
        key, _, value = line.partition(":")
        fields.setdefault(key.strip(), value.strip())
    name = fields.get("model name", "?")
    if "cpu family" in fields and "model" in fields:
        return f"{name}, family {fields['cpu family']} model {fields['model']}"
    return name


@dataclass(frozen=True)
class CpuTimes:
    """The machine's CPU time since boot in clock ticks, all cores: in all, and stolen."""

    total: int
    steal: int

    @classmethod
    def parse(cls, stat: str) -> CpuTimes | None:
        """From /proc/stat's `cpu` line (user nice system idle iowait irq softirq steal …)."""
        for line in stat.splitlines():
            fields = line.split()
            if fields[:1] == ["cpu"]:
                values = [int(tick) for tick in fields[1:9]]
                if len(values) < 8:
                    return None
                return cls(total=sum(values), steal=values[7])
        return None

    @classmethod
    def read(cls) -> CpuTimes | None:
        with contextlib.suppress(OSError, ValueError):
            return cls.parse(STAT.read_text())
        return None


def steal_share(before: CpuTimes | None, after: CpuTimes | None) -> float | None:
    """The share of the cores' time between two readings that the hypervisor took."""
    if before is None or after is None or after.total <= before.total:
        return None
    return (after.steal - before.steal) / (after.total - before.total)


class StealMeter:
    """The steal since the last reading, for each slice as it ends (the first: since the
    benchmark started), so that a pair that met a noisy neighbour shows it on its own lines."""

    def __init__(self) -> None:
        self._last = CpuTimes.read()

    def since_last(self) -> float | None:
        now = CpuTimes.read()
        share = steal_share(self._last, now)
        self._last = now
        return share


def describe() -> str:
    cpuinfo = ""
    with contextlib.suppress(OSError):
        cpuinfo = CPUINFO.read_text()
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return (
        f"{os.cpu_count()} cores ({cpu(cpuinfo)}), Python {platform.python_version()}, "
        f"SQLite {sqlite3.sqlite_version}, {loop.name()}, load average {load}"
    )


def described_steal(before: CpuTimes | None, after: CpuTimes | None) -> str:
    share = steal_share(before, after)
    if share is None:
        return "steal: unknown (no /proc/stat)"
    return f"steal: the hypervisor took {100 * share:.1f} % of the cores' time while measuring"
