"""Reads an AttnLab run log with h5py (as another program would) and prints a JSON summary.

Used by tests/core/test_run_log.cpp, also while the writer is still appending:
    /usr/bin/python3 run_log_probe.py LOG.h5 [--swmr]
Prints {"schema_version", "run_name", "scalars": {name: rows}, "series": {name: {"dtype",
"shape", "rows"}}, "last_loss"}.
"""
import json
import sys

import h5py


def leaves(group, prefix=""):
    """'/'-names of the groups that hold a 'step' dataset (one per series)."""
    for name, item in group.items():
        path = f"{prefix}{name}"
        if isinstance(item, h5py.Group):
            if "step" in item:
                yield path, item
            else:
                yield from leaves(item, path + "/")


def main():
    path = sys.argv[1]
    swmr = "--swmr" in sys.argv[2:]
    if swmr:
        f = h5py.File(path, "r", libver="latest", swmr=True)
    else:
        f = h5py.File(path, "r")
    with f:
        out = {
            "schema_version": int(f.attrs["schema_version"]),
            "run_name": f.attrs["run_name"] if isinstance(f.attrs["run_name"], str)
            else f.attrs["run_name"].decode(),
            "scalars": {},
            "series": {},
        }
        for name, g in leaves(f["scalars"]):
            for column in ("step", "value"):
                g[column].refresh()
            # A reader may see a column one flush ahead of another: use the shortest.
            rows = min(g["step"].shape[0], g["value"].shape[0])
            out["scalars"][name] = rows
            if name == "train/loss" and rows:
                out["last_loss"] = float(g["value"][rows - 1])
        for name, g in leaves(f["series"]):
            value = g["value"]
            out["series"][name] = {
                "dtype": str(value.dtype),
                "shape": list(value.shape[1:]),
                "rows": min(g["step"].shape[0], value.shape[0]),
            }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
