#!/usr/bin/python3
"""Runs `coax batch` over a JSONL file on a Dask distributed cluster.

The file is read as a Dask bag (dask.bag.read_text splits it into
partitions of about --blocksize bytes, at line ends); every partition is
piped through one `coax batch RECIPE --input - --output -` process on a worker, as Spark's
RDD.pipe and Hadoop Streaming do; the partitions' outputs are written to
OUTPUT in input order, so OUTPUT has one line per input line, in order,
exactly as one `coax batch RECIPE --input INPUT --output OUTPUT` would.

    /usr/bin/python3 examples/dask/coax_dask.py [--workers 2] [--blocksize 64MiB]
        [--scheduler ADDRESS] [--coax build/coax] RECIPE INPUT OUTPUT [-- BATCH OPTIONS...]

Without --scheduler it starts a LocalCluster of --workers worker processes
(one thread each) on this machine; with it, it joins a running scheduler
(`dask-scheduler`, `dask-worker ADDRESS` on each machine), whose workers
must all see the recipe, its schema and the coax command at the same paths.

What holds when a worker dies: Dask reruns the tasks that were running on
it (and recomputes the results it held) on another worker, and keeps the
result of one run of each task; a killed run's output is never seen. So
every input line comes out exactly once even across retries. A rerun task
calls the model again for its lines: a partition is the unit of retry.

BATCH OPTIONS go to every `coax batch` (--concurrency, --replay, ...);
--allow-failed is always passed, so lines that fail are output lines with
their error and only a coax that could not run (bad recipe, agent down:
exit 2, 3, 4, 5) fails the task, and with it the job.
Needs Debian's python3-distributed (`make deps`).
"""
import argparse
import os
import subprocess
import sys

import dask.bag
from dask.distributed import Client, LocalCluster


def run_partition(lines, argv):
    """Pipes one partition (a list of lines) through `coax batch`; returns
    the output lines. Runs on a worker."""
    text = "".join(line if line.endswith("\n") else line + "\n" for line in lines)
    if not text:
        return []
    proc = subprocess.run(argv, input=text.encode(), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, check=False)
    if proc.returncode != 0:
        raise RuntimeError("%s exited %d: %s" % (" ".join(argv), proc.returncode,
                                                 proc.stderr.decode(errors="replace").strip()))
    out = proc.stdout.decode().splitlines(keepends=True)
    if len(out) != len(lines):
        raise RuntimeError("coax batch wrote %d lines for %d" % (len(out), len(lines)))
    return out


def parse_args(argv):
    batch_args = []
    if "--" in argv:
        cut = argv.index("--")
        argv, batch_args = argv[:cut], argv[cut + 1:]
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--workers", type=int, default=2, help="LocalCluster worker processes")
    p.add_argument("--blocksize", default="64MiB", help="bytes of input per partition")
    p.add_argument("--scheduler", help="address of a running scheduler (no LocalCluster)")
    p.add_argument("--coax", default="coax", help="the coax command on the workers")
    p.add_argument("recipe")
    p.add_argument("input")
    p.add_argument("output")
    args = p.parse_args(argv)
    args.batch_args = batch_args
    return args


def main(argv):
    args = parse_args(argv)
    recipe = os.path.abspath(args.recipe)
    coax = os.path.abspath(args.coax) if os.sep in args.coax else args.coax
    command = [coax, "batch", recipe, "--input", "-", "--output", "-", "--allow-failed", "--quiet"]
    command += args.batch_args
    if args.scheduler:
        cluster = None
        client = Client(args.scheduler)
    else:
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                               dashboard_address=None)
        client = Client(cluster)
    try:
        bag = dask.bag.read_text(os.path.abspath(args.input), blocksize=args.blocksize)
        parts = bag.map_partitions(run_partition, command).to_delayed()
        futures = client.compute(parts)
        tmp = args.output + ".part"
        lines = 0
        with open(tmp, "w", encoding="utf-8") as out:
            for future in futures:  # in partition order: the output keeps the input's
                chunk = future.result()
                out.writelines(chunk)
                lines += len(chunk)
        os.replace(tmp, args.output)
        print("coax_dask: %d lines in %d partitions" % (lines, len(futures)), file=sys.stderr)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
