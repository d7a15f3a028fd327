"""`pip install --no-build-isolation .` from the checkout into a venv made from Debian's Python
(`make python` does the same into .venv): everything from Debian, no package index. The build
reuses the CMake tree CTest built (FLAMEFOLD_BUILD_DIR), so only the install is new work."""
import os
import subprocess
import sys

import pytest


def test_pip_install_into_a_venv(tmp, source_dir):
    build_dir = os.environ.get("FLAMEFOLD_BUILD_DIR")
    if not build_dir:
        pytest.fail("FLAMEFOLD_BUILD_DIR is not set (run through ctest)")
    venv = tmp / "venv"
    subprocess.run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    env = dict(os.environ, FLAMEFOLD_BUILD_DIR=build_dir, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    env.pop("PYTHONPATH", None)  # the venv's own flamefold, not the build tree's
    done = subprocess.run([python, "-m", "pip", "install", "-q", "--no-build-isolation", "--no-deps", "--no-index",
                           source_dir], capture_output=True, text=True, env=env, cwd=str(tmp))
    assert done.returncode == 0, done.stdout + done.stderr
    probe = ("import flamefold, flamefold.torch, flamefold.dask, sys; "
             "p = flamefold.load(b'a;b 2\\na;c 3\\n'); "
             "print(flamefold.__file__); print(p.total(), p.weights); "
             "print(flamefold.load.__doc__.count('steps'))")
    run = subprocess.run([python, "-c", probe], capture_output=True, text=True, env=env, cwd=str(tmp))
    assert run.returncode == 0, run.stderr
    where, totals, doc = run.stdout.splitlines()
    assert where.startswith(str(venv)), where
    assert totals == "5.0 ['samples']"
    assert int(doc) >= 1
    # The package's files are there, py.typed included (type hints for checkers).
    pkg = os.path.dirname(where)
    assert {"__init__.py", "_core.py", "torch.py", "dask.py", "py.typed"} <= set(os.listdir(pkg))
    assert any(n.startswith("_native") and n.endswith(".so") for n in os.listdir(pkg))
