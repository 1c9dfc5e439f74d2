"""Every example under examples/ runs to its end on the default model."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.model


def test_the_agent_example_runs() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "agent.py")], capture_output=True, text=True, timeout=600,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("call: count_stock") and any(line.startswith("typed answer:") for line in lines)
