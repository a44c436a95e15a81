#!/usr/bin/env python3
"""Scheduler x block layout x worker configuration sweep of one case, into one tidy CSV.

  tools/sweep.py inputs/sweep.toml --out /tmp/sweep_cpu
  tools/sweep.py inputs/sweep.toml --out DIR --workers cuda:1 cpu:15+cuda:1 --blocks 1x1 2x2 4x4

In order:
  1. `ondes3d calibrate`: the machine figures of the analytic cost model (DIR/machine.toml),
     unless --machine gives them;
  2. for every worker configuration and layout, one run with STARPU_CALIBRATE=1 under dmda, so
     that the model-based policies (dm, dmda, dmdas) start every point with calibrated models;
  3. every point, --repeat times, each run writing its one-row summary; the predicted time per
     iteration from `ondes3d predict` beside it;
  4. one run with --trace at the --trace-point configuration, for the Gantt chart.
DIR/sweep.csv has one row per run; DIR/sweep.log every command and its output. StarPU's
performance models live in DIR/starpu-home (a fresh home for a fresh sweep).

Simulated (issue 46): `--simulate HOME:HOST` runs every point with the SimGrid build (--bin, default
build-sim/project/ondes3d) on machine HOST of a calibrated StarPU home (a copy of HOME in
DIR/starpu-home; e.g. inputs/platforms/h200:h200x8), one stream a GPU and each GPU costing a block
what the calibrated GPU did; no calibration (steps 1-2), predictions only with --machine, one run a
point (a simulation gives the same figure every time), `--sim-task-gap` added to every task and
`--sim-launch-latency` spent by a GPU worker before each launch (docs/lab.md). The rows say where
they come from (column `source`: measured, or simulated:HOST).

  tools/sweep.py inputs/benchmark.toml --out /tmp/sim8 --simulate inputs/platforms/h200:h200x8 \
      --workers cuda:8 cuda:4 --blocks 1x8 1x16 2x8 --schedulers eager lws dmda dmdas --steps 100
Only Python's standard library: the GPU machine has nothing more.
"""
import argparse
import csv
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
POLICIES = ["eager", "lws", "ws", "dm", "dmda", "dmdas"]


def parse_workers(text):
    """'cpu:2', 'cuda:1', 'cpu:15+cuda:1' -> (ncpu, ncuda)."""
    counts = {"cpu": 0, "cuda": 0}
    for part in text.split("+"):
        kind, _, n = part.partition(":")
        if kind not in counts or not n.isdigit():
            raise SystemExit(f"--workers {text}: expected e.g. cpu:2, cuda:1 or cpu:15+cuda:1")
        counts[kind] = int(n)
    if counts["cpu"] + counts["cuda"] == 0:
        raise SystemExit(f"--workers {text}: no worker at all")
    return counts["cpu"], counts["cuda"]


def parse_blocks(text):
    try:
        x, y = (int(v) for v in text.lower().split("x"))
        return x, y
    except ValueError:
        raise SystemExit(f"--blocks {text}: expected NXxNY, e.g. 4x4")


class Runner:
    def __init__(self, args):
        self.args = args
        self.log = open(os.path.join(args.out, "sweep.log"), "a")
        self.env = dict(os.environ, STARPU_SILENT="1", STARPU_HOME=os.path.join(args.out, "starpu-home"))
        if args.simulate:
            home, _, host = args.simulate.rpartition(":")
            if not home or not host or not os.path.isdir(os.path.join(home, ".starpu")):
                raise SystemExit(f"--simulate {args.simulate}: expected HOME:HOST, HOME a StarPU home (holding .starpu)")
            shutil.rmtree(self.env["STARPU_HOME"], ignore_errors=True)
            shutil.copytree(home, self.env["STARPU_HOME"])  # StarPU writes there
            self.env.update(STARPU_HOSTNAME=host, STARPU_CALIBRATE="0", STARPU_NWORKER_PER_CUDA="1",
                            STARPU_PERF_MODEL_HOMOGENEOUS_CUDA="1")

    def __call__(self, argv, env=None, check=True, timeout=None):
        """The program's result, or None when it ran past `timeout` seconds (then killed)."""
        cmd = [self.args.bin] + argv
        self.log.write(f"$ {' '.join(k + '=' + v for k, v in (env or {}).items())} {' '.join(cmd)}\n")
        self.log.flush()
        try:
            p = subprocess.run(cmd, env=dict(self.env, **(env or {})), stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, timeout=timeout)
        except subprocess.TimeoutExpired as e:
            self.log.write(f"timed out after {timeout} s\n")
            self.log.flush()
            return None
        self.log.write(p.stdout)
        self.log.flush()
        if check and p.returncode != 0:
            sys.exit(f"sweep: {' '.join(cmd)} failed with status {p.returncode}; see {self.log.name}:\n"
                     + p.stdout[-2000:])
        return p


def workers_env(ncpu, ncuda):
    return {"STARPU_NCPU": str(ncpu), "STARPU_NCUDA": str(ncuda)}


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("case")
    ap.add_argument("--out", required=True, help="folder for sweep.csv, machine.toml, traces, logs")
    ap.add_argument("--bin", default=None, help="the program (default build/ondes3d; with --simulate "
                    "build-sim/project/ondes3d)")
    ap.add_argument("--simulate", default="", metavar="HOME:HOST",
                    help="simulate every point on machine HOST of the calibrated StarPU home HOME (SimGrid build)")
    ap.add_argument("--sim-task-gap", type=float, default=15,
                    help="with --simulate: microseconds added to every simulated task (ondes3d run --sim-task-gap)")
    ap.add_argument("--sim-launch-latency", type=float, default=15,
                    help="with --simulate: microseconds a simulated GPU worker takes from a task to its launch "
                         "(ondes3d run --sim-launch-latency)")
    ap.add_argument("--schedulers", nargs="+", default=POLICIES)
    ap.add_argument("--blocks", nargs="+", default=["1x1", "2x1", "2x2", "4x4", "6x6", "8x8"])
    ap.add_argument("--workers", nargs="+", default=[f"cpu:{os.cpu_count()}"],
                    help="worker configurations: cpu:N, cuda:N, cpu:N+cuda:M")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--steps", type=int, default=0, help="time steps per run (default: the case's)")
    ap.add_argument("--calibrate-steps", type=int, default=20)
    ap.add_argument("--machine", help="machine model to use instead of calibrating one")
    ap.add_argument("--timeout", type=float, default=None,
                    help="seconds after which a run is stopped and its point recorded as timed out")
    ap.add_argument("--trace-point", default="",
                    help="SCHED:BLOCKS:WORKERS of the traced run (default: dmdas, the middle layout, "
                         "the last worker configuration)")
    args = ap.parse_args()
    if args.bin is None:
        args.bin = os.path.join(HERE, "..", "build-sim/project/ondes3d" if args.simulate else "build/ondes3d")
    if not os.access(args.bin, os.X_OK):
        raise SystemExit(f"sweep.py: no program at {os.path.normpath(args.bin)}: "
                         + ("--simulate runs the SimGrid build (tools/build_starpu_simgrid.sh makes it)"
                            if args.simulate else "build it with tools/setup.sh, or name one with --bin"))
    if args.simulate:
        args.repeat = 1
    args.configs = [(w,) + parse_workers(w) for w in args.workers]
    args.layouts = [(b,) + parse_blocks(b) for b in args.blocks]
    args.step_args = ["--steps", str(args.steps)] if args.steps else []
    args.sim_args = (["--sim-task-gap", str(args.sim_task_gap), "--sim-launch-latency", str(args.sim_launch_latency)]
                     if args.simulate else [])
    return args


def calibrate(run, args):
    """Steps 1-3's models: the cost model's machine file (unless given), StarPU's performance models
    (measured runs only), and the predicted figures of every point, by (workers, blocks)."""
    configs, layouts, steps = args.configs, args.layouts, args.step_args
    machine = args.machine or os.path.join(args.out, "machine.toml")
    if not args.machine and not args.simulate:
        # The CPU figures are measured even for a GPU-only sweep (with a core left to drive the GPU).
        ncpu = max(c[1] for c in configs) or max(1, os.cpu_count() - 1)
        print(f"calibrating the cost model ({ncpu} CPU workers, then the GPUs if any) ...", flush=True)
        run(["calibrate", args.case, "--output", machine, "--steps", str(args.calibrate_steps), "--ncpu", str(ncpu)])

    if not args.simulate:
        print("calibrating StarPU's performance models (STARPU_CALIBRATE=1, dmda) ...", flush=True)
    for wname, ncpu, ncuda in configs if not args.simulate else []:
        for b, _, _ in layouts:
            run(["run", args.case, "--blocks", b, "--sched", "dmda", "--output", os.path.join(args.out, "o.h5")]
                + steps, env=dict(workers_env(ncpu, ncuda), STARPU_CALIBRATE="1"))

    predicted = {}
    for wname, ncpu, ncuda in configs if (args.machine or not args.simulate) else []:
        for b, _, _ in layouts:
            p = run(["predict", args.case, "--machine", machine, "--blocks", b, "--ncpu", str(ncpu),
                     "--ncuda", str(ncuda), "--csv"])
            lines = [l for l in p.stdout.splitlines() if l and not l.startswith("[")]
            predicted[(wname, b)] = dict(zip(lines[-2].split(","), lines[-1].split(",")))
    return predicted


def measure(run, args, wname, ncpu, ncuda, b, sched):
    """One point's summary row, or None if it timed out."""
    summary = os.path.join(args.out, "summary.csv")
    if os.path.exists(summary):
        os.remove(summary)
    # --cpu-compute any: the policy, not ondes3d's own placement, decides where each block runs (the
    # point of the sweep).
    p = run(["run", args.case, "--blocks", b, "--sched", sched, "--summary", summary, "--cpu-compute", "any",
             "--output", os.path.join(args.out, "o.h5")] + args.step_args + args.sim_args,
            env=workers_env(ncpu, ncuda), timeout=args.timeout)
    if p is None:
        return None
    with open(summary) as s:
        return next(csv.DictReader(s))


def sweep(run, args, predicted, f):
    """Step 3: every point --repeat times, a row each into the open CSV file f; the points that timed out."""
    total = len(args.configs) * len(args.layouts) * len(args.schedulers) * args.repeat
    done, timed_out, writer = 0, [], None
    source = "simulated:" + args.simulate.rpartition(":")[2] if args.simulate else "measured"
    points = [(c, l, s) for c in args.configs for l in args.layouts for s in args.schedulers]
    for (wname, ncpu, ncuda), (b, _, _), sched in points:
        for rep in range(args.repeat):
            row = measure(run, args, wname, ncpu, ncuda, b, sched)
            done += 1
            head = f"[{done}/{total}] {wname:>14} {b:>5} {sched:>6} #{rep}: "
            if row is None:
                timed_out.append(f"{wname} {b} {sched}")
                print(head + f"timed out after {args.timeout:.0f} s", flush=True)
                continue
            pred = predicted.get((wname, b), {})
            measured = float(row["seconds_per_iteration"])
            row.update(workers=wname, repeat=rep, blocks=b, source=source, **pred)
            row["model_error"] = (f"{float(pred['predicted_s_per_iteration']) / measured - 1:.4f}" if pred else "")
            if writer is None:
                fields = ["case", "workers", "blocks"] + [k for k in row if k not in ("case", "workers", "blocks")]
                writer = csv.DictWriter(f, fieldnames=fields)
                writer.writeheader()
            writer.writerow(row)
            f.flush()
            print(head + f"{float(row['cell_updates_per_s']):.3e} cell-updates/s" +
                  (f", predicted {float(pred['predicted_cell_updates_per_s']):.3e} "
                   f"({float(row['model_error']):+.0%})" if pred else f" ({source})"), flush=True)
    return done, timed_out


def trace(run, args):
    """Step 4: the traced run; the trace's path."""
    tp = args.trace_point.split(":") if args.trace_point else []
    t_sched = tp[0] if tp else "dmdas"
    t_blocks = tp[1] if len(tp) > 1 else args.layouts[len(args.layouts) // 2][0]
    t_workers = ":".join(tp[2:]) if len(tp) > 2 else args.configs[-1][0]
    t_ncpu, t_ncuda = parse_workers(t_workers)
    path = os.path.join(args.out, f"trace_{t_sched}_{t_blocks}_{t_workers.replace(':', '').replace('+', '_')}.csv")
    run(["run", args.case, "--blocks", t_blocks, "--sched", t_sched, "--trace", path,
         "--output", os.path.join(args.out, "o.h5")] + args.step_args + args.sim_args, env=workers_env(t_ncpu, t_ncuda))
    return path


def main():
    args = parse_args()
    os.makedirs(args.out, exist_ok=True)
    run = Runner(args)
    started = time.time()
    predicted = calibrate(run, args)
    out_csv = os.path.join(args.out, "sweep.csv")
    with open(out_csv, "w", newline="") as f:
        done, timed_out = sweep(run, args, predicted, f)
    trace_csv = trace(run, args)
    for leftover in ("o.h5", "summary.csv"):
        if os.path.exists(os.path.join(args.out, leftover)):
            os.remove(os.path.join(args.out, leftover))
    if timed_out:
        with open(os.path.join(args.out, "timed_out.txt"), "w") as t:
            t.write("\n".join(timed_out) + "\n")
    print(f"{out_csv}: {done} runs in {time.time() - started:.0f} s ({len(timed_out)} timed out); trace {trace_csv}")


if __name__ == "__main__":
    main()
