#!/usr/bin/env python3
"""Medians of several `./shale bench engine --json` reports, per engine and workload, as a
Markdown table with the shale/rocksdb ratios. Usage: median.py run1.json run2.json ..."""
import json
import statistics
import sys

FIELDS = ["ops_per_sec", "p50_us", "p99_us", "p999_us", "write_amp", "space_bytes"]


def main(paths):
    runs = [json.load(open(p)) for p in paths]
    rows = {}
    order = []
    for run in runs:
        for r in run:
            key = (r["workload"], r["engine"])
            if key not in rows:
                rows[key] = []
                order.append(key)
            rows[key].append(r)
    med = {}
    print(f"Medians of {len(runs)} runs.\n")
    print("| workload | engine | ops/s | p50 us | p99 us | p99.9 us | w-amp | space MiB |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for key in order:
        ok = [r for r in rows[key] if r["status"] == "ok"]
        if not ok:
            print(f"| {key[0]} | {key[1]} | {rows[key][0]['status']} | | | | | |")
            continue
        m = {f: median([r[f] for r in ok]) for f in FIELDS}
        med[key] = m
        print(f"| {key[0]} | {key[1]} | {fmt(m['ops_per_sec'], 0)} | {fmt(m['p50_us'])} | {fmt(m['p99_us'])} "
              f"| {fmt(m['p999_us'])} | {fmt(m['write_amp'])} | {fmt(m['space_bytes'] / 2**20, 1)} |")
    print("\nRatios shale/rocksdb of the medians (ops/s above 1: Shale ahead; latency, w-amp, space below 1: Shale ahead).\n")
    print("| workload | ops/s | p50 | p99 | p99.9 | w-amp | space |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for workload in dict.fromkeys(k[0] for k in order):
        s, r = med.get((workload, "shale")), med.get((workload, "rocksdb"))
        if not s or not r:
            print(f"| {workload} | {'shale unsupported' if not s else 'rocksdb missing'} | | | | | |")
            continue
        print("| " + workload + " | " + " | ".join(ratio(s[f], r[f]) for f in FIELDS) + " |")


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def fmt(v, digits=2):
    return "-" if v is None else f"{v:.{digits}f}"


def ratio(a, b):
    return "-" if a is None or b in (None, 0) else f"{a / b:.2f}"


if __name__ == "__main__":
    main(sys.argv[1:])
