"""The GPU run of issue 13 (docs/solver.md, GPU run): one command on a GPU machine.

    bash bench/gpu_run.sh            # installs the cuda extra if needed, then runs this

Steps, each printed as it finishes (and saved to ``--out``/results.json):

1. check: carry-over n = 8 on the GPU against the CPU threads (every layer
   within the float32 bound, checksums compared);
2. carry-over n = 10 and 11 on the GPU: seconds and matrix games/s, against
   the CPU backend with all cores at n = 10;
3. if the rate measured at n = 11 predicts that the 13-card carry-over game
   fits in what is left of ``--budget`` seconds, solve it (layers under
   ``--tables``) and print the value, the first-round equilibrium for each
   prize, layer sizes and checksums.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path


def solve(n: int, backend, folder: Path) -> dict:
    from cardtable.goofspiel import Ruleset
    from cardtable.solver.layers import solve_layered

    t = time.perf_counter()
    m = solve_layered(Ruleset(cards=n, tie_rule="carry"), "points", folder, backend)
    m["wall_s"] = time.perf_counter() - t
    return m


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.environ.get("OUT", "/tmp/gpu-run"), help="folder for results.json")
    ap.add_argument("--tables", default="/tmp/gpu-tables", help="folder for the layer files")
    ap.add_argument("--budget", type=float, default=540.0, help="seconds this script may take")
    args = ap.parse_args()
    t0 = time.perf_counter()
    out, tables = Path(args.out), Path(args.tables)
    out.mkdir(parents=True, exist_ok=True)
    res: dict = {}

    def save() -> None:
        (out / "results.json").write_text(json.dumps(res, indent=1, default=str))

    import numpy as np
    from numba import cuda

    from cardtable.solver.cuda_backend import CudaBackend
    from cardtable.solver.layers import LayerBackend, lean_layout
    from cardtable.solver.lean import float32_bound

    dev = cuda.get_current_device()
    res["device"] = dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name)
    res["cpus"] = os.cpu_count()
    print("device:", res["device"], "| CPUs:", res["cpus"], flush=True)
    cpu = LayerBackend(threads=os.cpu_count() or 1)

    # 1. correctness on the GPU against the CPU
    a = solve(8, cpu, tables / "cpu8")
    b = solve(8, CudaBackend(), tables / "gpu8")
    from cardtable.goofspiel import Ruleset

    lay = lean_layout(Ruleset(cards=8, tie_rule="carry"), "points")
    worst = []
    for k in range(1, 9):
        x = np.fromfile(tables / "cpu8" / f"layer-{k:02d}.f32", dtype="<f4").astype(float)
        y = np.fromfile(tables / "gpu8" / f"layer-{k:02d}.f32", dtype="<f4").astype(float)
        worst.append(float(np.max(np.abs(x - y))))
        assert worst[-1] <= float32_bound(lay, k), (k, worst[-1])
    same = [x["sha256"] == y["sha256"] for x, y in zip(a["layers"], b["layers"], strict=True)]
    res["check_n8"] = {
        "max_diff_per_layer": worst,
        "identical_layers": same,
        "gpu_max_gap": b["stats"]["max_gap"],
    }
    print("n=8 GPU vs CPU: max |diff| per layer", worst, "identical", same, flush=True)
    save()

    # 2. throughput
    c10 = solve(10, cpu, tables / "cpu10")
    res["cpu_n10"] = {
        "s": c10["wall_s"],
        "games": c10["stats"]["games"],
        "games_per_s": c10["stats"]["games"] / c10["wall_s"],
    }
    print(
        f"CPU {res['cpus']} threads n=10: {c10['wall_s']:.1f} s, {res['cpu_n10']['games_per_s']:.3g} games/s",
        flush=True,
    )
    for n in (10, 11):
        g = solve(n, CudaBackend(), tables / f"gpu{n}")
        res[f"gpu_n{n}"] = {
            "s": g["wall_s"],
            "games": g["stats"]["games"],
            "games_per_s": g["stats"]["games"] / g["wall_s"],
            "layers": [(x["k"], x["games"], round(x["seconds"], 2)) for x in g["layers"]],
        }
        print(
            f"GPU n={n}: {g['wall_s']:.1f} s, {res[f'gpu_n{n}']['games_per_s']:.3g} games/s, value "
            f"check max gap {g['stats']['max_gap']:.1e}",
            flush=True,
        )
        save()

    # 3. the 13-card carry-over game if it fits
    from cardtable.solver.estimate import estimate_solve

    games13 = estimate_solve(Ruleset(cards=13, tie_rule="carry"), "points").games
    rate = res["gpu_n11"]["games_per_s"]
    predicted = games13 / rate * 1.5  # bigger games at n = 13 (per-game cost grows with k^2)
    left = args.budget - (time.perf_counter() - t0)
    res["n13_predicted_s"] = predicted
    print(f"n=13: {games13:.3g} games, predicted {predicted:.0f} s, {left:.0f} s left", flush=True)
    save()
    if predicted < left:
        g = solve(13, CudaBackend(), tables / "gpu13")
        from cardtable.solver import Position
        from cardtable.solver.layers import open_layered

        t = open_layered(tables / "gpu13", verify=False)
        f = frozenset(range(1, 14))
        pos = Position(f, (f, f))
        first = {
            p: {c: round(v, 4) for c, v in t.round_strategy(pos, p).a.items() if v > 5e-5}
            for p in range(1, 14)
        }
        res["n13"] = {
            "s": g["wall_s"],
            "games": g["stats"]["games"],
            "value": t.value(pos),
            "max_gap": g["stats"]["max_gap"],
            "first_round": first,
            "layers": [(x["k"], x["count"], x["sha256"]) for x in g["layers"]],
        }
        print(json.dumps(res["n13"], indent=1), flush=True)
    save()


if __name__ == "__main__":
    main()
