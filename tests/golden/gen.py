#!/usr/bin/env python3
"""cusci's golden-data generator.

Writes the small reference files that the Rust tests read, each crate's under
`crates/<crate>/tests/data/`. The tests never need Python: they compare against these files.

    python3 tests/golden/gen.py            # every section
    python3 tests/golden/gen.py core fft   # only these sections
    python3 tests/golden/gen.py --list     # the sections

Rules for every section:
- deterministic: random data comes from `rng(section, name)` (fixed seeds), never from the clock;
  `savez`/`savez_compressed` go through `savez_fixed`, which pins the zip timestamps, so that
  running the script twice gives byte-identical files;
- small: a few KB per file (keep arrays to a few hundred elements);
- self-describing where possible: prefer values that the Rust test can recompute (arange-based),
  and store SciPy's results beside their inputs.

To add a crate's data, write a function `def gen_<crate>(out: Path)` decorated with
`@section("<crate>")`; it receives that crate's data folder (created for it).
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import zipfile
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

import numpy as np

ROOT = Path(__file__).resolve().parents[2]

SECTIONS: dict[str, callable] = {}


def section(crate: str):
    """Registers `fn(out_dir)` as the generator of `crates/<crate>/tests/data/`."""

    def register(fn):
        if crate in SECTIONS:
            raise ValueError(f"section {crate!r} registered twice")
        SECTIONS[crate] = fn
        return fn

    return register


def rng(section_name: str, name: str) -> np.random.Generator:
    """A generator seeded from (section, name): stable across runs and independent of order."""
    digest = hashlib.sha256(f"{section_name}/{name}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))


@contextmanager
def _fixed_zip_time():
    """Makes zipfile stamp members with 1980-01-01 00:00:00 instead of the current time."""
    fixed = (1980, 1, 1, 0, 0, 0, 1, 1, 0)
    with mock.patch.object(zipfile.time, "localtime", lambda *_: fixed):
        yield


def savez_fixed(path: Path, compressed: bool = False, **arrays) -> None:
    """numpy.savez / numpy.savez_compressed with pinned timestamps (byte-reproducible)."""
    with _fixed_zip_time():
        if compressed:
            np.savez_compressed(path, **arrays)
        else:
            np.savez(path, **arrays)


# --------------------------------------------------------------------------------------------
# cusci-core: .npy / .npz I/O
# --------------------------------------------------------------------------------------------


@section("core")
def gen_core(out: Path) -> None:
    """Files read by crates/core/tests/npy.rs. Each array's values are given in a comment as the
    formula that the Rust test recomputes (i is the flat C-order index)."""
    i = np.arange

    # one file per dtype, C order, little-endian unless named otherwise
    # f32 [3,4]: i * 0.5 - 2
    np.save(out / "npy_f32.npy", (i(12, dtype=np.float32) * 0.5 - 2).reshape(3, 4))
    # f64 [2,3,4]: i / 8 - 1
    np.save(out / "npy_f64.npy", (i(24, dtype=np.float64) / 8 - 1).reshape(2, 3, 4))
    # c64 (complex64) [2,3]: i - 2i*j
    np.save(out / "npy_c64.npy", (i(6) - 2j * i(6)).astype(np.complex64).reshape(2, 3))
    # c128 (complex128) [5]: i/4 + (i + 0.5)j
    np.save(out / "npy_c128.npy", (i(5) / 4 + 1j * (i(5) + 0.5)).astype(np.complex128))
    # i32 [4,3]: (i - 6) * 1000
    np.save(out / "npy_i32.npy", ((i(12) - 6) * 1000).astype(np.int32).reshape(4, 3))
    # i64 [10]: i * 2^40 - 2^42
    np.save(out / "npy_i64.npy", i(10, dtype=np.int64) * 2**40 - 2**42)
    # u8 [4,5]: (i * 13) % 256
    np.save(out / "npy_u8.npy", ((i(20) * 13) % 256).astype(np.uint8).reshape(4, 5))
    # bool [3,4]: i % 3 == 0
    np.save(out / "npy_bool.npy", (i(12) % 3 == 0).reshape(3, 4))

    # layouts and byte orders
    # f64 [2,3,4] stored in Fortran order; logical (C-order) values: i
    f = np.asfortranarray(i(24, dtype=np.float64).reshape(2, 3, 4))
    assert f.flags.f_contiguous and not f.flags.c_contiguous
    np.save(out / "npy_f64_fortran.npy", f)
    # i32 [3,5] Fortran order; logical values: i * 7 - 50
    np.save(out / "npy_i32_fortran.npy", np.asfortranarray((i(15) * 7 - 50).astype(np.int32).reshape(3, 5)))
    # big-endian '>f8' [7]: i * 1.5 - 3
    np.save(out / "npy_f64_be.npy", (i(7) * 1.5 - 3).astype(">f8"))
    # big-endian '>i4' [2,3]: (i - 3) * 65537
    np.save(out / "npy_i32_be.npy", ((i(6) - 3) * 65537).astype(">i4").reshape(2, 3))
    # big-endian '>c8' [4]: i + 1 - i*j
    np.save(out / "npy_c64_be.npy", (i(4) + 1 - 1j * i(4)).astype(">c8"))
    # 0-d arrays: f64 3.25, c128 (-1.5+2j)
    np.save(out / "npy_f64_0d.npy", np.array(3.25))
    np.save(out / "npy_c128_0d.npy", np.array(-1.5 + 2j))
    # empty: f32 [0,3]
    np.save(out / "npy_f32_empty.npy", np.zeros((0, 3), dtype=np.float32))
    # a dtype cusci does not have: int16 [3]
    np.save(out / "npy_i16.npy", i(3, dtype=np.int16))

    # archives: the same members, stored and deflated
    noise = rng("core", "noise").standard_normal((4, 8))
    members = dict(
        a=(i(6, dtype=np.float32) + 0.25).reshape(2, 3),  # f32 [2,3]: i + 0.25
        b=i(4, dtype=np.int64) * -3,  # i64 [4]: -3i
        c=np.array(2.5 - 0.5j),  # c128 []
        d=np.array([[True, False], [False, True]]),  # bool [2,2]
        e=np.zeros(0, dtype=np.uint8),  # u8 [0]
        f=np.asfortranarray((i(6) * 2).astype(np.int32).reshape(2, 3)),  # i32 [2,3], Fortran: 2i
        noise=noise,  # f64 [4,8], seeded normal
        noise_sum=np.array(noise.sum()),  # f64 []: the sum of noise
        noise_first=noise[0, :3].astype(">f8"),  # '>f8' [3]: noise[0, :3]
    )
    savez_fixed(out / "npz_arrays.npz", **members)
    savez_fixed(out / "npz_arrays_compressed.npz", compressed=True, **members)


# --------------------------------------------------------------------------------------------


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sections", nargs="*", help="sections to generate (default: all)")
    ap.add_argument("--list", action="store_true", help="list the sections and exit")
    args = ap.parse_args(argv)
    if args.list:
        for name, fn in SECTIONS.items():
            print(f"{name}: crates/{name}/tests/data/ ({fn.__name__})")
        return 0
    unknown = [s for s in args.sections if s not in SECTIONS]
    if unknown:
        ap.error(f"unknown sections {unknown}; known: {sorted(SECTIONS)}")
    for name in args.sections or list(SECTIONS):
        out = ROOT / "crates" / name / "tests" / "data"
        out.mkdir(parents=True, exist_ok=True)
        SECTIONS[name](out)
        files = sorted(p for p in out.iterdir() if p.is_file())
        total = sum(p.stat().st_size for p in files)
        print(f"{name}: {len(files)} files, {total} bytes in {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
