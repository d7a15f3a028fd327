"""Builds flamefold's Python package with CMake (the extension flamefold._native, pybind11 from
Debian's pybind11-dev) and installs python/flamefold with it. Metadata: pyproject.toml.

    pip install --no-build-isolation .       # Debian's setuptools, no package index needed

FLAMEFOLD_CMAKE_ARGS adds CMake arguments; FLAMEFOLD_BUILD_DIR chooses the build tree (default
build-python/ in the checkout, reused by later installs); FLAMEFOLD_JOBS the parallel jobs."""
import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(HERE, "build-python"), exist_ok=True)  # setup.cfg: egg_base, build_base


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build_dir = os.environ.get("FLAMEFOLD_BUILD_DIR") or os.path.join(HERE, "build-python")
        jobs = os.environ.get("FLAMEFOLD_JOBS") or str(min(2, os.cpu_count() or 1))
        configure = ["cmake", "-S", HERE, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release", "-DFLAMEFOLD_PYTHON=ON",
                     # The interpreter pip runs (a venv's base: the same ABI, a stable path).
                     "-DPython_EXECUTABLE=" + getattr(sys, "_base_executable", sys.executable)]
        configure += os.environ.get("FLAMEFOLD_CMAKE_ARGS", "").split()
        subprocess.check_call(configure)
        subprocess.check_call(["cmake", "--build", build_dir, "--target", "_native", "-j", jobs])
        built = os.path.join(build_dir, "python", "flamefold")
        target = os.path.dirname(self.get_ext_fullpath(ext.name))
        os.makedirs(target, exist_ok=True)
        for name in os.listdir(built):
            if name.startswith("_native") and name.endswith(".so"):
                shutil.copy2(os.path.join(built, name), self.get_ext_fullpath(ext.name))
                return
        raise RuntimeError("CMake built no flamefold/_native*.so in " + built)


setup(
    packages=["flamefold"],
    package_dir={"flamefold": "python/flamefold"},
    package_data={"flamefold": ["py.typed"]},
    ext_modules=[CMakeExtension("flamefold._native")],
    cmdclass={"build_ext": CMakeBuild},
    zip_safe=False,
)
