"""Benchmark of the exact Goofspiel solver (issue 3). Prints tables; asserts nothing.

    python bench/solver.py                   # n = 4..10 discard, 4..8 carry, win objective n <= 9
    python bench/solver.py --max-cards 8 --cfr-seconds 20
    python bench/solver.py --only 12:discard:points   # one configuration
    python bench/solver.py --layouts 8,9,10           # carry-over: format 1 vs format 2 cold / warm / compact
    python bench/solver.py --layouts 10,11,12 --no-format1 --no-cold --threads 2   # full vs compact
    python bench/solver.py --backends 9 [--cuda]      # threads vs Ray 1 / 2 workers [vs CUDA]
    python bench/solver.py --estimates 10,11,12       # estimate vs measured CPU, both tie rules and objectives
    python bench/solver.py --estimates 12 --ties carry --objectives win --keep /var/tmp/est --upto 6
                                                 # the same, in parts: run again (without --upto) to resume
    python bench/solver.py --estimates 12 --ties carry --objectives win --threads 2
                                                 # on 2 threads: CPU summed over them, wall beside hours(2)
    python bench/solver.py --fit bench/results/estimates.jsonl   # the per-game prices from those runs
    CARDTABLE_CACHE=/tmp/ctcache python bench/solver.py --versus 13:discard:10000

Every configuration runs in its own Python process, so "peak MB" is that
process's peak resident memory (ru_maxrss, includes ~150 MB of Python, NumPy and
Numba). Numba compilation is measured separately: once with an empty cache
folder (compile) and once with the warm on-disk cache (load).

The reference: OpenSpiel's CFR+ (C++ ``pyspiel.CFRPlusSolver``) on the same
discard game (``goofspiel``, random prize order, point-difference returns,
bids revealed, turned into a sequential game): seconds of CFR+ iterations until
the average policy's NashConv (C++ ``pyspiel.nash_conv``; OpenSpiel's
point-difference returns are half the point difference) is <= 1e-3, capped.
NashConv checks are not timed. CFR+ at n = 5 needs about 8 GiB of memory and
its NashConv checks take minutes of wall time.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time


def child(config: dict) -> dict:
    t0 = time.perf_counter()
    from cardtable.goofspiel import Ruleset
    from cardtable.solver import Position
    from cardtable.solver.layout import run_backward_induction
    from cardtable.solver.table import full_layout

    t_import = time.perf_counter() - t0
    if config["kind"] == "compile":
        t1 = time.perf_counter()
        rs = Ruleset(cards=3, tie_rule="carry")
        layout = full_layout(rs, "win")
        run_backward_induction(layout)
        from cardtable.solver.table import Table

        t = Table(rs, "win", layout, run_backward_induction(layout)[0], (1, 2, 3))
        f = frozenset({1, 2, 3})
        t.round_strategy(Position(f, (f, f)), 2)
        return {"import_s": t_import, "first_solve_s": time.perf_counter() - t1}
    if config["kind"] == "cfr":
        return cfr(config["cards"], config["seconds"])
    if config["kind"] == "lean":
        return lean(config)
    rs = Ruleset(cards=config["cards"], tie_rule=config["ties"])
    # load (or compile) the kernels first: not part of the solve time
    run_backward_induction(
        full_layout(Ruleset(cards=4, tie_rule=config["ties"]), config["objective"]),
        threads=config.get("threads", 1),
    )
    t1 = time.perf_counter()
    layout = full_layout(rs, config["objective"])
    t_layout = time.perf_counter() - t1
    c0 = time.process_time()
    values, stats = run_backward_induction(layout, threads=config.get("threads", 1))
    cpu = time.process_time() - c0
    from cardtable.solver.table import Table

    table = Table(rs, config["objective"], layout, values, tuple(rs.deck), stats)
    f = frozenset(rs.deck)
    return {
        "positions": stats["positions"],
        "games": stats["games"],
        "layout_s": t_layout,
        "solve_s": stats["seconds"],
        "cpu_s": cpu,
        "max_gap": stats["max_gap"],
        "value": table.value(Position(f, (f, f))),
        "disk_gib": layout.size * 8 / 2**30,
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def lean(config: dict) -> dict:
    """Format 2 (lean layout, float32 layers on disk) with a backend, in a temporary folder."""
    from pathlib import Path

    from cardtable.goofspiel import Ruleset
    from cardtable.solver import Position
    from cardtable.solver.layers import LayerBackend, lean_layout, open_layered, solve_layered

    rs = Ruleset(cards=config["cards"], tie_rule=config["ties"])
    from cardtable.solver.estimate import estimate_solve, measure_reference

    t1 = time.perf_counter()
    lay = lean_layout(rs, config["objective"], config.get("compact", False))
    t_layout = time.perf_counter() - t1
    estimate = estimate_solve(rs, config["objective"], compact=lay.compact)
    backend = config.get("backend", "threads")
    if backend == "ray":
        from cardtable.solver.ray_backend import RayBackend

        be = RayBackend(workers=config["workers"])
    elif backend == "cuda":
        from cardtable.solver.cuda_backend import CudaBackend

        be = CudaBackend()
    else:
        be = LayerBackend(threads=config.get("threads", 1), warm=config.get("warm", True))
    with tempfile.TemporaryDirectory(dir=config.get("dir")) as tmp:
        # load (or compile) the kernels for these array types first: not part of the solve time
        solve_layered(Ruleset(cards=4, tie_rule=config["ties"]), config["objective"], Path(tmp) / "warm", be)
        if "folder" in config:  # kept: a run that resumes where an earlier one stopped
            check_kept(Path(config["folder"]))
            return kept(config, rs, lay, be, estimate, t_layout)
        folder = Path(tmp) / "t"
        c0 = time.process_time()
        manifest = solve_layered(rs, config["objective"], folder, be, lay=lay)
        cpu = time.process_time() - c0
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # before the reference's
        disk = sum(p.stat().st_size for p in folder.iterdir())
        table = open_layered(folder, verify=False)
        f = frozenset(rs.deck)
        value = table.value(Position(f, (f, f)))
        st = manifest["stats"]
        metas = [json.loads((folder / f"layer-{x['k']:02d}.json").read_text()) for x in manifest["layers"]]
        return {
            "warm": [(m["k"], m.get("warm_hits", 0), m.get("warm_misses", 0), m["games"]) for m in metas],
            "positions": st["positions"],
            "games": st["games"],
            "layout_s": t_layout,
            "solve_s": st["seconds"],
            "cpu_s": cpu,
            # this machine's speed, right after: the reference solve (estimate.REFERENCE_CARDS), one thread
            "reference_cpu_s": measure_reference(config["ties"], config["objective"]),
            "max_gap": st["max_gap"],
            "value": value,
            "disk_gib": disk / 2**30,
            "peak_mb": peak_mb,
            "estimate": {
                "cpu_s": estimate.cpu_seconds,
                "memory_gib": estimate.memory_bytes / 2**30,
                "disk_gib": estimate.disk_bytes / 2**30,
            },
            "layers": [(x["k"], x["games"], x["seconds"]) for x in manifest["layers"]],
        }


def _without_path(config: dict) -> dict:
    """``config`` less its kept folder's path (the record keeps the folder's name, ``kept``)."""
    return {k: v for k, v in config.items() if k != "folder"}


def kept(config: dict, rs, lay, be, estimate, t_layout: float) -> dict:
    """``lean``'s solve into the kept folder ``config["folder"]``, resuming its finished layers
    and stopping after layer ``config["upto"]`` when given. The measured CPU is the sum of the
    layers' own ``cpu_seconds`` (each layer is solved whole within one run: an interrupted
    layer is solved again and only its finished run counts), so a solve longer than one
    sitting is measured in parts. Each run appends its layers and peak memory to the folder's
    ``bench-runs.jsonl``; the peak reported is the largest of them. Each run then measures its
    own reference solve (one thread, CPU s); the record's is their mean weighted by the CPU
    each run solved, so a solve spread over machines is still on one scale."""
    from pathlib import Path

    from cardtable.solver import Position
    from cardtable.solver.estimate import GAME_PRICE_NS, layer_cpu_ns, measure_reference
    from cardtable.solver.layers import open_layered, solve_layered
    from cardtable.solver.lean import reachable_games

    folder = Path(config["folder"])
    upto = config.get("upto")
    c0 = time.process_time()
    manifest = solve_layered(rs, config["objective"], folder, be, lay=lay, upto=upto)
    st = manifest["stats"]
    solved = [x["k"] for x in manifest["layers"] if x["k"] not in st["resumed_layers"]]
    run_cpu = time.process_time() - c0
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # before the reference's
    reference = measure_reference(config["ties"], config["objective"]) if solved else None
    with open(folder / "bench-runs.jsonl", "a") as f:
        f.write(
            json.dumps(
                {
                    "when": time.strftime("%Y-%m-%dT%H:%M:%S"),
                    "solved_layers": solved,
                    "cpu_s": run_cpu,
                    "threads": config.get("threads", 1),
                    "reference_cpu_s": reference,  # None: the run solved nothing
                    "peak_mb": peak_mb,
                    "loadavg": os.getloadavg(),
                }
            )
            + "\n"
        )
    runs = [json.loads(x) for x in (folder / "bench-runs.jsonl").read_text().splitlines() if x.strip()]
    metas = [json.loads((folder / f"layer-{x['k']:02d}.json").read_text()) for x in manifest["layers"]]
    price = GAME_PRICE_NS[(config["ties"], config["objective"])]
    per_layer = [
        (
            m["k"],
            m["games"],
            m["cpu_seconds"],
            layer_cpu_ns(lay, m["k"], reachable_games(lay, m["k"])[1], price) * 1e-9,
        )
        for m in metas
    ]
    out = {
        "kept": folder.name,  # the name only: the record holds no path of the machine
        "upto": manifest.get("upto"),
        "per_layer": per_layer,  # (k, games, CPU s, estimate s)
        "bench_runs": len(runs),
        "warm": [(m["k"], m.get("warm_hits", 0), m.get("warm_misses", 0), m["games"]) for m in metas],
        "positions": st["positions"],
        "games": st["games"],
        "layout_s": t_layout,
        "cpu_s": sum(m["cpu_seconds"] for m in metas),
        "reference_cpu_s": weighted_reference(runs),
        "solve_s": sum(m["seconds"] for m in metas),
        "max_gap": st["max_gap"],
        "disk_gib": sum(p.stat().st_size for p in folder.iterdir() if p.name.startswith("layer-")) / 2**30,
        "peak_mb": max(r["peak_mb"] for r in runs),
        "estimate": {
            "cpu_s": estimate.cpu_seconds,
            "memory_gib": estimate.memory_bytes / 2**30,
            "disk_gib": estimate.disk_bytes / 2**30,
        },
        "layers": [(m["k"], m["games"], m["cpu_seconds"]) for m in metas],
    }
    if manifest.get("upto") is None:
        f = frozenset(rs.deck)
        out["value"] = open_layered(folder, verify=False).value(Position(f, (f, f)))
    return out


def check_kept(folder) -> None:
    """Refuse a kept folder whose finished layers record no ``cpu_seconds`` (solved by an older
    cardtable): before hours of solving, not after."""
    missing = sorted(
        p.name for p in folder.glob("layer-*.json") if "cpu_seconds" not in json.loads(p.read_text())
    )
    if missing:
        raise SystemExit(f"{missing} in {folder} record no cpu_seconds: delete the folder and start again")


def weighted_reference(runs: list[dict]) -> float | None:
    """The reference CPU seconds of a solve made in several runs: each run's reference weighted
    by the CPU seconds it solved; None if a run that solved something measured none."""
    solving = [r for r in runs if r["solved_layers"]]
    if not solving or any(r.get("reference_cpu_s") is None for r in solving):
        return None
    total = sum(r["cpu_s"] for r in solving)
    if total <= 0:
        return sum(r["reference_cpu_s"] for r in solving) / len(solving)
    return sum(r["cpu_s"] * r["reference_cpu_s"] for r in solving) / total


def layouts(ns: list[int], threads: int, format1: bool = True, cold: bool = True) -> None:
    """Carry-over: old layout (format 1), format 2 with the cold kernel and with the
    warm-started one, and format 2's compact layout (warm; what new carry-over tables get);
    each in its own process, kernels loaded before timing. Format 2 rows end with the
    estimate (:func:`cardtable.solver.estimate.estimate_solve`) of CPU seconds, memory and
    disk beside what was measured."""
    print(
        f"\n## Carry-over ties, points: format 1 (dense, float64, in memory) vs format 2 "
        f"(lean, float32 layers on disk; cold kernel / warm start), --threads {threads}"
    )
    print(
        "| n | layout | positions | matrix games | solve s | CPU s | ns/game (CPU) | peak GiB | disk GiB | value "
        "| estimate: CPU s / GiB memory / GiB disk |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    runs = [("solve", "format 1", True, False)] if format1 else []
    runs += [("lean", "format 2 cold", False, False)] if cold else []
    runs += [("lean", "format 2 warm", True, False), ("lean", "format 2 compact", True, True)]
    for n in ns:
        for kind, name, warm, compact in runs:
            r = run_child(
                {
                    "kind": kind,
                    "cards": n,
                    "ties": "carry",
                    "objective": "points",
                    "threads": threads,
                    "warm": warm,
                    "compact": compact,
                },
                timeout=6 * 3600,
            )
            if "error" in r:
                print(f"| {n} | {name} | error: {r['error']} |", flush=True)
                continue
            print(
                f"| {n} | {name} | {r['positions']:,} | {r['games']:,} | {r['solve_s']:.1f} | "
                f"{r['cpu_s']:.1f} | {1e9 * r['cpu_s'] / max(1, r['games']):.0f} | "
                f"{r['peak_mb'] / 1024:.2f} | {r['disk_gib']:.3f} | {r['value']:+.1e} | "
                + (
                    f"{r['estimate']['cpu_s']:.1f} / {r['estimate']['memory_gib']:.2f} / "
                    f"{r['estimate']['disk_gib']:.3f} |"
                    if "estimate" in r
                    else "|"
                ),
                flush=True,
            )
            if kind == "lean":
                per = ", ".join(f"k={k}: {g:,} games {s:.1f} s" for k, g, s in r["layers"] if s > 0.5)
                print(f"|   | per layer | {per} | | | | | | | |", flush=True)
            if kind == "lean" and warm:
                rate = ", ".join(f"k={k}: {h / g:.0%}" for k, h, m, g in r["warm"] if g >= 1000)
                print(f"|   | warm-start hits | {rate} | | | | | | | |", flush=True)


def estimates(
    ns: list[int],
    ties: list[str],
    objectives: list[str],
    log: str,
    keep: str | None = None,
    upto: int | None = None,
    threads: int = 1,
) -> None:
    """What ``cardtable solve`` writes by default (format 2, compact with carry-over ties),
    one thread unless ``threads`` says more, one process per game: the estimate (:func:`cardtable.solver.estimate.estimate_solve`)
    beside the measured CPU seconds, peak memory and disk. Each run is appended to ``log``
    (JSON lines, with its layers' games and seconds: what ``--fit`` reads).

    With ``keep``, each game is solved into the folder ``keep/N-TIES-OBJECTIVE``, which stays:
    a later run resumes it (see :func:`kept`), and ``upto`` stops each run after that layer.
    A run that ends before the top layer prints its layers (measured beside estimated) and
    writes nothing to ``log``.

    With ``threads`` > 1 the CPU seconds are summed over the threads (so they include what
    running in parallel costs), and each row also gives the wall-clock seconds beside the
    estimate's ``hours(threads)`` (the estimate's linear model); the record keeps ``threads``.

    Each solve's process first solves the reference game of its kind
    (:func:`cardtable.solver.estimate.measure_reference`): its CPU seconds over
    ``estimate.REFERENCE_CPU_S`` is this machine's speed factor now, and the estimate is
    compared with the measured CPU after multiplying by it (the record keeps
    ``reference_cpu_s``; ``--fit`` puts every record on one scale with it)."""
    from cardtable.solver.estimate import machine_factor

    what = "one thread" if threads == 1 else f"{threads} threads"
    print(f"\n## Estimate vs measured: format 2 (compact with carry-over ties), {what}")
    print(
        "| n | ties | objective | matrix games | CPU s | reference CPU s (machine factor) | estimate s "
        "(x factor) | estimate x factor / measured | peak GiB (est.) | disk GiB (est.) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for n in ns:
        for tie in ties:
            for obj in objectives:
                cfg = {"kind": "lean", "cards": n, "ties": tie, "objective": obj, "compact": tie == "carry"}
                if threads > 1:
                    cfg["threads"] = threads
                if keep:
                    cfg.update(folder=os.path.join(keep, f"{n}-{tie}-{obj}"), upto=upto)
                r = run_child(cfg, timeout=6 * 3600)
                if "error" in r:
                    print(f"| {n} | {tie} | {obj} | error: {r['error']} |", flush=True)
                    continue
                if keep:
                    print(
                        f"|   | layers (k: CPU s / estimate s) | {layer_text(r)} | | | | | | | |", flush=True
                    )
                if r.get("upto") is not None:
                    done = sum(c for _, _, c, _ in r["per_layer"])
                    print(
                        f"| {n} | {tie} | {obj} | layers 1-{r['upto']}: {r['games']:,} | {done:.1f} | "
                        f"| {sum(e for *_, e in r['per_layer']):.1f} | (partial: run again to resume) | | |",
                        flush=True,
                    )
                    continue
                e = r["estimate"]
                ref = r["reference_cpu_s"]
                factor = machine_factor(tie, obj, ref) if ref else 1.0  # None: a run measured none
                shown = f"{ref:.2f} ({factor:.2f})" if ref else "none"
                print(
                    f"| {n} | {tie} | {obj} | {r['games']:,} | {r['cpu_s']:.1f} | {shown} | "
                    f"{e['cpu_s']:.1f} ({e['cpu_s'] * factor:.1f}) | {e['cpu_s'] * factor / r['cpu_s']:.2f} | "
                    f"{r['peak_mb'] / 1024:.2f} ({e['memory_gib']:.2f}) | {r['disk_gib']:.3f} ({e['disk_gib']:.3f}) |",
                    flush=True,
                )
                if threads > 1:
                    wall_est = e["cpu_s"] * factor / threads  # SolveNeeds.hours(threads), in seconds
                    print(
                        f"|   |   | wall s on {threads} threads |   | {r['solve_s']:.1f} |   | {wall_est:.1f} | "
                        f"{wall_est / r['solve_s']:.2f} |   |   |",
                        flush=True,
                    )
                with open(log, "a") as f:
                    f.write(
                        json.dumps(
                            {
                                **_without_path(cfg),
                                **r,
                                "cpus": os.cpu_count(),
                                "when": time.strftime("%Y-%m-%d"),
                            }
                        )
                        + "\n"
                    )


def layer_text(r: dict) -> str:
    return ", ".join(f"{k}: {c:.0f} / {e:.0f}" for k, _, c, e in r["per_layer"] if c >= 1 or e >= 1)


def fit(log: str) -> None:
    """Non-negative least-squares prices per (tie rule, objective) from ``--estimates`` runs
    (:data:`cardtable.solver.estimate.GAME_PRICE_NS`'s model: a layer's CPU ns = games x (a +
    b k^2) + chains x c, its terms from :func:`cardtable.solver.estimate.price_terms`), over
    every layer of every run (a layer's seconds scaled so that each run's layers add up to its
    CPU seconds), weighted by 1 / sqrt(ns). Every run is first put on one machine's scale: its
    CPU times the median reference CPU of its kind over its own (``reference_cpu_s``, measured
    in the same process; runs without one are listed and left out). Prints the constants and
    that median; then the reference CPU of the machine the current prices describe as the runs
    infer it (``estimate.REFERENCE_CPU_S``: the median of reference x estimate / measured), the
    current ``estimate_solve`` times each run's machine factor beside the run, and the estimate
    at 13 cards."""
    import numpy as np
    from scipy.optimize import nnls

    from cardtable.goofspiel import Ruleset
    from cardtable.solver.estimate import price_terms
    from cardtable.solver.layers import game_layout
    from cardtable.solver.lean import reachable_games

    logged = [json.loads(x) for x in open(log).read().splitlines() if x.strip()]
    runs = [r for r in logged if r.get("reference_cpu_s")]
    old = [f"{r['cards']} {r['ties']} {r['objective']}" for r in logged if not r.get("reference_cpu_s")]
    if old:
        print(f"Left out, recorded before the reference solves: {', '.join(old)}.")
    print("\n## Fitted prices: a layer's CPU ns = games x (a + b k^2) + chains x c")
    print(
        "| ties | objective | reference CPU s (median) | a (ns) | b (ns) | c (ns) | runs: n, measured s x median / own reference, fitted s |"
    )
    print("|---|---|---:|---:|---:|---:|---|")
    for key in sorted({(r["ties"], r["objective"]) for r in runs}):
        mine = sorted((r for r in runs if (r["ties"], r["objective"]) == key), key=lambda r: r["cards"])
        ref0 = float(np.median([r["reference_cpu_s"] for r in mine]))
        rows, rhs, spans = [], [], []
        for r in mine:
            lay = game_layout(
                Ruleset(cards=r["cards"], tie_rule=r["ties"]), r["objective"], r["ties"] == "carry"
            )
            r["scaled_s"] = r["cpu_s"] * ref0 / r["reference_cpu_s"]  # on the median machine
            scale = r["scaled_s"] / max(1e-9, sum(s for _, _, s in r["layers"]))
            start = len(rows)
            for k, _, s in r["layers"]:
                rows.append(price_terms(lay, k, reachable_games(lay, k)[1]))
                rhs.append(s * scale * 1e9)
            spans.append((start, len(rows)))
        A, y = np.array(rows, dtype=float), np.array(rhs)
        w = 1.0 / np.sqrt(np.maximum(y, 1.0))  # relative errors of the big layers count most
        coef = nnls(A * w[:, None], y * w)[0]  # prices are not negative
        pred = A @ coef * 1e-9
        got = ", ".join(
            f"{r['cards']}: {r['scaled_s']:.1f}, {pred[a:b].sum():.1f}"
            for r, (a, b) in zip(mine, spans, strict=True)
        )
        print(f"| {key[0]} | {key[1]} | {ref0:.2f} | {coef[0]:.1f} | {coef[1]:.2f} | {coef[2]:.1f} | {got} |")
    from cardtable.solver.estimate import estimate_solve, machine_factor

    print(
        "\n## The reference CPU s of the machine the current prices describe, as the runs infer it"
        "\n(each run: its reference CPU s x the current estimate / its measured CPU s; "
        "estimate.REFERENCE_CPU_S takes the median, so that the current prices stay)"
    )
    print("| ties | objective | per run (n: inferred s) | median | estimate.REFERENCE_CPU_S now |")
    print("|---|---|---|---:|---:|")
    from cardtable.solver.estimate import REFERENCE_CPU_S

    for key in sorted({(r["ties"], r["objective"]) for r in runs}):
        mine = sorted((r for r in runs if (r["ties"], r["objective"]) == key), key=lambda r: r["cards"])
        inferred = [
            (
                r["cards"],
                r["reference_cpu_s"]
                * estimate_solve(Ruleset(cards=r["cards"], tie_rule=r["ties"]), r["objective"]).cpu_seconds
                / r["cpu_s"],
            )
            for r in mine
        ]
        per = ", ".join(f"{n}: {x:.2f}" for n, x in inferred)
        print(
            f"| {key[0]} | {key[1]} | {per} | {float(np.median([x for _, x in inferred])):.2f} | "
            f"{REFERENCE_CPU_S[key]:.2f} |"
        )

    print("\n## estimate_solve (the current prices) against the recorded solves")
    print(
        "| n | ties | objective | threads | matrix games solved | measured CPU s | machine factor | estimate s x factor "
        "| estimate x factor / measured | peak memory GiB | estimate GiB | estimate / measured |"
    )
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in sorted(runs, key=lambda r: (r["ties"], r["objective"], r["cards"])):
        e = estimate_solve(Ruleset(cards=r["cards"], tie_rule=r["ties"]), r["objective"])
        factor = machine_factor(r["ties"], r["objective"], r["reference_cpu_s"])
        est, mem, peak = e.cpu_seconds * factor, e.memory_bytes / 2**30, r["peak_mb"] / 1024
        print(
            f"| {r['cards']} | {r['ties']} | {r['objective']} | {r.get('threads', 1)} | {r['games']:,} | "
            f"{r['cpu_s']:.1f} | {factor:.2f} | {est:.1f} | {est / r['cpu_s']:.2f} | {peak:.2f} | {mem:.2f} | "
            f"{mem / peak:.2f} |"
        )
    from cardtable.solver.estimate import size_text

    print("\n## estimate_solve at 13 cards (format 2, compact with carry-over ties)")
    print("| ties | objective | matrix games | CPU hours, 1 core | memory | disk |")
    print("|---|---|---:|---:|---:|---:|")
    for tie in ("carry", "discard"):
        for obj in ("points", "win"):
            e = estimate_solve(Ruleset(cards=13, tie_rule=tie), obj)
            print(
                f"| {tie} | {obj} | {e.games:.3g} | {e.hours():.2f} | {size_text(e.memory_bytes)} | "
                f"{size_text(e.disk_bytes)} |"
            )


def backends(n: int, workers: list[int], cuda: bool) -> None:
    """One lean solve per backend (threads 1, Ray with each worker count, CUDA)."""
    print(f"\n## Backends, carry-over n = {n}, points (byte-identical tables: tests/solver/test_backends.py)")
    print("| backend | solve s | matrix games/s | speed-up vs 1 thread | game value |")
    print("|---|---|---|---|---|")
    runs = [("threads 1", {"backend": "threads", "threads": 1})]
    runs += [(f"ray {w} workers", {"backend": "ray", "workers": w}) for w in workers]
    if cuda:
        runs.append(("cuda", {"backend": "cuda"}))
    ref = None
    for name, extra in runs:
        r = run_child(dict(kind="lean", cards=n, ties="carry", objective="points", **extra), timeout=6 * 3600)
        if "error" in r:
            print(f"| {name} | error: {r['error']} | | | |", flush=True)
            continue
        ref = ref or r
        print(
            f"| {name} | {r['solve_s']:.1f} | {r['games'] / r['solve_s']:.3g} | "
            f"{ref['solve_s'] / r['solve_s']:.2f} | {r['value']:+.1e} |",
            flush=True,
        )


def cfr(n: int, cap: float) -> dict:
    import pyspiel

    game = pyspiel.convert_to_turn_based(
        pyspiel.load_game(
            "goofspiel",
            {"num_cards": n, "points_order": "random", "returns_type": "point_difference", "imp_info": False},
        )
    )
    solver = pyspiel.CFRPlusSolver(game)
    spent = 0.0
    it = 0
    check = 1
    conv = float("inf")
    while spent < cap:
        t = time.perf_counter()
        solver.evaluate_and_update_policy()
        spent += time.perf_counter() - t
        it += 1
        if it >= check:
            conv = pyspiel.nash_conv(game, solver.average_policy())
            check = int(check * 1.6) + 1  # NashConv of n = 5 costs tens of seconds
            if conv <= 1e-3:
                break
    return {"iterations": it, "seconds": spent, "nash_conv": conv, "reached": conv <= 1e-3}


def versus(n: int, ties: str, games: int, opponents: list[str]) -> None:
    """nash vs other bots: mean point difference with a 95% normal confidence interval."""
    import math

    from cardtable.goofspiel import Ruleset
    from cardtable.goofspiel.autoplay import play_game
    from cardtable.platform.bot import load_bot

    rs = Ruleset(cards=n, tie_rule=ties)
    print(f"\n## nash vs bots, {n} cards, {ties} ties, {games} games each (seats alternate, seeds ci-0..)")
    print(
        "| opponent | games | nash mean point difference (95% CI) | nash wins | draws | losses | nash source | s |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for opp in opponents:
        t = time.perf_counter()
        nash, other = load_bot("goofspiel", "nash", seed=1), load_bot("goofspiel", opp, seed=2)
        diffs = []
        for g in range(games):
            seat = g % 2
            game = play_game(rs, [nash, other] if seat == 0 else [other, nash], seed=f"ci-{g}")
            diffs.append(game.points[seat] - game.points[1 - seat])
        m = sum(diffs) / games
        h = 1.96 * math.sqrt(sum((x - m) ** 2 for x in diffs) / (games - 1) / games)
        w, d = sum(x > 0 for x in diffs) / games, sum(x == 0 for x in diffs) / games
        print(
            f"| {opp} | {games} | {m:+.2f} ({m - h:+.2f} .. {m + h:+.2f}) | {w:.3f} | {d:.3f} | "
            f"{1 - w - d:.3f} | {nash.last_source} | {time.perf_counter() - t:.0f} |",
            flush=True,
        )


def run_child(config: dict, env: dict | None = None, timeout: float = 3600) -> dict:
    cmd = [sys.executable, __file__, "--child", json.dumps(config)]
    t = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1] if out.stderr else "failed"}
    res = json.loads(out.stdout.strip().splitlines()[-1])
    res["process_s"] = time.perf_counter() - t
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--max-cards", type=int, default=10, help="largest n for discard/points")
    ap.add_argument("--carry-max", type=int, default=8, help="largest n for carry-over/points")
    ap.add_argument("--win-max", type=int, default=9, help="largest n for the win objective (discard)")
    ap.add_argument("--cfr-cards", default="4,5", help="n for the OpenSpiel CFR+ reference ('' = none)")
    ap.add_argument("--cfr-seconds", type=float, default=60.0, help="cap per CFR+ run")
    ap.add_argument("--only", help="one configuration n:ties:objective")
    ap.add_argument(
        "--versus",
        help="n:ties:games -- only play nash against random, matcher, "
        "heuristic (uses the solved table in the cache folder when present)",
    )
    ap.add_argument("--layouts", help="carry-over n list (e.g. 9,10,11): format 1 vs format 2 only")
    ap.add_argument("--threads", type=int, default=1, help="threads for --layouts and --estimates")
    ap.add_argument("--no-format1", action="store_true", help="with --layouts: format 2 only")
    ap.add_argument("--no-cold", action="store_true", help="with --layouts: no cold-kernel row")
    ap.add_argument("--backends", type=int, help="carry-over n: threads vs Ray (1 and 2 workers) [vs CUDA]")
    ap.add_argument(
        "--estimates",
        help="n list (e.g. 10,11,12): estimate vs measured, format 2, one thread (or --threads)",
    )
    ap.add_argument("--ties", default="carry,discard", help="with --estimates")
    ap.add_argument("--objectives", default="points,win", help="with --estimates")
    ap.add_argument(
        "--log", default="bench/results/estimates.jsonl", help="with --estimates: runs appended here"
    )
    ap.add_argument(
        "--keep",
        help="with --estimates: solve into FOLDER/N-TIES-OBJECTIVE and keep it, so that the same "
        "command resumes a solve longer than one sitting (CPU summed over the layers' own runs)",
    )
    ap.add_argument("--upto", type=int, help="with --keep: stop each solve after this layer")
    ap.add_argument("--fit", help="a JSON-lines log of --estimates runs: fit the per-game prices")
    ap.add_argument(
        "--cuda", action="store_true", help="with --backends: also the CUDA backend (needs a GPU)"
    )
    args = ap.parse_args()
    if args.layouts:
        layouts(
            [int(x) for x in args.layouts.split(",")], args.threads, not args.no_format1, not args.no_cold
        )
        return
    if args.backends:
        backends(args.backends, [1, 2], args.cuda)
        return
    if args.estimates:
        ns = [int(x) for x in args.estimates.split(",")]
        if args.upto and not args.keep:
            ap.error("--upto needs --keep")
        estimates(
            ns, args.ties.split(","), args.objectives.split(","), args.log, args.keep, args.upto, args.threads
        )
        return
    if args.fit:
        fit(args.fit)
        return
    if args.child:
        print(json.dumps(child(json.loads(args.child))))
        return
    if args.versus:
        n, ties, games = args.versus.split(":")
        versus(int(n), ties, int(games), ["random", "matcher", "heuristic"])
        return

    print(f"# cardtable solver benchmark, {os.cpu_count()} CPUs, Python {sys.version.split()[0]}")
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, NUMBA_CACHE_DIR=tmp)
        cold = run_child({"kind": "compile"}, env)
        warm = run_child({"kind": "compile"}, env)
    print("\n## One-time Numba compilation (3-card carry-over win solve + one strategy query)")
    print("| cache | import s | first solve s |")
    print("|---|---|---|")
    for name, r in (("empty (compiles)", cold), ("warm (loads)", warm)):
        if "error" in r:
            print(f"| {name} | error: {r['error']} | |")
        else:
            print(f"| {name} | {r['import_s']:.2f} | {r['first_solve_s']:.2f} |")

    configs = []
    if args.only:
        n, ties, obj = args.only.split(":")
        configs.append((int(n), ties, obj))
    else:
        configs += [(n, "discard", "points") for n in range(4, args.max_cards + 1)]
        configs += [(n, "carry", "points") for n in range(4, min(args.carry_max, args.max_cards) + 1)]
        configs += [(n, "discard", "win") for n in range(4, min(args.win_max, args.max_cards) + 1)]
    print("\n## Exact solves (one process each; positions and games after the player-swap symmetry)")
    print(
        "| n | ties | objective | positions | matrix games | layout s | solve s | us/game | peak MB | value | max gap |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    ours = {}
    for n, ties, obj in configs:
        r = run_child({"kind": "solve", "cards": n, "ties": ties, "objective": obj})
        if "error" in r:
            print(f"| {n} | {ties} | {obj} | error: {r['error']} |")
            continue
        ours[(n, ties, obj)] = r
        us = 1e6 * r["solve_s"] / max(1, r["games"])
        print(
            f"| {n} | {ties} | {obj} | {r['positions']:,} | {r['games']:,} | {r['layout_s']:.2f} | "
            f"{r['solve_s']:.3f} | {us:.2f} | {r['peak_mb']:.0f} | {r['value']:+.1e} | {r['max_gap']:.1e} |",
            flush=True,
        )

    cfr_cards = [int(x) for x in args.cfr_cards.split(",") if x.strip()]
    if cfr_cards:
        print(
            f"\n## Reference: OpenSpiel CFR+ (C++) on the discard game, until NashConv <= 1e-3 (cap {args.cfr_seconds:g} s)"
        )
        print("| n | CFR+ iterations | CFR+ s | NashConv reached | ours: exact solve s |")
        print("|---|---|---|---|---|")
        for n in cfr_cards:
            r = run_child({"kind": "cfr", "cards": n, "seconds": args.cfr_seconds})
            mine = ours.get((n, "discard", "points"))
            mine_s = f"{mine['solve_s']:.4f}" if mine else "-"
            if "error" in r:
                print(f"| {n} | error: {r['error']} | | | {mine_s} |")
                continue
            flag = "" if r["reached"] else " (cap hit)"
            print(
                f"| {n} | {r['iterations']} | {r['seconds']:.1f}{flag} | {r['nash_conv']:.1e} | {mine_s} |",
                flush=True,
            )


if __name__ == "__main__":
    # a SIGTERM (kill, a session's end) becomes SystemExit, and subprocess.run then kills the
    # running child: without this the child solve went on alone, writing into a kept folder
    # that a restarted run was writing too
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    main()
