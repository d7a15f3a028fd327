#!/usr/bin/python3
"""Big inputs in the stack formats other tools collapse, for bench/stack_formats.sh.

  stack_formats_gen.py dtrace OUT [stacks]   DTrace ustack() aggregation (default 100,000 stacks, ~70 MB)
  stack_formats_gen.py stap OUT [stacks]     SystemTap print_stack() aggregation
  stack_formats_gen.py austin OUT [lines]    Austin 3 output with its headers (default 250,000 lines, ~155 MB)

Deterministic (seeded): the same arguments give the same bytes.
"""
import random
import sys

FUNCS = [f"{ns}::{name}" for ns in ("net", "db", "json", "core", "io") for name in
         ("read", "write", "parse", "dispatch", "encode", "lookup", "hash", "flush", "poll", "wait")]
MODS = ["app", "libc.so.1", "libssl.so.3", "unix", "genunix", "libjvm.so"]


def dtrace(out, stacks):
    rnd = random.Random(1)
    out.write("CPU     ID                    FUNCTION:NAME\n  3  80544                        :tick-60s\n\n")
    for _ in range(stacks):
        depth = rnd.randint(4, 30)
        lines = []
        for i in range(depth):
            f = rnd.choice(FUNCS)
            kind = rnd.randrange(10)
            if kind == 0:
                lines.append(f"0xffffff{rnd.randrange(1 << 24):07x}")
            elif kind == 1:
                lines.append(f"app`{f}(unsigned long, char const*)+0x{rnd.randrange(4000):x}")
            else:
                lines.append(f"{rnd.choice(MODS)}`{f}+0x{rnd.randrange(4000):x}")
        out.write("".join(f"              {l}\n" for l in lines))
        out.write(f"{rnd.randint(1, 500):>16}\n\n")


def stap(out, stacks):
    rnd = random.Random(2)
    for _ in range(stacks):
        for i in range(rnd.randint(4, 30)):
            out.write(f" 0x{0xffffffff81000000 + rnd.randrange(1 << 20):016x} : {rnd.choice(FUNCS)}+0x{rnd.randrange(200):x}/0x{200 + rnd.randrange(300):x} [kernel]\n")
        out.write(f"\t{rnd.randint(1, 500)}\n")


def austin(out, lines):
    rnd = random.Random(3)
    out.write("# austin: 3.7.0\n# interval: 100\n# mode: wall\n# python: 3.11.4\n\n")
    files = [f"/srv/app/{m}.py" for m in ("main", "model", "data", "train", "util", "io")]
    for _ in range(lines):
        tid = rnd.randrange(4)
        frames = [f"P4242;T{tid}:{4242 + tid}"]
        for d in range(rnd.randint(3, 40)):
            frames.append(f"{rnd.choice(files)}:{rnd.choice(FUNCS).split('::')[1]}_{d % 7}:{10 + d}")
        out.write(";".join(frames) + f" {rnd.randint(100, 5000)}\n")
    out.write("\n# duration: 123456789\n# saturation: 0/1000000\n")


if __name__ == "__main__":
    kind, path = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else {"dtrace": 100_000, "stap": 100_000, "austin": 250_000}[kind]
    with open(path, "w") as f:
        {"dtrace": dtrace, "stap": stap, "austin": austin}[kind](f, n)
