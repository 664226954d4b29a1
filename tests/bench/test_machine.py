"""What a benchmark run says of its machine: the CPU by family and model, and the share of the
cores' time the hypervisor took while it measured."""

from __future__ import annotations

import pytest

from bench.machine import CpuTimes, StealMeter, cpu, describe, described_steal, steal_share

AMD = """processor\t: 0
vendor_id\t: AuthenticAMD
cpu family\t: 25
model\t\t: 1
model name\t: AMD EPYC
stepping\t: 1

processor\t: 1
vendor_id\t: AuthenticAMD
cpu family\t: 25
model\t\t: 17
model name\t: AMD EPYC 9999
"""


def test_the_cpu_is_named_with_its_family_and_model_of_the_first_processor() -> None:
    assert cpu(AMD) == "AMD EPYC, family 25 model 1"


def test_a_cpu_without_family_or_model_keeps_its_name_and_none_is_unknown() -> None:
    assert cpu("model name\t: Neoverse-N1\n") == "Neoverse-N1"
    assert cpu("") == "?"


def test_steal_is_the_stolen_share_of_all_ticks_between_two_readings() -> None:
    before = CpuTimes.parse("cpu  100 0 50 800 10 0 5 35 0 0\ncpu0 50 0 25 400 5 0 2 18 0 0\n")
    after = CpuTimes.parse("cpu  300 0 150 1300 10 0 5 235 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n")
    assert before == CpuTimes(total=1000, steal=35)
    assert after == CpuTimes(total=2000, steal=235)
    assert steal_share(before, after) == pytest.approx(0.2)
    assert described_steal(before, after).endswith("took 20.0 % of the cores' time while measuring")


def test_steal_unknown_says_so_rather_than_a_figure() -> None:
    assert CpuTimes.parse("intr 1 2 3\n\n") is None
    assert CpuTimes.parse("cpu  1 2 3\n") is None  # a kernel too old to count steal
    reading = CpuTimes(total=10, steal=1)
    assert steal_share(None, reading) is None
    assert steal_share(reading, reading) is None  # no time passed
    assert described_steal(None, None) == "steal: unknown (no /proc/stat)"


def test_this_machine_is_described_in_one_line() -> None:
    line = describe()
    assert "\n" not in line and " cores (" in line and "Python " in line and "SQLite " in line


def test_the_steal_meter_gives_each_slice_the_steal_since_the_last(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    readings = iter([CpuTimes(1000, 10), CpuTimes(2000, 110), CpuTimes(2500, 110), None])
    monkeypatch.setattr(CpuTimes, "read", classmethod(lambda cls: next(readings)))
    meter = StealMeter()
    assert meter.since_last() == pytest.approx(0.1)
    assert meter.since_last() == 0
    assert meter.since_last() is None  # /proc/stat gone: unknown, not zero
