"""Prints, every second for SECONDS, the CPU each Shale process of a bench used in that second,
as a percentage of one core: nodes by their data directory (.../cluster/n<i>: "n<i>"), the load
generator ("gen"). Read from /proc/<pid>/stat (user + system time), so it costs nothing to them.

    python3 bench/lib/cpu-per-process.py SECONDS > cpu.txt
"""
import os
import re
import sys
import time

TICKS = os.sysconf("SC_CLK_TCK")


def name_of(cmdline):
    for i, arg in enumerate(cmdline[:-1]):
        if arg == b"--data":
            node = re.search(rb"cluster/(n\d+)", cmdline[i + 1])
            return node.group(1).decode() if node else None
    if b"load" in cmdline and b"--rate" in cmdline:
        return "gen"
    return None


def sample():
    ticks = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
            stat = open(f"/proc/{pid}/stat").read()
        except OSError:  # ended meanwhile
            continue
        name = name_of(cmdline)
        if name:
            fields = stat.rsplit(")", 1)[1].split()  # after the command, which may hold spaces
            ticks[name] = int(fields[11]) + int(fields[12])  # utime, stime
    return ticks


end = time.time() + float(sys.argv[1])
before = sample()
while time.time() < end:
    time.sleep(1)
    now = sample()
    used = {k: 100 * (now[k] - before[k]) / TICKS for k in sorted(now) if k in before}
    total = sum(used.values())
    print(time.strftime("%H:%M:%S"), " ".join(f"{k}={v:.0f}%" for k, v in used.items()), f"total={total:.0f}%", flush=True)
    before = now
