#!/usr/bin/env python3
"""Per-thread CPU of Java processes over time, from samples of /proc/<pid>/task/<tid>/stat.

Input lines: "<epoch seconds> <pid> <the task's stat line>", written by bench/cluster-threads.sh.
Threads are grouped by process and by name with digits folded (shale-io-4-1 -> shale-io-#-#).

  thread_cpu.py SAMPLES summary FROM_S [PID=NAME ...]         share of a core per group, from FROM_S seconds on
  thread_cpu.py SAMPLES timeline STEP GROUPS [PID=NAME ...]   every STEP samples: the top GROUPS groups and all
"""
import collections, re, sys

def load(path):
    samples = collections.OrderedDict()  # time -> {(pid, tid): (name, ticks)}
    for line in open(path):
        m = re.match(r"(\S+) (\d+) (\d+) \((.*)\) (.*)", line)
        if not m:
            continue
        ts, pid, tid, name, rest = m.groups()
        fields = rest.split()
        samples.setdefault(float(ts), {})[(pid, tid)] = (name, int(fields[11]) + int(fields[12]))  # utime + stime
    return samples

def group(pid, name, names):
    return f"{names.get(pid, pid)}:{re.sub(r'[0-9]+', '#', name)}"

def usage(a, b, names):
    """Share of a core per group between samples a and b."""
    (ta, sa), (tb, sb) = a, b
    out = collections.Counter()
    for key, (name, ticks) in sb.items():
        if key in sa:
            out[group(key[0], name, names)] += (ticks - sa[key][1]) / TICKS / (tb - ta)
    return out

TICKS = 100  # CLK_TCK on Linux
path, mode = sys.argv[1], sys.argv[2]
samples = list(load(path).items())
names = dict(arg.split("=", 1) for arg in sys.argv[(4 if mode == "summary" else 5):])
t0 = samples[0][0]
if mode == "summary":
    start = next(s for s in samples if s[0] - t0 >= float(sys.argv[3]))
    total = usage(start, samples[-1], names)
    for g, share in total.most_common(25):
        print(f"{g:45} {100 * share:6.1f}%")
    print(f"{'all threads':45} {100 * sum(total.values()):6.1f}%  over {samples[-1][0] - start[0]:.1f} s")
else:
    step, top = int(sys.argv[3]), int(sys.argv[4])
    windows = [(samples[i - step], samples[i]) for i in range(step, len(samples), step)]
    overall = collections.Counter()
    for a, b in windows:
        overall.update(usage(a, b, names))
    groups = [g for g, _ in overall.most_common(top)]
    print("   t s " + " ".join(f"{g[:18]:>18}" for g in groups) + "      all")
    for a, b in windows:
        u = usage(a, b, names)
        print(f"{b[0] - t0:6.1f} " + " ".join(f"{100 * u[g]:17.0f}%" for g in groups) + f" {100 * sum(u.values()):7.0f}%")
