"""Measurements for bench/python.sh (the Python package, issue 14). Run with Debian's
/usr/bin/python3 and PYTHONPATH set to a build's python/ folder.

    python_bench.py load PATH [OUT.pb.gz]
        flamefold.load(PATH): seconds; peak RSS after the load, after top(20) and after
        write(.pb.gz) (the same peak: neither copies the profile); call paths.
    python_bench.py one PATH
        peak RSS of a process that loads one file (what a worker should stay near).
    python_bench.py dask OUT THREADS PATH...
        load_many(PATHS) on a LocalCluster of 2 worker processes (1 Dask thread each;
        THREADS = load's threads_to_use, 0 = all cores): cluster start, load_many seconds,
        each worker's peak RSS before and after; the result written to OUT (.pb.gz).
"""
import resource
import sys
import time


def rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cmd_load(path):
    t = time.perf_counter()
    import flamefold
    print("import_s %.3f" % (time.perf_counter() - t), end=" ")
    t = time.perf_counter()
    p = flamefold.load(path)
    took = time.perf_counter() - t
    after_load = rss_mb()
    t = time.perf_counter()
    p.top(20)
    top_s = time.perf_counter() - t
    after_top = rss_mb()
    t = time.perf_counter()
    p.write(sys.argv[3] if len(sys.argv) > 3 else "/tmp/ffbench/python_bench.pb.gz")
    write_s = time.perf_counter() - t
    after_write = rss_mb()
    t = time.perf_counter()
    nodes = p.node_count
    del p
    free_s = time.perf_counter() - t
    print("load_s %.3f top_s %.3f write_s %.3f free_s %.3f rss_load_mb %.0f rss_top_mb %.0f rss_write_mb %.0f paths %d"
          % (took, top_s, write_s, free_s, after_load, after_top, after_write, nodes - 1))


def cmd_one(path):
    import flamefold
    base = rss_mb()
    flamefold.load(path)
    print("rss_import_mb %.0f rss_one_file_mb %.0f" % (base, rss_mb()))


def worker_rss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cmd_dask(out, threads, paths):
    import distributed

    from flamefold.dask import load_many
    t = time.perf_counter()
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                       silence_logs=40)
    client = distributed.Client(cluster)
    client.run(lambda: __import__("flamefold"))  # imported on the workers before timing
    start_s = time.perf_counter() - t
    before = client.run(worker_rss)
    options = {} if int(threads) == 0 else {"threads_to_use": int(threads)}
    t = time.perf_counter()
    p = load_many(paths, client=client, **options)
    took = time.perf_counter() - t
    after = client.run(worker_rss)
    p.write(out)
    client.close()
    cluster.close()
    print("cluster_start_s %.2f load_many_s %.3f worker_rss_before_mb %s worker_peak_rss_mb %s client_rss_mb %.0f paths %d"
          % (start_s, took, "/".join("%.0f" % v for v in before.values()),
             "/".join("%.0f" % v for v in after.values()), rss_mb(), p.node_count - 1))


if __name__ == "__main__":
    what = sys.argv[1]
    if what == "load":
        cmd_load(sys.argv[2])
    elif what == "one":
        cmd_one(sys.argv[2])
    elif what == "dask":
        cmd_dask(sys.argv[2], sys.argv[3], sys.argv[4:])
    else:
        sys.exit(__doc__)
