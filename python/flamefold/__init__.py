"""flamefold: flame graphs from the profiles you already have, in Python.

    import flamefold
    p = flamefold.load("trace.pt.trace.json.gz", steps="3-5")   # any input, the CLI's read options
    p.weights                      # ['cpu', 'calls', 'gpu', 'kernels']
    p.top(10, weight="gpu")        # the hottest frames (rows; .to_pandas())
    p.write("flame.html")          # any output flamefold writes, by extension
    p                              # in Jupyter: the interactive flame graph inline
    flamefold.merge([p1, p2])      # one profile, a rank level per part
    flamefold.diff(before, after)  # a differential profile

flamefold.torch.trace_handler is an ``on_trace_ready`` handler for torch.profiler;
flamefold.dask.load_many reads many rank files on a Dask cluster. Built on flamefold's C++
library (no subprocess): reading and writing run without the GIL.
"""
from ._core import Profile, Rows, Table, diff, load, merge
from ._errors import Error, InputError, InputWarning, UsageError

__version__ = "0.1.0"
__all__ = ["load", "merge", "diff", "Profile", "Rows", "Table", "Error", "InputError", "UsageError",
           "InputWarning", "__version__"]
