#!/usr/bin/env python3
"""Per case, the project's and CuPy's GPU time, host time per call and peak device memory, with
their ratios (the columns that the shared compare.py does not print: it reads the same records
and ignores `host_ms` and `peak_bytes`).

  python3 benches/compare_extra.py cusci.jsonl cupy.jsonl [more-cupy.jsonl ...] [--filter SUBSTR]

Inputs: one JSON object per line, {"case", "impl", "median_ms", "host_ms", "peak_bytes", ...}
(the project's from `cargo bench --bench suite -- --json`, CuPy's from benches/cupy_extra.py;
cupy_ref.py's records have no host_ms or peak_bytes and show '-' there). Later files override
earlier ones for the same case. A record with "error" has no numbers.

Every ratio is CuPy's figure / the project's, so above 1 the project is ahead (faster, or less
memory): 'gpu x' of the GPU medians, 'host x' of the host medians, 'mem x' of the peaks. The
goals of issue 34: gpu x >= 1 on every case, host x >= 5 on the small.* and odd.* cases, and
mem x >= 1 (the project's peak no larger than CuPy's pool).
"""
import json, math, sys

MIB = float(1 << 20)


def load(paths):
    recs = {}
    for path in paths:
        try:
            with open(path) as f:
                for line in f:
                    line = line.strip()
                    if line:
                        r = json.loads(line)
                        recs[r["case"]] = r
        except FileNotFoundError:
            print(f"# note: {path} not found", file=sys.stderr)
    return recs


def num(rec, key):
    """A positive number of the record, or None."""
    if not rec:
        return None
    v = rec.get(key)
    return v if isinstance(v, (int, float)) and v > 0 else None


def ratio(ref, ours):
    return ref / ours if ref and ours else None


def fmt(v, width, prec):
    return f"{v:{width}.{prec}f}" if v is not None else f"{'-':>{width}s}"


def geomean(v):
    v = [x for x in v if x]
    return math.exp(sum(map(math.log, v)) / len(v)) if v else None


def main(argv):
    filt = ""
    args = []
    it = iter(argv)
    for a in it:
        if a == "--filter":
            filt = next(it, "")
        elif a.startswith("--filter="):
            filt = a[len("--filter="):]
        elif a in ("-h", "--help"):
            sys.exit(__doc__)
        else:
            args.append(a)
    if len(args) < 2:
        sys.exit(__doc__)
    ours, ref = load(args[:1]), load(args[1:])
    names = sorted(n for n in set(ours) | set(ref) if filt in n)
    head = (f"{'case':42s} {'cusci ms':>9s} {'cupy ms':>9s} {'gpu x':>6s}  {'cusci host':>10s} "
            f"{'cupy host':>9s} {'host x':>6s}  {'cusci MiB':>9s} {'cupy MiB':>9s} {'mem x':>6s}")
    print(head)
    cols = {"gpu": [], "host": [], "mem": []}
    slower, host_short, more_mem, failed = [], [], [], []
    for n in names:
        o, r = ours.get(n), ref.get(n)
        og, rg = num(o, "median_ms"), num(r, "median_ms")
        oh, rh = num(o, "host_ms"), num(r, "host_ms")
        op, rp = num(o, "peak_bytes"), num(r, "peak_bytes")
        gx, hx, mx = ratio(rg, og), ratio(rh, oh), ratio(rp, op)
        cols["gpu"].append(gx); cols["host"].append(hx); cols["mem"].append(mx)
        if gx is not None and gx < 1.0:
            slower.append(n)
        if hx is not None and hx < 5.0 and n.startswith(("small.", "odd.")):
            host_short.append(n)
        if mx is not None and mx < 1.0:
            more_mem.append(f"{n} ({op / MIB:.2f} MiB against {rp / MIB:.2f})")
        for rec, who in ((o, "cusci"), (r, "cupy")):
            if rec and "error" in rec:
                failed.append(f"{n} ({who}): {rec['error']}")
        print(f"{n:42s} {fmt(og, 9, 3)} {fmt(rg, 9, 3)} {fmt(gx, 6, 2)}  {fmt(oh, 10, 4)} "
              f"{fmt(rh, 9, 4)} {fmt(hx, 6, 2)}  {fmt(op and op / MIB, 9, 2)} "
              f"{fmt(rp and rp / MIB, 9, 2)} {fmt(mx, 6, 2)}")
    print()
    for key, what in (("gpu", "GPU time"), ("host", "host time"), ("mem", "peak memory")):
        g = geomean(cols[key])
        k = sum(1 for x in cols[key] if x)
        if g:
            print(f"geometric mean of CuPy / cusci, {what}, over {k} cases: {g:.3f}")
    print(f"cases where the GPU time is above CuPy's: {len(slower)}" + (": " + ", ".join(slower) if slower else ""))
    print(f"small/odd cases where the host time is above 1/5 of CuPy's: {len(host_short)}"
          + (": " + ", ".join(host_short) if host_short else ""))
    print(f"cases whose peak memory is above CuPy's: {len(more_mem)}" + (": " + ", ".join(more_mem) if more_mem else ""))
    if failed:
        print("records that failed:\n  " + "\n  ".join(failed))


if __name__ == "__main__":
    main(sys.argv[1:])
