#!/usr/bin/env python3
"""Compares a resumed run's log with an uninterrupted run's, with h5py only (independent of
the engine's reader). Usage: compare_run_logs.py REFERENCE.h5 RESUMED.h5 [--expect-resume]

Checks, and prints one line per difference:
- every scalar: the same steps (so contiguous wherever the reference is) and the same values,
  except throughput, which depends on the clock;
- every series (attention snapshots, per-layer quantities): the same steps and values;
- the checkpoints table: the same steps;
- with --expect-resume (a checkpoint existed when it was resumed): a 'resume' event.
Exit status 0 when equal, 1 otherwise. The last line says what was compared."""
import sys

import h5py
import numpy as np

CLOCK_DEPENDENT = ("tokens_per_second", "sequences_per_second", "steps_per_second")


def leaves(group, prefix=""):
    """Names of the groups under `group` that hold a 'step' dataset."""
    out = []
    for name, item in group.items():
        if isinstance(item, h5py.Group):
            if "step" in item:
                out.append(prefix + name)
            else:
                out.extend(leaves(item, prefix + name + "/"))
    return out


def main(reference_path, resumed_path, expect_resume):
    problems = []
    compared = 0
    with h5py.File(reference_path, "r") as ref, h5py.File(resumed_path, "r") as res:
        for top in ("scalars", "series"):
            if top not in ref:
                continue
            for name in leaves(ref[top]):
                a, b = ref[top][name], res[top].get(name) if top in res else None
                if b is None:
                    problems.append(f"{top}/{name}: missing")
                    continue
                sa, sb = a["step"][()], b["step"][()]
                if not np.array_equal(sa, sb):
                    missing = sorted(set(sa.tolist()) - set(sb.tolist()))
                    extra = sorted(set(sb.tolist()) - set(sa.tolist()))
                    problems.append(f"{top}/{name}: steps differ: missing {missing[:10]}"
                                    f" extra {extra[:10]} ({len(sa)} vs {len(sb)} rows)")
                    continue
                compared += 1
                if name.endswith(CLOCK_DEPENDENT):
                    continue
                va, vb = a["value"][()], b["value"][()]
                if not np.array_equal(va, vb, equal_nan=True):
                    worst = np.nanmax(np.abs(va.astype(np.float64) - vb.astype(np.float64)))
                    problems.append(f"{top}/{name}: values differ (largest {worst:g})")
        ca, cb = ref["checkpoints/step"][()], res["checkpoints/step"][()]
        if not np.array_equal(ca, cb):
            problems.append(f"checkpoints: steps {ca.tolist()} vs {cb.tolist()}")
        kinds = [k.decode() if isinstance(k, bytes) else k for k in res["events/kind"][()]]
        if expect_resume and "resume" not in kinds:
            problems.append(f"events: no 'resume' in {kinds}")
    for p in problems:
        print(p)
    print(f"compared {compared} scalar and series columns and {len(ca)} checkpoint rows: "
          f"{'equal' if not problems else str(len(problems)) + ' difference(s)'}")
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], "--expect-resume" in sys.argv[3:]))
