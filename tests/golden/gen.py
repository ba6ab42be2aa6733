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
# cusci-fft: scipy.fft
# --------------------------------------------------------------------------------------------


@section("fft")
def gen_fft(out: Path) -> None:
    """`scipy_fft.npz`, read by crates/fft/tests/golden.rs. To keep the file small the inputs are
    shared: member `in_<key>` is an input; member `<op>_<key>_<tokens...>_out` is SciPy's result
    of `<op>` applied to `in_<key>`, its options spelled by the tokens:

    - `backward` / `ortho` / `forward`: `norm=`;
    - `n<k>`: `n=k`;  `s<a>x<b>...`: `s=(a, b, ...)`;  `ax<a>x<b>...`: `axes=(a, b, ...)`
      (`m<k>` is the axis -k);
    - `type<k>`: `type=k`;  `orthogF` / `orthogT`: `orthogonalize=False/True`.

    `fftfreq` / `rfftfreq` take no input: `<op>_n<k>_d<d>_out` is `<op>(k, d)`."""
    import scipy
    import scipy.fft as sf

    arrays: dict[str, np.ndarray] = {}

    def inp(key: str, a: np.ndarray) -> str:
        arrays[f"in_{key}"] = a
        return key

    def real(key: str, shape, dtype=np.float64) -> str:
        return inp(key, rng("fft", key).standard_normal(shape).astype(dtype))

    def cplx(key: str, shape, dtype=np.complex128) -> str:
        g = rng("fft", key)
        return inp(key, (g.standard_normal(shape) + 1j * g.standard_normal(shape)).astype(dtype))

    def ints(prefix: str, v) -> str:
        return prefix + "x".join(str(a) if a >= 0 else f"m{-a}" for a in v)

    def case(op: str, key: str, norm=None, n=None, s=None, axes=None, type=None, orthog=None):
        kw = {}
        name = [op, key]
        if type is not None:
            kw["type"] = type
            name.append(f"type{type}")
        if n is not None:
            kw["n"] = n
            name.append(f"n{n}")
        if s is not None:
            kw["s"] = s
            name.append(ints("s", s))
        if axes is not None:
            kw["axes"] = axes
            name.append(ints("ax", axes))
        if norm is not None:
            kw["norm"] = norm
            name.append(norm)
        if orthog is not None:
            kw["orthogonalize"] = orthog
            name.append("orthogT" if orthog else "orthogF")
        y = getattr(sf, op)(arrays[f"in_{key}"], **kw)
        member = "_".join(name) + "_out"
        assert member not in arrays, member
        arrays[member] = np.asarray(y)

    norms = ("backward", "ortho", "forward")

    # 1-D complex and real transforms, float64 / complex128
    for m in (1, 2, 7, 16, 31):
        rk, ck = real(f"r{m}", m), cplx(f"c{m}", m)
        for norm in norms:
            case("fft", ck, norm)
            case("ifft", ck, norm)
            case("rfft", rk, norm)
            case("ihfft", rk, norm)
            if m >= 2:  # default n = 2(m-1) needs m >= 2
                case("irfft", ck, norm)
                case("hfft", ck, norm)
        # with one norm each (rotating), to stay small
        case("fft", rk, norms[m % 3])  # real input, converted to complex
        case("irfft", ck, norms[m % 3], n=2 * m - 1)  # odd output length
        case("hfft", ck, norms[(m + 1) % 3], n=2 * m - 1)
    # explicit n: cut and zero-padded
    for norm in norms:
        for n in (5, 24):
            case("fft", "c16", norm, n=n)
            case("ifft", "c16", norm, n=n)
            case("rfft", "r16", norm, n=n)
            case("ihfft", "r16", norm, n=n)
            case("irfft", "c16", norm, n=n)
            case("hfft", "c16", norm, n=n)

    # float32: complex64 results
    for m in (7, 16):
        rk, ck = real(f"f{m}", m, np.float32), cplx(f"g{m}", m, np.complex64)
        for norm in norms:
            case("fft", rk, norm)
            case("fft", ck, norm)
            case("rfft", rk, norm)

    # n-D on a 4x5x6 array
    real("r3d", (4, 5, 6))
    cplx("c3d", (4, 5, 6))
    cplx("h3d", (4, 5, 4))  # a half spectrum for irfftn
    variants = [
        dict(),
        dict(s=(3, 7, 8)),  # cut and padded, the last 3 axes
        dict(s=(6, 4)),  # s alone: the last 2 axes
        dict(axes=(0, 2)),
        dict(s=(5, 3), axes=(2, 0)),  # with axes, unordered
        dict(axes=(-2,)),
    ]
    # every norm without s/axes; each other variant with one norm (rotating), to stay small
    for i, v in enumerate(variants):
        for norm in norms if not v else (norms[i % 3],):
            case("fftn", "c3d", norm, **v)
            case("ifftn", "c3d", norm, **v)
            case("rfftn", "r3d", norm, **v)
            case("irfftn", "h3d", norm, **v)
    case("fftn", "r3d", "ortho")  # real input
    case("irfftn", "h3d", "forward", s=(4, 5, 7))  # an odd last output length

    # real-to-real transforms, lengths 7 and 8
    for m in (7, 8):
        key = real(f"d{m}", m)
        for op in ("dct", "idct", "dst", "idst"):
            for t in (1, 2, 3, 4):
                for norm in norms if m == 7 else ("ortho",):
                    case(op, key, norm, type=t)
                if m == 7:
                    case(op, key, "ortho", type=t, orthog=False)
                    case(op, key, "backward", type=t, orthog=True)
    for t in (2, 3):
        case("dct", "d8", "ortho", type=t, n=5)
        case("dst", "d8", "backward", type=t, n=11)
    # n-D real-to-real on a 3x4x5 array
    real("r3s", (3, 4, 5))
    for op in ("dctn", "idctn", "dstn", "idstn"):
        for t in (1, 2, 3, 4):
            case(op, "r3s", "ortho" if t % 2 else "backward", type=t)
        case(op, "r3s", "forward", type=2, axes=(0, 2))
        case(op, "r3s", "forward", type=3, s=(5, 3))
        case(op, "r3s", "ortho", type=4, s=(2, 6), axes=(2, 1), orthog=False)
        case(op, "r3s", "ortho", type=1, axes=(-1,))

    # helpers
    for n in (1, 2, 7, 8):
        for d in (1.0, 0.25):
            arrays[f"fftfreq_n{n}_d{d}_out"] = sf.fftfreq(n, d)
            arrays[f"rfftfreq_n{n}_d{d}_out"] = sf.rfftfreq(n, d)
    real("sh7", 7)
    real("sh8", 8)
    real("sh2d", (3, 4))
    for key in ("sh7", "sh8", "r3s", "sh2d"):
        for op in ("fftshift", "ifftshift"):
            arrays[f"{op}_{key}_out"] = getattr(sf, op)(arrays[f"in_{key}"])
    for axes in ((0,), (-1,), (0, 2)):
        for op in ("fftshift", "ifftshift"):
            arrays[f"{op}_r3s_{ints('ax', axes)}_out"] = getattr(sf, op)(arrays["in_r3s"], axes=axes)

    arrays["version_numpy"] = np.frombuffer(np.__version__.encode(), dtype=np.uint8)
    arrays["version_scipy"] = np.frombuffer(scipy.__version__.encode(), dtype=np.uint8)
    savez_fixed(out / "scipy_fft.npz", compressed=True, **arrays)


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
