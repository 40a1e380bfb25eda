"""`run(id)` writes the CLI's `summary.csv` byte for byte, for one experiment of each
paper, on 1 and 2 threads (issue 49, "The same numbers as the CLI").

The CLI's file comes from `cargo xtask run` in the same checkout; the experiments on
real data read them from XAI_DATA_DIR, as every run does."""

from __future__ import annotations

import pathlib
import subprocess

import pytest

import xaiws
from needs_data import skip_without_data

# One per paper, each a few seconds at ci scale.
ROOT = pathlib.Path(__file__).resolve().parents[3]
EXPERIMENTS = ["wood2024-fig2", "molnar2023-brier", "icefi2022-figA", "watson2023-table1", "cid2021-fig3"]


@pytest.fixture(scope="module")
def cli(tmp_path_factory):
    out = tmp_path_factory.mktemp("cli")
    done = {}
    for e in EXPERIMENTS:
        done[e] = subprocess.run(
            ["cargo", "xtask", "run", e, "--out", str(out / e), "--threads", "2"],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
    return out, done


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("experiment", EXPERIMENTS)
def test_run_writes_the_clis_summary(cli, tmp_path, experiment, threads):
    out, done = cli
    if done[experiment].returncode != 0:
        skip_without_data(experiment, done[experiment].stderr)
    assert done[experiment].returncode == 0, f"cargo xtask run {experiment} failed:\n{done[experiment].stderr}"
    r = xaiws.run(experiment, out=str(tmp_path / experiment), threads=threads)
    assert r.id == experiment
    ours = (tmp_path / experiment / "summary.csv").read_bytes()
    theirs = (out / experiment / "summary.csv").read_bytes()
    assert ours == theirs
    assert len(r.summary["quantity"]) == ours.count(b"\n") - 1


def test_an_unknown_experiment_lists_the_known_ones():
    with pytest.raises(xaiws.XaiError, match="wood2024-fig4"):
        xaiws.run("wood2024-fig99")
