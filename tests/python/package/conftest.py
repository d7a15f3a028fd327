"""Shared fixtures of the Python package tests (run by CTest: tests/python/package.cmake sets
PYTHONPATH to the package CMake assembled and the FLAMEFOLD_* paths used here)."""
import os
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # viewer_payload, fixtures


@pytest.fixture(scope="session")
def flamefold_cli():
    """Runs the CLI of the same build: flamefold_cli(*args) -> CompletedProcess (text)."""
    binary = os.environ.get("FLAMEFOLD_BINARY")
    if not binary or not os.path.exists(binary):
        pytest.fail("FLAMEFOLD_BINARY is not set to the built flamefold (run through ctest)")

    def run(*args, check=True):
        done = subprocess.run([binary, *map(str, args)], capture_output=True, text=True)
        if check and done.returncode != 0:
            raise AssertionError("flamefold %s failed: %s" % (" ".join(map(str, args)), done.stderr))
        return done
    return run


@pytest.fixture(scope="session")
def source_dir():
    return os.environ.get("FLAMEFOLD_SOURCE_DIR", os.path.abspath(os.path.join(os.path.dirname(__file__), "../../..")))


@pytest.fixture(scope="session")
def shared_dir():
    """../shared, or a skip saying it is absent."""
    path = os.environ.get("FLAMEFOLD_SHARED_DIR") or os.path.join(os.path.dirname(__file__), "../../../../shared")
    if not os.path.isdir(path):
        pytest.skip("../shared is not present: skipping the tests on its real files")
    return os.path.abspath(path)


@pytest.fixture
def tmp(tmp_path):
    return tmp_path


def pytest_sessionfinish(session, exitstatus):
    # Every test of the file skipped (a dependency truly absent): tell CTest "skipped" (77).
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if exitstatus == 0 and reporter is not None:
        stats = reporter.stats
        if not stats.get("passed") and stats.get("skipped") and not stats.get("failed"):
            session.exitstatus = 77
