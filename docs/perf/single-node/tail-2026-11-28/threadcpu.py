#!/usr/bin/env python3
"""CPU seconds per thread group of a process over a command's run: threadcpu.py PID -- COMMAND..."""
import os, re, subprocess, sys, collections
pid = sys.argv[1]; cmd = sys.argv[3:]
tick = os.sysconf('SC_CLK_TCK')
def snap():
    out = {}
    for t in os.listdir(f'/proc/{pid}/task'):
        try:
            stat = open(f'/proc/{pid}/task/{t}/stat').read()
            name = stat[stat.index('(') + 1:stat.rindex(')')]
            f = stat[stat.rindex(')') + 2:].split()
            out[t] = (name, int(f[11]) + int(f[12]))
        except FileNotFoundError:
            pass
    return out
def group(name):
    name = re.sub(r'[-#]?\d+$', '', name)
    for p in ('ZWorker', 'ZDirector', 'ZDriver', 'ZUnmapper', 'C2 Compiler', 'C1 Compiler'):
        if name.startswith(p): return p
    return name
a = snap(); subprocess.run(cmd, stdout=subprocess.DEVNULL); b = snap()
g = collections.Counter()
for t, (name, ticks) in b.items():
    g[group(name)] += ticks - a.get(t, (name, 0))[1]
total = sum(g.values())
print(f'total {total / tick:.2f} s CPU')
for k, v in g.most_common(15):
    if v: print(f'{100 * v / total:5.1f}% {v / tick:7.2f} s {k}')
