"""The package README's three examples run as they are shown, and their claims hold
(each script asserts its own and prints what it shows)."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest
from needs_data import skip_without_data

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"


@pytest.mark.parametrize(
    "script", ["entropy_pfi_gp.py", "learner_pd_coverage.py", "shapley_uncertainty_forest.py"]
)
def test_example_runs_and_its_claims_hold(script):
    done = subprocess.run([sys.executable, str(EXAMPLES / script)], capture_output=True, text=True)
    print(done.stdout)
    if done.returncode != 0:
        skip_without_data(script, done.stderr)
    assert done.returncode == 0, done.stdout + done.stderr
