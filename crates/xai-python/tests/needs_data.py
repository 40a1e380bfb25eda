"""What the tests that read a registered dataset do on a machine without it."""

from __future__ import annotations

import os

import pytest


def skip_without_data(what: str, stderr: str) -> None:
    """Skips, saying why, when ``what`` failed only for a dataset file that is not on
    this machine and XAI_DATA_DIR is unset (CI sets it, so there it fails instead)."""
    if "not found (looked for" in stderr and not os.environ.get("XAI_DATA_DIR"):
        reason = next(line for line in stderr.splitlines() if "not found (looked for" in line)
        pytest.skip(f"{what} reads a dataset this machine lacks (XAI_DATA_DIR unset): {reason.strip()}")
