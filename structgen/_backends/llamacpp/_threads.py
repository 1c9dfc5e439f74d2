"""How many CPU threads llama.cpp gets by default: one per physical core for single tokens, one
per usable CPU for batches.

A single token's evaluation is arithmetic on every core at once; two hardware threads of one
core share its arithmetic units, so a second thread per core adds nothing there but contention.
llama.cpp's own tools count physical cores for this (on Intel's hybrid parts, only the
performance cores: an efficiency core holds every barrier up); llama-cpp-python assumes two
threads per core (half the CPUs), which leaves half the cores idle where a core runs one thread
(VMs whose vCPUs are cores, AMD and Intel parts without SMT). A container limited to fewer
CPUs' worth of time than it sees gets no more threads than that: llama.cpp's threads spin at
every barrier, so a thread the quota has paused holds up all the others.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

#: Where Linux describes each CPU's place: its core and package.
SYSFS_CPUS = Path("/sys/devices/system/cpu")
#: Where Linux puts the process's control groups (a container sees its own at the root).
CGROUPS = Path("/sys/fs/cgroup")


@dataclass(frozen=True)
class Threads:
    """llama.cpp's threads: ``token`` for single tokens, ``batch`` for batches (the prompt,
    forced text, guesses)."""

    token: int
    batch: int


def usable_cpus() -> list[int]:
    """The CPUs this process may run on (its affinity, where the platform tells)."""
    if hasattr(os, "sched_getaffinity"):
        return sorted(os.sched_getaffinity(0))
    return list(range(os.cpu_count() or 1))


def cpu_list(text: str) -> set[int]:
    """The CPUs of a Linux CPU list ("0-5,8,10-11")."""
    cpus: set[int] = set()
    for part in text.strip().split(","):
        if part:
            first, _, last = part.partition("-")
            cpus.update(range(int(first), int(last or first) + 1))
    return cpus


def performance_cpus(sysfs: Path = SYSFS_CPUS) -> set[int] | None:
    """On a hybrid Intel part, the CPUs of its performance cores (Linux lists them under the
    ``cpu_core`` device, the efficiency cores under ``cpu_atom``); None on any other part."""
    devices = sysfs.parent.parent
    try:
        if not (devices / "cpu_atom").is_dir():
            return None
        return cpu_list((devices / "cpu_core" / "cpus").read_text()) or None
    except (OSError, ValueError):
        return None


def physical_cores(cpus: Iterable[int], sysfs: Path = SYSFS_CPUS) -> int | None:
    """How many distinct cores ``cpus`` belong to (on a hybrid part, performance cores only),
    from Linux's topology files; None where they cannot be read."""
    chosen = list(cpus)
    fast = performance_cpus(sysfs)
    if fast is not None and fast & set(chosen):
        chosen = [cpu for cpu in chosen if cpu in fast]
    cores = set()
    for cpu in chosen:
        topology = sysfs / f"cpu{cpu}" / "topology"
        try:
            package = (topology / "physical_package_id").read_text().strip()
            core = (topology / "core_id").read_text().strip()
        except OSError:
            return None
        cores.add((package, core))
    return len(cores) or None


def cpu_quota(cgroups: Path = CGROUPS) -> int | None:
    """How many CPUs' worth of time the control group allows (rounded up), from cgroup v2's
    ``cpu.max`` or v1's ``cpu.cfs_quota_us``; None where there is no limit or no such file."""
    try:
        if (cgroups / "cpu.max").is_file():
            quota, period = (cgroups / "cpu.max").read_text().split()[:2]
            if quota == "max":
                return None
        else:
            v1 = cgroups / "cpu"
            quota = (v1 / "cpu.cfs_quota_us").read_text().strip()
            period = (v1 / "cpu.cfs_period_us").read_text().strip()
        share, length = int(quota), int(period)
    except (OSError, ValueError):
        return None
    if share <= 0 or length <= 0:
        return None
    return max(1, -(-share // length))


def default_threads(sysfs: Path = SYSFS_CPUS, cgroups: Path = CGROUPS) -> Threads:
    """One thread per physical core this process may use for single tokens (half its CPUs where
    the topology is unknown, as llama-cpp-python assumes), one per usable CPU for batches; neither
    above the control group's CPU quota."""
    cpus = usable_cpus()
    cores = physical_cores(cpus, sysfs)
    token = cores if cores is not None else max(1, len(cpus) // 2)
    most = min(len(cpus), cpu_quota(cgroups) or len(cpus))
    return Threads(token=max(1, min(token, most)), batch=max(1, most))


def chosen_threads(token: int | None = None, batch: int | None = None) -> Threads:
    """The threads asked for, the defaults for what is not given: a given ``token`` count holds
    for batches too unless ``batch`` is given."""
    default = default_threads()
    return Threads(token=token or default.token, batch=batch or token or default.batch)


__all__ = [
    "Threads", "chosen_threads", "cpu_list", "cpu_quota", "default_threads", "performance_cpus", "physical_cores",
    "usable_cpus",
]
