"""Default llama.cpp threads: one per physical core for single tokens, every usable CPU for batches."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from structgen._backends.llamacpp import _threads
from structgen._backends.llamacpp._threads import (
    Threads, chosen_threads, cpu_list, cpu_quota, default_threads, physical_cores,
)


def _sysfs(root: Path, places: dict[int, tuple[int, int]]) -> Path:
    """A fake /sys/devices/system/cpu under ``root``: CPU number -> (package, core)."""
    cpus = root / "devices" / "system" / "cpu"
    for cpu, (package, core) in places.items():
        topology = cpus / f"cpu{cpu}" / "topology"
        topology.mkdir(parents=True)
        (topology / "physical_package_id").write_text(f"{package}\n")
        (topology / "core_id").write_text(f"{core}\n")
    return cpus


def test_two_threads_of_one_core_count_once(tmp_path: Path) -> None:
    sysfs = _sysfs(tmp_path, {0: (0, 0), 1: (0, 0), 2: (0, 1), 3: (0, 1)})
    assert physical_cores([0, 1, 2, 3], sysfs) == 2
    assert physical_cores([0, 1], sysfs) == 1  # only the CPUs the process may use count


def test_cores_of_two_packages_are_distinct(tmp_path: Path) -> None:
    sysfs = _sysfs(tmp_path, {0: (0, 0), 1: (1, 0)})
    assert physical_cores([0, 1], sysfs) == 2


def test_unreadable_topology_falls_back_to_half_the_cpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_threads, "usable_cpus", lambda: [0, 1, 2, 3])
    nowhere = tmp_path / "devices" / "system" / "cpu"
    assert physical_cores([0, 1], nowhere) is None
    assert default_threads(nowhere, tmp_path / "cgroup") == Threads(token=2, batch=4)


def test_one_thread_per_core_where_a_core_runs_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_threads, "usable_cpus", lambda: [0, 1])
    assert default_threads(_sysfs(tmp_path, {0: (0, 0), 1: (0, 1)}), tmp_path / "cgroup") == Threads(token=2, batch=2)


def test_this_machine() -> None:
    threads = default_threads()
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    assert threads.batch == min(cpus, cpu_quota() or cpus)
    assert 1 <= threads.token <= threads.batch


def test_cpu_lists() -> None:
    assert cpu_list("0-3,8,10-11\n") == {0, 1, 2, 3, 8, 10, 11}
    assert cpu_list("") == set()


def test_a_hybrid_part_counts_its_performance_cores(tmp_path: Path) -> None:
    # Two performance cores with two threads each (CPUs 0-3), four efficiency cores (CPUs 4-7).
    sysfs = _sysfs(tmp_path, {0: (0, 0), 1: (0, 0), 2: (0, 4), 3: (0, 4),
                              4: (0, 8), 5: (0, 9), 6: (0, 10), 7: (0, 11)})
    (tmp_path / "devices" / "cpu_core").mkdir()
    (tmp_path / "devices" / "cpu_core" / "cpus").write_text("0-3\n")
    (tmp_path / "devices" / "cpu_atom").mkdir()
    (tmp_path / "devices" / "cpu_atom" / "cpus").write_text("4-7\n")
    assert physical_cores(range(8), sysfs) == 2
    assert physical_cores([4, 5], sysfs) == 2  # a process held to efficiency cores counts those


def _cgroup(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_cpu_quota_v2(tmp_path: Path) -> None:
    assert cpu_quota(_cgroup(tmp_path / "a", {"cpu.max": "250000 100000\n"})) == 3  # 2.5 CPUs, rounded up
    assert cpu_quota(_cgroup(tmp_path / "b", {"cpu.max": "max 100000\n"})) is None
    assert cpu_quota(_cgroup(tmp_path / "c", {"cpu.max": "50000 100000\n"})) == 1


def test_cpu_quota_v1(tmp_path: Path) -> None:
    limited = {"cpu/cpu.cfs_quota_us": "200000\n", "cpu/cpu.cfs_period_us": "100000\n"}
    assert cpu_quota(_cgroup(tmp_path / "a", limited)) == 2
    unlimited = {"cpu/cpu.cfs_quota_us": "-1\n", "cpu/cpu.cfs_period_us": "100000\n"}
    assert cpu_quota(_cgroup(tmp_path / "b", unlimited)) is None
    assert cpu_quota(tmp_path / "none") is None


def test_a_container_quota_caps_both(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_threads, "usable_cpus", lambda: list(range(16)))
    sysfs = _sysfs(tmp_path / "sys", {cpu: (0, cpu // 2) for cpu in range(16)})  # 8 cores, 2 threads each
    cgroups = _cgroup(tmp_path / "cgroup", {"cpu.max": "200000 100000\n"})
    assert default_threads(sysfs, tmp_path / "nocgroup") == Threads(token=8, batch=16)
    assert default_threads(sysfs, cgroups) == Threads(token=2, batch=2)


def test_given_threads_win_and_a_token_count_holds_for_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_threads, "default_threads", lambda: Threads(token=4, batch=8))
    assert chosen_threads() == Threads(token=4, batch=8)
    assert chosen_threads(token=1) == Threads(token=1, batch=1)
    assert chosen_threads(batch=2) == Threads(token=4, batch=2)
    assert chosen_threads(token=1, batch=2) == Threads(token=1, batch=2)
