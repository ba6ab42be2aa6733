#!/usr/bin/env python3
"""The batch-pipeline benchmark of issue 29: the two example pipelines of `examples/pipelines/`
over many files, as `cusci run` on the GPU and on the CPU, and as the same chain written the way a
user would in CuPy and in SciPy (a plain loop: read a file, run the chain, write the results).

    python3 benches/pipeline_bench.py --cusci target/release/cusci [--files 2000] [--work DIR]

Data: `cusci generate` writes FILES recordings of 16 channels x 1 s at 8 kHz (16-bit WAV) and
FILES 1024 x 1024 16-bit TIFF images (the examples' generators at a larger size). The pipelines
are the examples' stages with their table outputs (peaks, per-object measurements as CSV/JSON);
the per-pixel arrays and plots are left out of every runner alike, so that the disk does not set
the pace. Every runner reads the same files, which the generator has just written, so they come
from the page cache.

Runners (files/s over the wall time of the whole run, start-up and plan included):
  cusci gpu        `cusci run --device gpu` (2 streams, 8 reader threads), every file
  cusci gpu 1s     the same with `--streams 1` (no overlap between batches)
  cupy loop        one file at a time through cupyx.scipy, every file (a warm-up file first), or
                   as many as --loop-seconds (60) allow
  cusci cpu        `cusci run --device cpu`, the first 100 files
  scipy loop       one file at a time through scipy, the first 100 files
GPU busy: nvidia-smi's utilization.gpu (the share of each sample period in which a kernel ran),
sampled every 100 ms during the cusci gpu run, averaged over the samples of the run.
Each runner's tables are checked against cusci's CPU tables (row counts) on the shared files.
"""
import argparse
import csv
import glob
import json
import os
import shutil
import struct
import subprocess
import sys
import threading
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SUBSET = {"audio": "rec0[0-9][0-9].wav", "microscopy": "cells0[0-9][0-9].tif"}


def bench_toml(name, work, subset):
    """The example's TOML with its table outputs only, its glob on `work`'s data (or a subset)."""
    text = open(os.path.join(ROOT, "examples", "pipelines", f"{name}.toml")).read()
    head, *outs = text.split("\n[[output]]")
    keep = [o for o in outs if 'format = "csv"' in o or 'format = "json"' in o]
    pattern = SUBSET[name] if subset else ("*.wav" if name == "audio" else "*.tif")
    head = head.replace(
        f'glob = "data/{name}/*.{"wav" if name == "audio" else "tif"}"',
        f'glob = "data/{name}/{pattern}"',
    )
    path = os.path.join(work, f"{name}{'_subset' if subset else ''}.toml")
    with open(path, "w") as f:
        f.write(head + "".join("\n[[output]]" + o for o in keep) + "\n")
    return path


def files_of(work, name, subset):
    pat = SUBSET[name] if subset else ("*.wav" if name == "audio" else "*.tif")
    return sorted(glob.glob(os.path.join(work, "data", name, pat)))


# ---------- readers for the plain loops ----------


def read_wav(path):
    from scipy.io import wavfile

    _, x = wavfile.read(path)
    return (x.T / 32768.0).astype(np.float32)


def read_tiff(path):
    """An uncompressed little-endian 16-bit grey TIFF (what `cusci generate` writes)."""
    b = open(path, "rb").read()
    if b[:2] != b"II":
        raise ValueError(f"{path}: not a little-endian TIFF")
    (ifd,) = struct.unpack_from("<I", b, 4)
    (count,) = struct.unpack_from("<H", b, ifd)
    tags = {}
    for k in range(count):
        tag, typ, n, val = struct.unpack_from("<HHII", b, ifd + 2 + 12 * k)
        fmt, size = ("H", 2) if typ == 3 else ("I", 4)
        at = ifd + 10 + 12 * k if n * size <= 4 else val
        tags[tag] = struct.unpack_from(f"<{n}{fmt}", b, at)
    w, h = tags[256][0], tags[257][0]
    data = b"".join(b[o : o + c] for o, c in zip(tags[273], tags[279]))
    return np.frombuffer(data, dtype="<u2").reshape(h, w).astype(np.float32)


def write_rows(path, header, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)


# ---------- the chains, written the way a user would ----------


def audio_chain(xp, sig, sos, x, stem, out):
    x = xp.asarray(x)
    band = sig.sosfiltfilt(sos, x, axis=-1)
    env = xp.abs(sig.hilbert(band, axis=-1))
    env1k = sig.decimate(env, 8, axis=-1)
    sig.spectrogram(band, fs=8000.0, nperseg=256, noverlap=128)
    sig.welch(band, fs=8000.0, nperseg=512)
    rows = []
    for ch in range(env1k.shape[0]):
        p, props = sig.find_peaks(env1k[ch], height=0.05, distance=60)
        p = p.get() if hasattr(p, "get") else p
        hts = props["peak_heights"]
        hts = hts.get() if hasattr(hts, "get") else hts
        rows += [(ch, int(i), i / 1000.0, float(v)) for i, v in zip(p, hts)]
    write_rows(os.path.join(out, f"{stem}.impacts.csv"), ["channel", "index", "time", "height"], rows)
    with open(os.path.join(out, f"{stem}.impacts.json"), "w") as f:
        json.dump({"rows": rows}, f)
    return len(rows)


def micro_chain(xp, ndi, img, stem, out):
    g = xp.asarray(img)
    den = ndi.median_filter(g, size=3)
    sm = ndi.gaussian_filter(den, sigma=1.0)
    mask = sm > 1800.0
    lab, n = ndi.label(mask)
    n = int(n)
    idx = xp.arange(1, n + 1)
    s = ndi.sum(den, lab, idx)
    m = ndi.mean(den, lab, idx)
    com = ndi.center_of_mass(sm, lab, idx)
    ndi.distance_transform_edt(mask)
    s = s.get() if hasattr(s, "get") else np.asarray(s)
    m = m.get() if hasattr(m, "get") else np.asarray(m)
    com = [[float(c.get()) if hasattr(c, "get") else float(c) for c in p] for p in com]
    write_rows(os.path.join(out, f"{stem}.sum.csv"), ["label", "sum"], [(k + 1, float(v)) for k, v in enumerate(s)])
    write_rows(os.path.join(out, f"{stem}.mean.csv"), ["label", "mean"], [(k + 1, float(v)) for k, v in enumerate(m)])
    with open(os.path.join(out, f"{stem}.center_of_mass.json"), "w") as f:
        json.dump({"rows": com}, f)
    return n


def plain_loop(kind, name, files, out, max_s):
    """One file at a time, after one warm-up file, until the files or `max_s` seconds run out;
    returns (files done, seconds, {stem: rows or objects})."""
    if kind == "cupy":
        import cupy as xp
        import cupyx.scipy.ndimage as ndi
        import cupyx.scipy.signal as sig
    else:
        import numpy as xp
        import scipy.ndimage as ndi
        import scipy.signal as sig
    import scipy.signal as host_sig

    os.makedirs(out, exist_ok=True)
    sos = host_sig.butter(4, [700.0, 1300.0], btype="bandpass", fs=8000.0, output="sos")
    sos = xp.asarray(sos)
    counts = {}

    def one(f, dest):
        stem = os.path.splitext(os.path.basename(f))[0]
        if name == "audio":
            return stem, audio_chain(xp, sig, sos, read_wav(f), stem, dest)
        return stem, micro_chain(xp, ndi, read_tiff(f), stem, dest)

    warm = os.path.join(out, "warm")
    os.makedirs(warm, exist_ok=True)
    one(files[0], warm)
    if kind == "cupy":
        xp.cuda.Device().synchronize()
    t = time.perf_counter()
    for f in files:
        stem, c = one(f, out)
        counts[stem] = c
        if time.perf_counter() - t > max_s:
            break
    if kind == "cupy":
        xp.cuda.Device().synchronize()
    return len(counts), time.perf_counter() - t, counts


class GpuSampler:
    """nvidia-smi's utilization.gpu every 100 ms, in a thread."""

    def __init__(self):
        self.samples, self.proc = [], None

    def __enter__(self):
        try:
            self.proc = subprocess.Popen(
                ["nvidia-smi", "--query-gpu=utilization.gpu", "--format=csv,noheader,nounits", "-lms", "100", "-i", "0"],
                stdout=subprocess.PIPE, text=True,
            )
            self.thread = threading.Thread(target=self._read, daemon=True)
            self.thread.start()
        except OSError:
            self.proc = None
        return self

    def _read(self):
        for line in self.proc.stdout:
            try:
                self.samples.append(float(line.strip()))
            except ValueError:
                pass

    def __exit__(self, *a):
        if self.proc:
            self.proc.terminate()
            self.proc.wait()

    def busy(self):
        return sum(self.samples) / len(self.samples) if self.samples else float("nan")


def cusci_run(exe, toml, out, device, extra=()):
    shutil.rmtree(out, ignore_errors=True)
    cmd = [exe, "run", toml, "--device", device, "--out", out, "--quiet", "--jobs", "8", *extra]
    t = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True)
    dt = time.perf_counter() - t
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
    return dt, r.stdout


def csv_counts(out, name):
    """{stem: rows} of cusci's tables (peaks per file; objects per file)."""
    suffix = ".impacts.csv" if name == "audio" else ".sum.csv"
    res = {}
    for p in glob.glob(os.path.join(out, "*" + suffix)):
        with open(p) as f:
            res[os.path.basename(p)[: -len(suffix)]] = max(sum(1 for _ in f) - 1, 0)
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cusci", required=True, help="the cusci executable (release)")
    ap.add_argument("--files", type=int, default=2000)
    ap.add_argument("--work", default="/tmp/cusci-pipeline-bench")
    ap.add_argument("--json", help="write the records here")
    ap.add_argument("--only", choices=["audio", "microscopy"])
    ap.add_argument("--no-gpu", action="store_true", help="the CPU runners only (a smoke test)")
    ap.add_argument("--side", type=int, default=1024, help="the images' side")
    ap.add_argument("--channels", type=int, default=16, help="the recordings' channels")
    ap.add_argument("--loop-seconds", type=float, default=60.0,
                    help="a plain loop stops after this long; its rate is over the files it did")
    a = ap.parse_args()
    exe = os.path.abspath(a.cusci)
    os.makedirs(a.work, exist_ok=True)
    records = []
    for name in ["audio", "microscopy"]:
        if a.only and name != a.only:
            continue
        data = os.path.join(a.work, "data", name)
        t = time.perf_counter()
        shutil.rmtree(data, ignore_errors=True)
        size = ["--channels", str(a.channels)] if name == "audio" else ["--side", str(a.side)]
        subprocess.run([exe, "generate", name, data, "--files", str(a.files), *size], check=True, capture_output=True)
        n_bytes = sum(os.path.getsize(f) for f in files_of(a.work, name, False))
        print(f"# {name}: generated {a.files} files, {n_bytes / 1e9:.2f} GB, in {time.perf_counter() - t:.1f} s", flush=True)
        full, sub = bench_toml(name, a.work, False), bench_toml(name, a.work, True)
        n_all, n_sub = len(files_of(a.work, name, False)), len(files_of(a.work, name, True))
        rows = []
        if not a.no_gpu:
            # warm-up: the GPU kernels compiled (or loaded from the cache) before the timed runs
            cusci_run(exe, sub, os.path.join(a.work, "out_warm"), "gpu")
            gout = os.path.join(a.work, f"out_{name}_gpu")
            with GpuSampler() as smp:
                dt, text = cusci_run(exe, full, gout, "gpu")
            rows.append(("cusci gpu", n_all, dt, smp.busy(), csv_counts(gout, name)))
            print(text, flush=True)
            dt1, _ = cusci_run(exe, full, gout + "1", "gpu", ["--streams", "1"])
            rows.append(("cusci gpu, 1 stream", n_all, dt1, None, None))
        cdt, ctext = cusci_run(exe, sub, os.path.join(a.work, f"out_{name}_cpu"), "cpu")
        ref = csv_counts(os.path.join(a.work, f"out_{name}_cpu"), name)
        rows.append(("cusci cpu", n_sub, cdt, None, ref))
        loops = [("scipy", files_of(a.work, name, True))]
        if not a.no_gpu:
            loops.insert(0, ("cupy", files_of(a.work, name, False)))
        for kind, files in loops:
            try:
                done, pdt, counts = plain_loop(kind, name, files, os.path.join(a.work, f"out_{name}_{kind}"), a.loop_seconds)
                rows.append((f"{kind} loop", done, pdt, None, counts))
            except ImportError as e:
                print(f"# {kind} loop skipped: {e}", flush=True)
        cupy_fps = next((r[1] / r[2] for r in rows if r[0] == "cupy loop"), None)
        print(f"\n{name}: {n_all} files ({n_bytes / 1e9:.2f} GB)")
        print(f"| runner | files | s | files/s | vs CuPy loop | GPU busy | tables as cusci cpu |")
        print(f"|---|---:|---:|---:|---:|---:|---|")
        for label, n, s, b, counts in rows:
            fps = n / s
            agree = ""
            if counts is not None and label != "cusci cpu":
                shared = [k for k in ref if k in counts]
                same = sum(ref[k] == counts[k] for k in shared)
                agree = f"{same}/{len(shared)} files"
            vs = f"{fps / cupy_fps:.2f}x" if cupy_fps else "-"
            busy_s = f"{b:.0f} %" if b is not None else ""
            print(f"| {label} | {n} | {s:.2f} | {fps:.1f} | {vs} | {busy_s} | {agree} |")
            records.append({"pipeline": name, "runner": label, "files": n, "seconds": s, "files_per_s": fps,
                            "gpu_busy_pct": b, "bytes": n_bytes})
        print(flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(records, f, indent=1)


if __name__ == "__main__":
    main()
