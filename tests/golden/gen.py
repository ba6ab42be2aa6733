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


# Sections whose data folder is not `crates/<section key>/tests/data/` (several sections of one crate).
FOLDERS: dict[str, str] = {}


def section(crate: str, folder: str | None = None):
    """Registers `fn(out_dir)` as the generator of `crates/<crate>/tests/data/`; with `folder`,
    of `crates/<folder>/tests/data/` instead (the key still names the section on the command line)."""

    def register(fn):
        if crate in SECTIONS:
            raise ValueError(f"section {crate!r} registered twice")
        SECTIONS[crate] = fn
        if folder is not None:
            FOLDERS[crate] = folder
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

    # `scipy_fft_extra.npz`, read by crates/fft/tests/extra.rs: the Hermitian n-d transforms, irfft
    # of real input, and the fast Hankel transform. Members: `x_<k>` inputs; `<op>_<k>_<norm>_out`
    # (hfftn/ihfftn/hfft2/ihfft2 with default s/axes, or `..._ax0_...` for axes=(0,)); `irfft_r_<norm>_out`;
    # `fhtp_<i>` = [dln, mu, offset, bias] with `fht_<i>_out` / `ifht_<i>_out` of `x_fht<n>`
    # (n = the input's length) and `fhtoffset_<i>_out` = fhtoffset(dln, mu, initial=offset, bias).
    ex: dict[str, np.ndarray] = {}
    g = rng("fft", "extra")
    ex["x_c"] = g.standard_normal((3, 4, 5)) + 1j * g.standard_normal((3, 4, 5))
    ex["x_r"] = g.standard_normal((3, 4, 6))
    for norm in norms:
        ex[f"hfftn_c_{norm}_out"] = sf.hfftn(ex["x_c"], norm=norm)
        ex[f"hfft2_c_{norm}_out"] = sf.hfft2(ex["x_c"], norm=norm)
        ex[f"hfftn_c_ax0_{norm}_out"] = sf.hfftn(ex["x_c"], axes=(0,), norm=norm)
        ex[f"ihfftn_r_{norm}_out"] = sf.ihfftn(ex["x_r"], norm=norm)
        ex[f"ihfft2_r_{norm}_out"] = sf.ihfft2(ex["x_r"], norm=norm)
        ex[f"ihfftn_r_ax0_{norm}_out"] = sf.ihfftn(ex["x_r"], axes=(0,), norm=norm)
        ex[f"irfft_r_{norm}_out"] = sf.irfft(ex["x_r"], norm=norm)
    import warnings
    fht_cases = [
        (16, 0.05, 0.0, 0.0, 0.0),
        (16, 0.1, 0.5, 0.3, 0.0),
        (33, 0.02, -0.5, -0.1, 0.4),
        (64, 0.05, 2.0, 0.0, -0.3),
        (7, 0.3, 1.0, 0.2, 1.5),
        (8, 0.1, -1.0, 0.0, 0.0),
    ]
    for n in sorted({c[0] for c in fht_cases}):
        ex[f"x_fht{n}"] = np.exp(-np.linspace(-3, 3, n) ** 2) + 0.1 * g.standard_normal(n)
    for i, (n, dln, mu, offset, bias) in enumerate(fht_cases):
        ex[f"fhtp_{i}"] = np.array([dln, mu, offset, bias, n], dtype=np.float64)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ex[f"fht_{i}_out"] = sf.fht(ex[f"x_fht{n}"], dln, mu, offset=offset, bias=bias)
            ex[f"ifht_{i}_out"] = sf.ifht(ex[f"x_fht{n}"], dln, mu, offset=offset, bias=bias)
        ex[f"fhtoffset_{i}_out"] = np.array(sf.fhtoffset(dln, mu, initial=offset, bias=bias))
    savez_fixed(out / "scipy_fft_extra.npz", compressed=True, **ex)


# --------------------------------------------------------------------------------------------
# cusci-linalg: crates/linalg/tests/data/scipy_linalg.npz. Inputs `A_<dt><n>` (square, f64 `d` or
# complex128 `z`), `H_<dt><n>` (Hermitian positive definite), `B_<dt><n>` (n x 2); outputs
# `<fn>_<dt><n>` (and `<fn>_<field>_<dt><n>`); special matrices `<fn>_<case>` from small inputs.
# --------------------------------------------------------------------------------------------


@section("linalg")
def gen_linalg(out: Path) -> None:
    import scipy
    import scipy.linalg as sl

    a = {}
    for dt, ty in (("d", np.float64), ("z", np.complex128)):
        for n in (1, 2, 3, 5, 8):
            g = rng("linalg", f"{dt}{n}")
            A = g.standard_normal((n, n))
            M = g.standard_normal((n, n))
            B = g.standard_normal((n, 2))
            if dt == "z":
                A = A + 1j * g.standard_normal((n, n))
                M = M + 1j * g.standard_normal((n, n))
                B = B + 1j * g.standard_normal((n, 2))
            A = A.astype(ty)
            H = (M @ M.conj().T + n * np.eye(n)).astype(ty)
            k = f"{dt}{n}"
            a[f"A_{k}"], a[f"H_{k}"], a[f"B_{k}"] = A, H, B.astype(ty)
            a[f"det_{k}"] = np.asarray(np.linalg.det(A))
            sign, logdet = np.linalg.slogdet(A)
            a[f"slogdet_sign_{k}"], a[f"slogdet_log_{k}"] = np.asarray(sign), np.asarray(logdet)
            lu, piv = sl.lu_factor(A)
            a[f"lu_factor_lu_{k}"], a[f"lu_factor_piv_{k}"] = lu, piv.astype(np.int64)
            a[f"solve_{k}"] = np.linalg.solve(A, B)
            a[f"inv_{k}"] = np.linalg.inv(A)
            a[f"svdvals_{k}"] = np.linalg.svd(A, compute_uv=False)
            a[f"eigvalsh_{k}"] = np.linalg.eigvalsh(H)
            a[f"cholesky_{k}"] = np.linalg.cholesky(H)
            a[f"pinv_{k}"] = np.linalg.pinv(A)
            a[f"expm_{k}"] = sl.expm(A / n)
            a[f"matrix_power3_{k}"] = np.linalg.matrix_power(A, 3)
            a[f"matrix_powerm2_{k}"] = np.linalg.matrix_power(A, -2)
            for name, ordv in (("fro", "fro"), ("nuc", "nuc"), ("inf", np.inf), ("minf", -np.inf), ("1", 1), ("m1", -1), ("2", 2), ("m2", -2)):
                a[f"norm_{name}_{k}"] = np.asarray(np.linalg.norm(A, ordv))
            a[f"cond_{k}"] = np.asarray(np.linalg.cond(A))
            ev = np.linalg.eigvals(A)
            a[f"eigvals_{k}"] = ev[np.lexsort((ev.imag, ev.real))].astype(np.complex128)
            (qh, qtau), qrr = sl.qr(A, mode="raw")
            a[f"qr_raw_h_{k}"], a[f"qr_raw_tau_{k}"], a[f"qr_raw_r_{k}"] = qh, qtau, qrr
            a[f"tensorsolve_{k}"] = np.linalg.tensorsolve(A, B[:, 0])
            a[f"einsum_bij_{k}"] = np.einsum("ij,kj->ik", A, H)
    # rank-deficient and rectangular
    g = rng("linalg", "rank")
    R = g.standard_normal((6, 3)) @ g.standard_normal((3, 5))
    a["R_rank"] = R
    a["matrix_rank_rank"] = np.asarray(np.linalg.matrix_rank(R), dtype=np.int64)
    for tag, X in (("tall", R), ("wide", R.T.copy())):
        (qh, qtau), qrr = sl.qr(X, mode="raw")
        a[f"qr_raw_h_{tag}"], a[f"qr_raw_tau_{tag}"], a[f"qr_raw_r_{tag}"] = qh, qtau, qrr
    a["pinv_rank"] = np.linalg.pinv(R)
    Y = g.standard_normal((6, 2))
    a["Y_rank"] = Y
    x, res, rk, sv = np.linalg.lstsq(R, Y, rcond=None)
    a["lstsq_x_rank"], a["lstsq_sv_rank"] = x, sv
    for name, ordv in (("2", 2), ("1", 1), ("inf", np.inf), ("m1", -1), ("0", 0), ("3", 3)):
        a[f"vnorm_{name}"] = np.asarray(np.linalg.norm(Y[:, 0], ordv))
    # special matrices
    c = np.array([1.0, 2.0, -3.0, 0.5])
    r = np.array([1.0, -1.0, 4.0])
    a["toeplitz_c"] = sl.toeplitz(c)
    a["toeplitz_cr"] = sl.toeplitz(c, r)
    a["circulant_c"] = sl.circulant(c)
    a["hankel_c"] = sl.hankel(c)
    a["hankel_cr"] = sl.hankel(c, r)
    a["hadamard_8"] = sl.hadamard(8).astype(np.float64)
    a["companion_c"] = sl.companion(c)
    a["helmert_5"] = sl.helmert(5)
    a["helmert_5_full"] = sl.helmert(5, full=True)
    a["hilbert_5"] = sl.hilbert(5)
    a["leslie_c"] = sl.leslie(c, r)
    a["dft_5"] = sl.dft(5)
    a["dft_4_sqrtn"] = sl.dft(4, scale="sqrtn")
    a["dft_4_n"] = sl.dft(4, scale="n")
    a["fiedler_c"] = sl.fiedler(c)
    a["fiedler_companion_c"] = sl.fiedler_companion(c)
    for mode in ("full", "valid", "same"):
        a[f"convolution_matrix_{mode}"] = sl.convolution_matrix(r, 5, mode)
    a["block_diag"] = sl.block_diag(np.ones((2, 2)), 2 * np.ones((1, 3)), np.array([[5.0]]))
    a["kron"] = np.kron(np.arange(6.0).reshape(2, 3), np.arange(4.0).reshape(2, 2) - 1)
    a["khatri_rao"] = sl.khatri_rao(np.arange(6.0).reshape(2, 3), np.arange(9.0).reshape(3, 3))
    band = np.triu(np.tril(g.standard_normal((5, 6)), 2), -1)
    a["band_in"] = band
    a["bandwidth_out"] = np.asarray(sl.bandwidth(band), dtype=np.int64)
    a["version_scipy"] = np.frombuffer(scipy.__version__.encode(), dtype=np.uint8)
    savez_fixed(out / "scipy_linalg.npz", compressed=True, **a)


# --------------------------------------------------------------------------------------------
# cusci-ndimage (second half): morphology, label, measurements, distance transforms. Written to
# crates/ndimage/tests/data/ndimage_morphology.npz (the section's own folder stays empty).
# Members: `<case>_<field>`; see crates/ndimage/tests/morphology_golden.rs for the fields.
# --------------------------------------------------------------------------------------------


@section("ndimage_morphology")
def gen_ndimage_morphology(out: Path) -> None:
    import scipy
    import scipy.ndimage as ndi

    dest = ROOT / "crates" / "ndimage" / "tests" / "data"
    dest.mkdir(parents=True, exist_ok=True)
    A: dict[str, np.ndarray] = {}
    S = "ndimage_morphology"

    def mask(name, shape, p):
        return rng(S, name).random(shape) < p

    # structures
    for rank in (1, 2, 3):
        for conn in (1, 2, 3):
            A[f"gbs_r{rank}_c{conn}_out"] = ndi.generate_binary_structure(rank, conn)
    for it in (2, 3):
        s = ndi.generate_binary_structure(2, 1)
        o, org = ndi.iterate_structure(s, it, origin=[1, 0])
        A[f"its_{it}_in"] = s
        A[f"its_{it}_out"] = o
        A[f"its_{it}_origin"] = np.array(org, dtype=np.int64)

    # binary morphology
    odd = np.array([[1, 0, 1], [1, 1, 0]], dtype=bool)  # even first axis
    cases = [
        ("default", (9, 10), 0.6, None, 1, 0, 0, False),
        ("conn2", (9, 10), 0.6, ndi.generate_binary_structure(2, 2), 1, 0, 0, False),
        ("it2", (9, 10), 0.7, None, 2, 0, 0, False),
        ("itinf", (9, 10), 0.7, None, -1, 0, 0, False),
        ("mask", (9, 10), 0.6, None, 2, 0, 0, True),
        ("bv1", (9, 10), 0.6, None, 1, 1, 0, False),
        ("origin", (9, 10), 0.6, ndi.generate_binary_structure(2, 2), 1, 0, [1, -1], False),
        ("even", (9, 10), 0.5, odd, 1, 0, [0, 1], False),
        ("d1", (23,), 0.5, None, 1, 0, 0, False),
        ("d3", (5, 6, 7), 0.6, ndi.generate_binary_structure(3, 2), 1, 0, 0, False),
    ]
    for name, shape, p, st, it, bv, org, use_mask in cases:
        x = mask(f"bin_{name}", shape, p)
        s = st if st is not None else ndi.generate_binary_structure(len(shape), 1)
        m = mask(f"binm_{name}", shape, 0.7) if use_mask else None
        o = np.broadcast_to(np.array(org, dtype=np.int64), (len(shape),)).copy()
        for op in ("binary_erosion", "binary_dilation", "binary_opening", "binary_closing"):
            k = f"{op}_{name}"
            A[k + "_in"] = x
            A[k + "_s"] = s
            A[k + "_p"] = np.array([it, bv], dtype=np.int64)
            A[k + "_o"] = o
            if m is not None:
                A[k + "_m"] = m
            A[k + "_out"] = getattr(ndi, op)(x, structure=s, iterations=it, mask=m,
                                             border_value=bv, origin=list(o))
    for name, shape in (("a", (9, 10)), ("b", (6, 7, 5))):
        x = mask(f"hom_{name}", shape, 0.5)
        A[f"hit_or_miss_{name}_in"] = x
        A[f"hit_or_miss_{name}_out"] = ndi.binary_hit_or_miss(x)
        seed = mask(f"prop_{name}", shape, 0.05)
        pm = mask(f"propm_{name}", shape, 0.6)
        A[f"propagation_{name}_in"] = seed
        A[f"propagation_{name}_m"] = pm
        A[f"propagation_{name}_out"] = ndi.binary_propagation(seed, mask=pm)
        fh = mask(f"fill_{name}", shape, 0.55)
        A[f"fill_holes_{name}_in"] = fh
        A[f"fill_holes_{name}_out"] = ndi.binary_fill_holes(fh)
    s1 = np.array([[0, 1, 0], [1, 1, 1], [0, 0, 0]], dtype=bool)
    s2 = np.array([[0, 0, 0], [0, 0, 0], [0, 1, 0]], dtype=bool)
    x = mask("hom_c", (9, 10), 0.5)
    A["hit_or_miss_c_in"] = x
    A["hit_or_miss_c_s1"] = s1
    A["hit_or_miss_c_s2"] = s2
    A["hit_or_miss_c_out"] = ndi.binary_hit_or_miss(x, s1, s2)

    # grey morphology: p = [mode code (cusci order), cval], size / footprint / structure
    modes = ["reflect", "constant", "nearest", "mirror", "wrap"]
    x = np.round(rng(S, "grey").normal(size=(8, 9)) * 10) / 4
    fp = np.array([[1, 0, 1], [0, 1, 1]], dtype=bool)
    stv = rng(S, "greys").random((3, 3)).round(2)
    gcases = [("s3", dict(size=3), 0), ("s23", dict(size=(2, 3)), 0), ("fp", dict(footprint=fp), 0),
              ("st", dict(structure=stv), 0), ("o", dict(size=3, origin=[1, -1]), 0)]
    for mi, mode in enumerate(modes):
        for cname, kw, _ in gcases:
            for op in ("grey_erosion", "grey_dilation", "grey_opening", "grey_closing",
                       "morphological_gradient", "morphological_laplace", "white_tophat",
                       "black_tophat"):
                if mode not in ("reflect", "constant") and op not in ("grey_erosion", "grey_dilation"):
                    continue
                k = f"{op}_{cname}_{mode}"
                A[k + "_p"] = np.array([mi, 1.5])
                if "size" in kw:
                    A[k + "_size"] = np.array(np.broadcast_to(kw["size"], (2,)), dtype=np.int64)
                if "footprint" in kw:
                    A[k + "_fp"] = kw["footprint"]
                if "structure" in kw:
                    A[k + "_st"] = kw["structure"]
                A[k + "_o"] = np.array(np.broadcast_to(kw.get("origin", 0), (2,)), dtype=np.int64)
                A[k + "_out"] = getattr(ndi, op)(x, mode=mode, cval=1.5, **kw)
    A["grey_in"] = x

    # label: masks of several densities and connectivities
    for shape in ((16, 17), (6, 7, 8), (40,)):
        for p in (0.3, 0.5, 0.7):
            for conn in range(1, len(shape) + 1):
                k = f"label_{'x'.join(map(str, shape))}_{int(p * 10)}_{conn}"
                x = mask(k, shape, p)
                A[k + "_in"] = x
                A[k + "_out"] = ndi.label(x, ndi.generate_binary_structure(len(shape), conn))[0].astype(np.int32)

    # measurements over labels (index = 0..n+1 with one absent label)
    lab = ndi.label(mask("meas", (12, 13), 0.5))[0].astype(np.int32)
    v = np.round(rng(S, "measv").normal(size=lab.shape) * 8) / 2
    n = int(lab.max())
    idx = np.arange(0, n + 2, dtype=np.int32)
    A["meas_labels"] = lab
    A["meas_input"] = v
    A["meas_index"] = idx
    for op in ("sum_labels", "mean", "variance", "standard_deviation", "minimum", "maximum", "median"):
        A[f"meas_{op}"] = np.array(getattr(ndi, op)(v, lab, idx), dtype=np.float64)
    for op in ("minimum_position", "maximum_position", "center_of_mass"):
        r = getattr(ndi, op)(v, lab, idx[1:-1])
        A[f"meas_{op}"] = np.array(r, dtype=np.float64)
    A["meas_histogram"] = np.stack(ndi.histogram(v, -10, 10, 7, lab, idx[1:-1])).astype(np.int64)
    fo = ndi.find_objects(lab)
    A["meas_find_objects"] = np.array([[s.start for s in t] + [s.stop for s in t] for t in fo], dtype=np.int64)
    A["meas_sum_all"] = np.array([ndi.sum_labels(v), ndi.mean(v), ndi.variance(v), ndi.minimum(v), ndi.maximum(v), ndi.median(v)])
    A["meas_com_all"] = np.array(ndi.center_of_mass(v))

    # distance transforms
    for name, shape, p in (("a", (9, 11), 0.8), ("b", (5, 6, 7), 0.85), ("c", (30,), 0.7)):
        x = mask(f"dist_{name}", shape, p)
        A[f"dist_{name}_in"] = x
        A[f"edt_{name}_out"] = ndi.distance_transform_edt(x)
        smp = [1.5, 0.5, 2.0][: len(shape)]
        A[f"edt_{name}_sampling"] = np.array(smp)
        A[f"edt_{name}_sampled"] = ndi.distance_transform_edt(x, sampling=smp)
        A[f"cdt_{name}_chessboard"] = ndi.distance_transform_cdt(x, metric="chessboard").astype(np.int32)
        A[f"cdt_{name}_taxicab"] = ndi.distance_transform_cdt(x, metric="taxicab").astype(np.int32)
        for m in ("euclidean", "taxicab", "chessboard"):
            A[f"bf_{name}_{m}"] = ndi.distance_transform_bf(x, metric=m, sampling=smp).astype(np.float64)

    A["version_scipy"] = np.frombuffer(scipy.__version__.encode(), dtype=np.uint8)
    savez_fixed(dest / "ndimage_morphology.npz", compressed=True, **A)


# --------------------------------------------------------------------------------------------
# cusci-ndimage measurements grouped by sorting: median (both of SciPy's routes: np.median
# without labels/index, sort-and-pick with an index list; NaN, f32 averaging, integers),
# labeled_comprehension, value_indices. Written to crates/ndimage/tests/data/
# ndimage_measurements.npz, read by crates/ndimage/tests/measurements_sorted.rs.
# --------------------------------------------------------------------------------------------


@section("ndimage_measurements", folder="ndimage")
def gen_ndimage_measurements(out: Path) -> None:
    import scipy.ndimage as ndi

    A: dict[str, np.ndarray] = {}
    r = lambda name: rng("ndimage_measurements", name)
    lab = r("labels").integers(0, 7, size=(9, 11)).astype(np.int32)
    lab[0, :3] = 8  # label 8: three elements
    idx = np.array([0, 1, 2, 3, 4, 5, 6, 8, 9], dtype=np.int64)  # 9 does not occur
    A["med_labels"], A["med_index"] = lab, idx
    v = r("values").standard_normal((9, 11))
    v[lab == 3] = np.round(v[lab == 3])  # ties
    v[2, 4] = np.nan
    lab[2, 4] = 5  # region 5 holds a NaN (after the others' values)
    v[7, 1] = -np.nan
    lab[7, 1] = 6  # region 6: a NaN with the sign bit
    A["med_labels"] = lab
    A["med_f64"] = v
    present = [i for i in idx if (lab == i).any()]
    A["med_f64_index"] = np.array(ndi.median(v, lab, present), dtype=np.float64)
    A["med_present"] = np.array(present, dtype=np.int64)
    A["med_f64_nolabels"] = np.array([ndi.median(v)], dtype=np.float64)
    A["med_f64_noindex"] = np.array([ndi.median(v, lab)], dtype=np.float64)
    vf = np.where(np.isnan(v), 0.0, v).astype(np.float32) * np.float32(1.0000001)
    A["med_f32"] = vf
    A["med_f32_index"] = np.array(ndi.median(vf, lab, present), dtype=np.float64)
    A["med_f32_noindex"] = np.array([ndi.median(vf, lab)], dtype=np.float64)
    A["med_f32_nolabels"] = np.array([ndi.median(vf)], dtype=np.float64)
    A["med_f32_big"] = np.array([3e38, 2e38, 3.1e38], dtype=np.float32)  # (v + v) / 2 overflows
    A["med_f32_big_index"] = np.array(ndi.median(A["med_f32_big"], np.array([1, 2, 2]), [1, 2]), dtype=np.float64)
    vi = (r("ints").integers(-(2**40), 2**40, size=(9, 11))).astype(np.int64)
    A["med_i64"] = vi
    A["med_i64_index"] = np.array(ndi.median(vi, lab, present), dtype=np.float64)
    A["med_i64_noindex"] = np.array([ndi.median(vi, lab)], dtype=np.float64)
    vu = r("u8").integers(0, 256, size=(9, 11)).astype(np.uint8)
    A["med_u8"] = vu
    A["med_u8_index"] = np.array(ndi.median(vu, lab, present), dtype=np.float64)
    # labeled_comprehension with an order-independent function (SciPy's order within a region is
    # an unstable argsort's)
    f = lambda a: float(a.max() - a.min() + a.size)
    w = np.where(np.isnan(v), 0.5, v)
    A["lc_f64"] = w
    A["lc_out"] = np.array(ndi.labeled_comprehension(w, lab, idx, f, np.float64, -1.5), dtype=np.float64)
    # value_indices of a 3-D int array (with and without ignore_value)
    a3 = r("vi").integers(-3, 4, size=(4, 5, 6)).astype(np.int32)
    A["vi_in"] = a3
    for name, ign in (("all", None), ("ign", 0)):
        d = ndi.value_indices(a3, ignore_value=ign)
        keys = sorted(d)
        A[f"vi_{name}_values"] = np.array(keys, dtype=np.int64)
        A[f"vi_{name}_counts"] = np.array([len(d[k][0]) for k in keys], dtype=np.int64)
        A[f"vi_{name}_coords"] = np.concatenate([np.stack(d[k]) for k in keys], axis=1).astype(np.int64)
    savez_fixed(out / "ndimage_measurements.npz", compressed=True, **A)


# --------------------------------------------------------------------------------------------
# cusci-signal (issue 7): filter design, representations, frequency responses
# --------------------------------------------------------------------------------------------


@section("ndimage_filters")
def gen_ndimage_filters(out: Path) -> None:
    """scipy.ndimage filters: every function x every mode on 1-D to 3-D inputs (f64), read by
    crates/ndimage/tests/filters_golden.rs. Case names encode the call: fn__key=value__..."""
    import scipy.ndimage as ndi

    dest = ROOT / "crates" / "ndimage" / "tests" / "data"
    dest.mkdir(parents=True, exist_ok=True)
    S = "ndimage_filters"
    X = {
        "x1": rng(S, "x1").standard_normal(17),
        "x2": rng(S, "x2").standard_normal((9, 10)),
        "x3": rng(S, "x3").standard_normal((5, 6, 7)),
    }
    W2 = rng(S, "w2").standard_normal((3, 4))
    W3 = rng(S, "w3").standard_normal((3, 3, 2))
    FP = np.array([[1, 0, 1], [0, 1, 1]], dtype=bool)
    A: dict[str, np.ndarray] = dict(X)
    A["w2"], A["w3"], A["fp"] = W2, W3, FP
    k = 0

    def add(spec: str, y: np.ndarray) -> None:
        nonlocal k
        A[f"c{k:03d}__{spec}"] = np.asarray(y, dtype=np.float64)
        k += 1

    for mode in ("reflect", "constant", "nearest", "mirror", "wrap",
                 "grid-constant", "grid-mirror", "grid-wrap"):
        kw = dict(mode=mode, cval=1.5)
        m = f"mode={mode}"
        add(f"correlate1d__x=x2__{m}__w=1,3,-2,0.5__axis=0__origin=0",
            ndi.correlate1d(X["x2"], [1, 3, -2, 0.5], axis=0, **kw))
        add(f"correlate1d__x=x1__{m}__w=1,3,-2,0.5__axis=0__origin=-1",
            ndi.correlate1d(X["x1"], [1, 3, -2, 0.5], origin=-1, **kw))
        add(f"convolve1d__x=x2__{m}__w=1,3,-2__axis=-1__origin=1",
            ndi.convolve1d(X["x2"], [1, 3, -2], axis=-1, origin=1, **kw))
        add(f"convolve1d__x=x1__{m}__w=1,3,-2,4__axis=0__origin=0",
            ndi.convolve1d(X["x1"], [1, 3, -2, 4], **kw))
        add(f"correlate__x=x2__{m}__w=w2__origin=0,1",
            ndi.correlate(X["x2"], W2, origin=[0, 1], **kw))
        add(f"convolve__x=x3__{m}__w=w3__origin=0",
            ndi.convolve(X["x3"], W3, **kw))
        add(f"convolve__x=x2__{m}__w=w2__origin=-1,1",
            ndi.convolve(X["x2"], W2, origin=[-1, 1], **kw))
        add(f"gaussian_filter__x=x2__{m}__sigma=1.5,0.7__order=0,1",
            ndi.gaussian_filter(X["x2"], [1.5, 0.7], order=[0, 1], **kw))
        add(f"gaussian_filter__x=x3__{m}__sigma=0.8__order=0",
            ndi.gaussian_filter(X["x3"], 0.8, **kw))
        for order in (2, 3):
            add(f"gaussian_filter1d__x=x1__{m}__sigma=1.3__order={order}__axis=0",
                ndi.gaussian_filter1d(X["x1"], 1.3, order=order, **kw))
        add(f"gaussian_filter1d__x=x2__{m}__sigma=2__order=0__axis=1__radius=3",
            ndi.gaussian_filter1d(X["x2"], 2.0, axis=1, radius=3, **kw))
        add(f"gaussian_filter1d__x=x1__{m}__sigma=2__order=1__axis=0__truncate=2",
            ndi.gaussian_filter1d(X["x1"], 2.0, order=1, truncate=2.0, **kw))
        add(f"uniform_filter__x=x2__{m}__size=3,4",
            ndi.uniform_filter(X["x2"], [3, 4], **kw))
        add(f"uniform_filter1d__x=x1__{m}__size=4__axis=0__origin=1",
            ndi.uniform_filter1d(X["x1"], 4, origin=1, **kw))
        add(f"minimum_filter__x=x2__{m}__size=3",
            ndi.minimum_filter(X["x2"], 3, **kw))
        add(f"maximum_filter__x=x2__{m}__fp=fp__origin=0,-1",
            ndi.maximum_filter(X["x2"], footprint=FP, origin=[0, -1], **kw))
        add(f"minimum_filter1d__x=x1__{m}__size=4__axis=0__origin=0",
            ndi.minimum_filter1d(X["x1"], 4, **kw))
        add(f"maximum_filter1d__x=x2__{m}__size=5__axis=0__origin=-2",
            ndi.maximum_filter1d(X["x2"], 5, axis=0, origin=-2, **kw))
        add(f"median_filter__x=x2__{m}__size=3,4",
            ndi.median_filter(X["x2"], size=(3, 4), **kw))
        add(f"median_filter__x=x3__{m}__size=3",
            ndi.median_filter(X["x3"], size=3, **kw))
        add(f"rank_filter__x=x2__{m}__fp=fp__rank=-2",
            ndi.rank_filter(X["x2"], -2, footprint=FP, **kw))
        add(f"percentile_filter__x=x2__{m}__size=4__percentile=30",
            ndi.percentile_filter(X["x2"], 30, size=4, **kw))
        add(f"sobel__x=x2__{m}__axis=0", ndi.sobel(X["x2"], axis=0, **kw))
        add(f"prewitt__x=x3__{m}__axis=1", ndi.prewitt(X["x3"], axis=1, **kw))
        add(f"laplace__x=x2__{m}", ndi.laplace(X["x2"], **kw))
        add(f"gaussian_laplace__x=x2__{m}__sigma=1", ndi.gaussian_laplace(X["x2"], 1.0, **kw))
        add(f"gaussian_gradient_magnitude__x=x2__{m}__sigma=1.2",
            ndi.gaussian_gradient_magnitude(X["x2"], 1.2, **kw))
    savez_fixed(dest / "filters.npz", compressed=True, **A)

    # interpolation.npz, read by crates/ndimage/tests/interpolation_golden.rs
    B: dict[str, np.ndarray] = {}
    B["y1"] = rng(S, "y1").standard_normal(11)
    B["y2"] = rng(S, "y2").standard_normal((7, 8))
    B["y3"] = rng(S, "y3").standard_normal((4, 5, 6))
    B["c1"] = rng(S, "c1").uniform(-4, 15, (1, 40))
    B["c2"] = rng(S, "c2").uniform(-3, 10, (2, 5, 6))
    M2 = np.array([[0.9, -0.3], [0.4, 1.1]])
    k = 0

    def addb(spec: str, y: np.ndarray) -> None:
        nonlocal k
        B[f"c{k:03d}__{spec}"] = np.asarray(y, dtype=np.float64)
        k += 1

    for mode in ("reflect", "constant", "nearest", "mirror", "wrap",
                 "grid-constant", "grid-mirror", "grid-wrap"):
        m = f"mode={mode}"
        for order in range(6):
            kw = dict(order=order, mode=mode, cval=0.75)
            o = f"order={order}"
            addb(f"map_coordinates__x=y1__c=c1__{m}__{o}", ndi.map_coordinates(B["y1"], B["c1"], **kw))
            addb(f"map_coordinates__x=y2__c=c2__{m}__{o}", ndi.map_coordinates(B["y2"], B["c2"], **kw))
            addb(f"zoom__x=y2__{m}__{o}__zoom=1.7,0.6__grid=0", ndi.zoom(B["y2"], [1.7, 0.6], **kw))
            if mode != "constant":
                addb(f"zoom__x=y1__{m}__{o}__zoom=2.3__grid=1", ndi.zoom(B["y1"], 2.3, grid_mode=True, **kw))
            addb(f"shift__x=y2__{m}__{o}__shift=1.3,-2.6", ndi.shift(B["y2"], [1.3, -2.6], **kw))
            addb(f"affine__x=y2__{m}__{o}__offset=0.5,-1__oshape=9,6",
                 ndi.affine_transform(B["y2"], M2, offset=[0.5, -1.0], output_shape=(9, 6), **kw))
            addb(f"rotate__x=y2__{m}__{o}__angle=30__reshape=1", ndi.rotate(B["y2"], 30, **kw))
            addb(f"rotate__x=y3__{m}__{o}__angle=-70__reshape=0",
                 ndi.rotate(B["y3"], -70, axes=(2, 0), reshape=False, **kw))
            if order >= 2:
                addb(f"spline_filter__x=y2__{m}__{o}", ndi.spline_filter(B["y2"], order, mode=mode))
                addb(f"spline_filter1d__x=y3__{m}__{o}__axis=1",
                     ndi.spline_filter1d(B["y3"], order, axis=1, mode=mode))
    savez_fixed(dest / "interpolation.npz", compressed=True, **B)

    # fourier.npz, read by crates/ndimage/tests/fourier.rs: `<fn>__<input>__n=<n>__axis=<a>`
    F: dict[str, np.ndarray] = {}
    g = rng(S, "fourier")
    F["z1"] = np.fft.fft(g.standard_normal(9))
    F["z2"] = np.fft.fft2(g.standard_normal((6, 7)))
    F["z3"] = np.fft.fftn(g.standard_normal((4, 5, 6)))
    F["r2"] = np.fft.rfft(g.standard_normal((6, 10)), axis=1)  # n = 10 on axis 1
    F["r2b"] = np.fft.rfft(g.standard_normal((9, 5)), axis=0)  # n = 9 on axis 0
    vals = {"z1": [1.7], "z2": [1.3, 0.6], "z3": [0.9, 2.1, 1.4], "r2": [1.1, 2.5], "r2b": [0.8, 1.9]}
    nax = {"z1": (-1, -1), "z2": (-1, -1), "z3": (-1, -1), "r2": (10, 1), "r2b": (9, 0)}
    for name, v in vals.items():
        n, ax = nax[name]
        F[f"fourier_gaussian__{name}__n={n}__axis={ax}"] = ndi.fourier_gaussian(F[name], v, n=n, axis=ax)
        F[f"fourier_uniform__{name}__n={n}__axis={ax}"] = ndi.fourier_uniform(F[name], v, n=n, axis=ax)
        F[f"fourier_shift__{name}__n={n}__axis={ax}"] = ndi.fourier_shift(F[name], v, n=n, axis=ax)
        F[f"fourier_ellipsoid__{name}__n={n}__axis={ax}"] = ndi.fourier_ellipsoid(F[name], v, n=n, axis=ax)
        F[f"sizes__{name}"] = np.asarray(v, dtype=np.float64)
    savez_fixed(dest / "fourier.npz", compressed=True, **F)


@section("signal_design", folder="signal")
def gen_signal_design(out: Path) -> None:
    """`design.npz` in crates/signal/tests/data/, read by crates/signal/tests/design_golden.rs
    (issue 7's half of the crate; its own section key so that it does not collide with issue 6's
    `signal` section). Ragged results are packed: `<name>` holds every case's values
    one after another and `<name>_off` the offsets (length cases + 1).

    - `iir_params` (cases x 9): ftype (0 butter, 1 cheby1, 2 cheby2, 3 ellip, 4 bessel), N,
      btype (0 low, 1 high, 2 bandpass, 3 bandstop), analog, Wn[0], Wn[1], rp, rs,
      bessel norm (0 phase, 1 delay, 2 mag); `iir_z`, `iir_p` (zpk output), `iir_k`,
      `iir_b`, `iir_a` (ba output), `iir_sos` (sos output, rows flattened; empty for analog).
    - `fz_*`: freqz of the case `fz_case[i]`'s (b, a) at 64 points, `fzsos_*`: sosfreqz of
      its sos at 64 points with whole=True, `gd_*`: group_delay of its (b, a) at 32 points
      (`gd_exact`: the same delays in 60-digit arithmetic, mpmath).
    - `tr_*`: lp2lp/lp2hp/lp2bp/lp2bs/bilinear of fixed polynomials (see the test)."""
    import scipy
    import scipy.signal as ss

    ftypes = ["butter", "cheby1", "cheby2", "ellip", "bessel"]
    btypes = ["lowpass", "highpass", "bandpass", "bandstop"]
    norms = ["phase", "delay", "mag"]
    params, z, p, k, b, a, sos = [], [], [], [], [], [], []

    def design(fi, n, bi, analog, wn, rp, rs, ni):
        kw = dict(btype=btypes[bi], analog=analog, ftype=ftypes[fi], rp=rp, rs=rs)
        if fi == 4:
            kw["ftype"] = "bessel_" + norms[ni]
        w = wn if bi >= 2 else wn[0]
        zz, pp, kk = ss.iirfilter(n, w, output="zpk", **kw)
        bb, aa = ss.iirfilter(n, w, output="ba", **kw)
        so = np.zeros((0, 6)) if analog else ss.iirfilter(n, w, output="sos", **kw)
        params.append([fi, n, bi, int(analog), wn[0], wn[1], rp, rs, ni])
        z.append(np.asarray(zz, complex)); p.append(np.asarray(pp, complex)); k.append(kk)
        b.append(np.asarray(bb, float)); a.append(np.asarray(aa, float)); sos.append(so.ravel())

    g = rng("signal_design", "iir")
    for fi in range(5):
        for n in range(1, 13):
            for bi in range(4):
                lo = float(g.uniform(0.05, 0.45)); hi = float(g.uniform(lo + 0.1, 0.9))
                rp = float(g.choice([0.1, 0.5, 1.0, 3.0])); rs = float(g.choice([20.0, 40.0, 60.0, 80.0]))
                ni = int(g.integers(0, 3))
                design(fi, n, bi, False, [lo, hi], rp, rs, ni)
        for n in (1, 2, 5, 8):
            for bi in range(4):
                lo = float(g.uniform(0.5, 3.0)); hi = float(g.uniform(lo + 0.5, 10.0))
                rp = float(g.choice([0.1, 0.5, 1.0, 3.0])); rs = float(g.choice([20.0, 40.0, 60.0, 80.0]))
                ni = int(g.integers(0, 3))
                design(fi, n, bi, True, [lo, hi], rp, rs, ni)

    def pack(name, vals, dtype):
        off = np.cumsum([0] + [len(v) for v in vals]).astype(np.int64)
        arrays[name] = np.concatenate([np.asarray(v, dtype).ravel() for v in vals]) if vals else np.zeros(0, dtype)
        arrays[name + "_off"] = off

    arrays: dict[str, np.ndarray] = {}
    arrays["iir_params"] = np.asarray(params, float)
    pack("iir_z", z, complex); pack("iir_p", p, complex); pack("iir_b", b, float)
    pack("iir_a", a, float); pack("iir_sos", sos, float)
    arrays["iir_k"] = np.asarray(k, float)

    # frequency responses of some digital designs (order <= 8 so that ba is well conditioned)
    cases = [i for i, pr in enumerate(params) if pr[3] == 0 and pr[1] <= 8][::7]
    arrays["fz_case"] = np.asarray(cases, np.int64)
    fzw, fzh, fsw, fsh, gdw, gdv = [], [], [], [], [], []
    for i in cases:
        w, h = ss.freqz(b[i], a[i], worN=64)
        fzw.append(w); fzh.append(h)
        w, h = ss.sosfreqz(sos[i].reshape(-1, 6), worN=64, whole=True)
        fsw.append(w); fsh.append(h)
        w, gd = ss.group_delay((b[i], a[i]), w=32)
        gdw.append(w); gdv.append(gd)
    arrays["fz_w"] = np.asarray(fzw); arrays["fz_h"] = np.asarray(fzh)
    arrays["fzsos_w"] = np.asarray(fsw); arrays["fzsos_h"] = np.asarray(fsh)
    arrays["gd_w"] = np.asarray(gdw); arrays["gd"] = np.asarray(gdv)
    # SciPy's group_delay loses up to 1e-3 relative on order-16 (b, a): exact values at 60 digits
    import mpmath as mp
    mp.mp.dps = 60
    gde = []
    for i, ws in zip(cases, gdw):
        row = []
        for wv in ws:
            zz_ = mp.exp(-1j * mp.mpf(wv))
            pb = [mp.mpf(x) * zz_**j for j, x in enumerate(b[i])]
            pa = [mp.mpf(x) * zz_**j for j, x in enumerate(a[i])]
            den_b, den_a = sum(pb), sum(pa)
            if abs(den_b) == 0 or abs(den_a) == 0:
                row.append(0.0)
                continue
            nb_ = sum(j * v for j, v in enumerate(pb)); na_ = sum(j * v for j, v in enumerate(pa))
            row.append(float(mp.re(nb_ / den_b - na_ / den_a)))
        gde.append(row)
    arrays["gd_exact"] = np.asarray(gde)
    # freqz with fs and explicit frequencies, include_nyquist; freqz_zpk; freqs; findfreqs
    b0, a0 = b[cases[1]], a[cases[1]]
    arrays["fz_fs_w"], arrays["fz_fs_h"] = ss.freqz(b0, a0, worN=[0.0, 10.0, 100.0, 333.0, 499.0], fs=1000.0)
    arrays["fz_nyq_w"], arrays["fz_nyq_h"] = ss.freqz(b0, a0, worN=33, include_nyquist=True)
    zz, pp, kk = z[cases[2]], p[cases[2]], k[cases[2]]
    arrays["fzz_case"] = np.asarray([cases[2]], np.int64)
    arrays["fzz_w"], arrays["fzz_h"] = ss.freqz_zpk(zz, pp, kk, worN=40, whole=True)
    an = [i for i, pr in enumerate(params) if pr[3] == 1 and pr[1] <= 5]
    arrays["fs_case"] = np.asarray(an, np.int64)
    arrays["fs_w"] = np.asarray([ss.freqs(b[i], a[i], worN=50)[0] for i in an])
    arrays["fs_h"] = np.asarray([ss.freqs(b[i], a[i], worN=50)[1] for i in an])
    arrays["fszpk_w"] = np.asarray([ss.freqs_zpk(z[i], p[i], k[i], worN=50)[0] for i in an])
    arrays["fszpk_h"] = np.asarray([ss.freqs_zpk(z[i], p[i], k[i], worN=50)[1] for i in an])

    # transforms of polynomials
    tb = np.array([0.5, 1.0, 2.0]); ta = np.array([1.0, 0.7, 1.3, 0.4])
    arrays["tr_lp2lp"] = np.concatenate(ss.lp2lp(tb, ta, wo=2.5))
    arrays["tr_lp2hp"] = np.concatenate(ss.lp2hp(tb, ta, wo=2.5))
    arrays["tr_lp2bp"] = np.concatenate(ss.lp2bp(tb, ta, wo=2.5, bw=0.8))
    arrays["tr_lp2bs"] = np.concatenate(ss.lp2bs(tb, ta, wo=2.5, bw=0.8))
    arrays["tr_bilinear"] = np.concatenate(ss.bilinear(tb, ta, fs=3.0))
    arrays["tr_lens"] = np.asarray([len(x) for f in (ss.lp2lp(tb, ta, 2.5), ss.lp2hp(tb, ta, 2.5),
                                     ss.lp2bp(tb, ta, 2.5, 0.8), ss.lp2bs(tb, ta, 2.5, 0.8),
                                     ss.bilinear(tb, ta, 3.0)) for x in f], np.int64)
    # FIR design, Kaiser formulas, notch/peak/comb: `fir_<k>` = firwin case k (see the test)
    fir_cases = [
        (31, [0.3], {}), (32, [0.3], {}), (1, [0.5], {}), (33, [0.2, 0.5], {"pass_zero": False}),
        (33, [0.2, 0.5], {}), (41, [0.4], {"pass_zero": False}), (25, [0.1, 0.3, 0.6], {}),
        (51, [0.25], {"width": 0.1}), (30, [100.0], {"fs": 1000.0}),
        (21, [0.3], {"window": "hann"}), (21, [0.3], {"window": "blackman"}),
        (21, [0.3], {"window": "boxcar", "scale": False}), (21, [0.3], {"window": ("kaiser", 5.5)}),
        (35, [0.2, 0.7], {"pass_zero": False, "window": "hann"}),
    ]
    for j, (n, c, kw) in enumerate(fir_cases):
        arrays[f"fir_{j}"] = ss.firwin(n, c, **kw)
    arrays["kaiser_beta"] = np.asarray([ss.kaiser_beta(a) for a in (10.0, 21.0, 30.0, 50.0, 65.0, 120.0)])
    arrays["kaiser_atten"] = np.asarray([ss.kaiser_atten(n, w) for n, w in ((11, 0.1), (101, 0.05), (2, 0.3))])
    arrays["kaiserord"] = np.asarray([ss.kaiserord(r, w) for r, w in ((65.0, 0.05), (8.5, 0.3), (120.0, 0.01))])
    arrays["iirnotch"] = np.concatenate(ss.iirnotch(60.0, 30.0, fs=1000.0))
    arrays["iirpeak"] = np.concatenate(ss.iirpeak(0.3, 5.0))
    arrays["iircomb_notch"] = np.concatenate(ss.iircomb(20.0, 30.0, ftype="notch", fs=200.0))
    arrays["iircomb_peak"] = np.concatenate(ss.iircomb(250.0, 30.0, ftype="peak", fs=1000.0, pass_zero=True))
    arrays["gammatone_fir"] = np.concatenate(ss.gammatone(440, "fir", numtaps=16, fs=16000))
    arrays["gammatone_fir_default"] = np.concatenate(ss.gammatone(0.2, "fir", order=3))
    arrays["gammatone_iir"] = np.concatenate(ss.gammatone(440, "iir", fs=16000))
    arrays["version_scipy"] = np.frombuffer(scipy.__version__.encode(), dtype=np.uint8)
    savez_fixed(out / "design.npz", compressed=True, **arrays)
    gen_signal_analysis(out)


def gen_signal_analysis(out: Path) -> None:
    """`analysis.npz` (part of the `signal_design` section), read by crates/signal/tests/
    {waveforms,peaks}.rs: waveforms at stored times `t_*`, max_len_seq, find_peaks cases
    `fp_<case>_<key>` (peaks, then each property SciPy reports; `fp_<case>_keys` lists them,
    comma-separated bytes) on the signals `fp_x` (with plateaus) and `fp_xd` (no ties),
    argrelextrema results as (ndim, m) int64 on `ar_a`."""
    import scipy.signal as ss

    S = "signal_analysis"
    A: dict[str, np.ndarray] = {}
    t = np.linspace(0.0, 2.0, 101)
    A["t_chirp"] = t
    for m in ["linear", "quadratic", "logarithmic", "hyperbolic"]:
        A[f"chirp_{m}"] = ss.chirp(t, 1.5, 2.0, 6.0, method=m, phi=30.0)
    A["chirp_quadratic_vz0"] = ss.chirp(t, 1.5, 2.0, 6.0, method="quadratic", phi=30.0, vertex_zero=False)
    A["chirp_log_const"] = ss.chirp(t, 3.0, 2.0, 3.0, method="logarithmic")
    A["sweep_poly"] = ss.sweep_poly(t, np.poly1d([0.5, -1.0, 2.0, 3.0]), phi=10.0)
    tg = np.linspace(-1e-3, 1e-3, 101)
    A["t_gauss"] = tg
    yi, yq, ye = ss.gausspulse(tg, fc=5000, bw=0.6, bwr=-3, retquad=True, retenv=True)
    A["gauss_yi"], A["gauss_yq"], A["gauss_env"] = yi, yq, ye
    A["gauss_cutoff"] = np.array([ss.gausspulse("cutoff", fc=1000, bw=0.5, bwr=-6, tpr=-60)])
    ts = np.linspace(-10.0, 10.0, 203)
    A["t_saw"] = ts
    A["sawtooth_03"] = ss.sawtooth(ts, 0.3)
    A["sawtooth_1"] = ss.sawtooth(ts)
    A["square_03"] = ss.square(ts, 0.3)
    seq, st = ss.max_len_seq(5)
    A["mls5_seq"], A["mls5_state"] = seq.astype(np.uint8), st.astype(np.uint8)
    seq, st = ss.max_len_seq(4, state=[1, 0, 1, 1], length=20, taps=[3, 1])
    A["mls4_seq"], A["mls4_state"] = seq.astype(np.uint8), st.astype(np.uint8)

    r = rng(S, "fp")
    x = np.round(np.cumsum(r.normal(size=400)) / 3.0, 1)
    xd = r.normal(size=400)
    A["fp_x"], A["fp_xd"] = x, xd
    cases = {
        "plain": (x, {}),
        "plateau": (x, dict(plateau_size=(2, None))),
        "height": (x, dict(height=(0.0, 2.0))),
        "thr": (x, dict(threshold=0.2)),
        "dist": (xd, dict(distance=5.5)),
        "prom": (x, dict(prominence=1.0, wlen=21)),
        "width": (x, dict(width=(1, 5), rel_height=0.7)),
        "all": (xd, dict(height=-0.5, threshold=(0.05, None), distance=3, prominence=(0.3, 3),
                         width=1, wlen=31.5, rel_height=0.4, plateau_size=1)),
    }
    for name, (sig, kw) in cases.items():
        pk, props = ss.find_peaks(sig, **kw)
        A[f"fp_{name}_peaks"] = pk.astype(np.int64)
        keys = sorted(props)
        A[f"fp_{name}_keys"] = np.frombuffer(",".join(keys).encode(), dtype=np.uint8)
        for k in keys:
            v = props[k]
            A[f"fp_{name}_{k}"] = v.astype(np.int64) if v.dtype.kind == "i" else v.astype(np.float64)
    a = np.round(r.normal(size=(3, 40)), 1)
    A["ar_a"] = a
    A["ar_max_ax1_o2"] = np.array(ss.argrelmax(a, axis=1, order=2), dtype=np.int64)
    A["ar_min_ax0_wrap"] = np.array(ss.argrelmin(a, axis=0, order=1, mode="wrap"), dtype=np.int64)
    A["ar_ge_ax1_o3"] = np.array(ss.argrelextrema(a, np.greater_equal, axis=1, order=3), dtype=np.int64)
    A["ar_max_1d_wrap"] = np.array(ss.argrelmax(a[0], order=3, mode="wrap"), dtype=np.int64)
    savez_fixed(out / "analysis.npz", compressed=True, **A)


@section("signal_splines", folder="signal")
def gen_signal_splines(out: Path) -> None:
    """`splines.npz` in crates/signal/tests/data/, read by crates/signal/tests/splines.rs
    (issue 7: B-splines, wavelets, zoom FFT). Splines and zoom_fft come from the installed SciPy.
    cwt, morlet, morlet2 and ricker left SciPy in 1.15 (CuPy keeps them): their values come from
    the naive references below, written from SciPy 1.14's documented formulas."""
    import scipy.signal as ss

    S = "signal_splines"
    A: dict[str, np.ndarray] = {}
    r = rng(S, "x")
    x = r.normal(size=40)
    A["x"] = x
    for n in [1, 2, 3, 33]:
        A[f"cs1d_{n}"] = ss.cspline1d(x[:n])
        A[f"qs1d_{n}"] = ss.qspline1d(x[:n])
    for lam in ["0.5", "5.0"]:
        A[f"cs1d_lam{lam}"] = ss.cspline1d(x, float(lam))
    A["cs1d_lam0.5_n3"] = ss.cspline1d(x[:3], 0.5)
    xc = x[:17] + 1j * r.normal(size=17)
    A["xc"] = xc
    A["cs1d_c"] = ss.cspline1d(xc)
    A["qs1d_c"] = ss.qspline1d(xc)
    newx = np.linspace(-30.0, 70.0, 121)
    A["newx"] = newx
    cj = ss.cspline1d(x[:33])
    A["cs1d_eval"] = ss.cspline1d_eval(cj, newx, dx=0.7, x0=-1.5)
    A["cs1d_eval_plain"] = ss.cspline1d_eval(cj, newx)
    qj = ss.qspline1d(x[:33])
    A["qs1d_eval"] = ss.qspline1d_eval(qj, newx, dx=1.3, x0=2.0)
    img = r.normal(size=(14, 20))
    A["img"] = img
    A["cs2d"] = ss.cspline2d(img)
    A["cs2d_lam"] = ss.cspline2d(img, 0.05)
    A["cs2d_prec"] = ss.cspline2d(img, 0.0, 1e-3)
    A["qs2d"] = ss.qspline2d(img)
    A["cs2d_f32"] = ss.cspline2d(img.astype(np.float32)).astype(np.float64)
    img2 = r.normal(size=(30, 34))
    A["img2"] = img2
    A["sf"] = ss.spline_filter(img2)
    A["sf_lam0.5"] = ss.spline_filter(img2, 0.5)
    A["sf_f32"] = ss.spline_filter(img2.astype(np.float32)).astype(np.float64)
    imgc = img2[:, :17] + 1j * img2[:, 17:]
    A["imgc"] = imgc
    A["sf_c"] = ss.spline_filter(imgc, 0.0)  # SciPy refuses complex input when lmbda > 1/144
    A["cs2d_c"] = ss.cspline2d(imgc)
    tg = np.linspace(-3.0, 3.0, 13)
    A["tg"] = tg
    A["gs_0"] = ss.gauss_spline(tg, 0)
    A["gs_3"] = ss.gauss_spline(tg, 3)

    # wavelets: SciPy 1.14's definitions
    def ricker(points, a):
        amp = 2 / (np.sqrt(3 * a) * (np.pi ** 0.25))
        vec = np.arange(0, points) - (points - 1.0) / 2
        xsq = vec ** 2
        return amp * (1 - xsq / a ** 2) * np.exp(-xsq / (2 * a ** 2))

    def morlet(m, w=5.0, s=1.0, complete=True):
        t = np.linspace(-s * 2 * np.pi, s * 2 * np.pi, m)
        o = np.exp(1j * w * t)
        if complete:
            o -= np.exp(-0.5 * (w ** 2))
        return o * np.exp(-0.5 * (t ** 2)) * np.pi ** (-0.25)

    def morlet2(m, s, w=5):
        t = (np.arange(0, m) - (m - 1.0) / 2) / s
        return np.sqrt(1 / s) * np.exp(1j * w * t) * np.exp(-0.5 * t ** 2) * np.pi ** (-0.25)

    def cwt(data, wavelet, widths, **kw):
        cplx = np.asarray(wavelet(1, widths[0], **kw)).dtype.kind == "c"
        o = np.empty((len(widths), len(data)), dtype=np.complex128 if cplx else np.float64)
        for i, wd in enumerate(widths):
            n = np.min([10 * wd, len(data)])
            k = np.conj(wavelet(n, wd, **kw)[::-1])
            o[i] = np.convolve(data, k, mode="same")
        return o

    for p, a in [(1, 1.0), (10, 4.0), (33, 2.5)]:
        A[f"ricker_{p}_{a}"] = ricker(p, a)
    A["morlet_16"] = morlet(16)
    A["morlet_17_b"] = morlet(17, 3.0, 0.5, False)
    A["morlet_1"] = morlet(1)
    A["morlet2_20"] = morlet2(20, 3.0)
    A["morlet2_7"] = morlet2(7, 1.5, 6.0)
    d = r.normal(size=64)
    A["cwt_x"] = d
    A["cwt_ricker"] = cwt(d, ricker, [1, 2, 3, 5, 8, 0.75])
    A["cwt_morlet2"] = cwt(d, morlet2, [1, 2, 4], w=6.0)
    A["cwt_short"] = cwt(d[:7], ricker, [0.5, 1, 2])

    # zoom FFT
    z = r.normal(size=50) + 1j * r.normal(size=50)
    A["zx"] = z
    A["zoom_a"] = ss.zoom_fft(z, [0.1, 0.6], m=37)
    A["zoom_b"] = ss.zoom_fft(z, [-0.3, 0.9], m=64, fs=3.0, endpoint=True)
    A["zoom_c"] = ss.zoom_fft(z, 0.5)
    A["zoom_d"] = ss.zoom_fft(z, [0.2, 1.9], m=80, fs=2.0)
    z2 = r.normal(size=(50, 3)) + 1j * r.normal(size=(50, 3))
    A["zx2"] = z2
    A["zoom_axis0"] = ss.zoom_fft(z2, [0.0, 0.25], m=11, axis=0)
    savez_fixed(out / "splines.npz", compressed=True, **A)


# --------------------------------------------------------------------------------------------
# cusci-signal (issue 6): filtering, convolution, resampling, spectral analysis, windows
# --------------------------------------------------------------------------------------------


@section("signal")
def gen_signal_processing(out: Path) -> None:
    """`processing.npz`, read by crates/signal/tests/{filter,convolve,medfilt,windows}.rs.

    - `ba_b`, `ba_a` = butter(4, 0.2); `sos` = butter(8, 0.1, output="sos"); `x` (3, 64) normal;
      `lfilter_y` = lfilter(ba_b, ba_a, x); `lfilter_zi` = lfilter_zi(ba_b, ba_a);
      `lfilter_zi_y`, `lfilter_zi_zf` = lfilter(ba_b, ba_a, x, zi=lfilter_zi * x[:, :1]);
      `sosfilt_y` = sosfilt(sos, x); `sosfilt_zi` = sosfilt_zi(sos);
      `sosfilt_ax0_y` = sosfilt(sos, x.T, axis=0);
    - `cv_a` (37,), `cv_v` (8,): `convolve_<mode>`, `correlate_<mode>` (modes full, same, valid);
    - `cv2_a` (9, 11), `cv2_k` (3, 4): `convolve2d_<mode>_<boundary>`, `correlate2d_<mode>_fill`;
    - `med_x` (41,): `medfilt_k<k>` = medfilt(med_x, k) for k in 1, 3, 5, 7;
    - `win_<name>_<n>` = get_window(name, n) (periodic), `winsym_<name>_<n>` = sym=True.
    """
    import scipy.signal as ss
    import scipy.signal.windows as sw

    r = rng("signal", "x")
    a = {}
    b, aa = ss.butter(4, 0.2)
    sos = ss.butter(8, 0.1, output="sos")
    x = r.standard_normal((3, 64))
    a["ba_b"], a["ba_a"], a["sos"], a["x"] = b, aa, sos, x
    a["lfilter_y"] = ss.lfilter(b, aa, x)
    zi = ss.lfilter_zi(b, aa)
    a["lfilter_zi"] = zi
    a["lfilter_zi_y"], a["lfilter_zi_zf"] = ss.lfilter(b, aa, x, zi=zi[None, :] * x[:, :1])
    a["sosfilt_y"] = ss.sosfilt(sos, x)
    a["sosfilt_zi"] = ss.sosfilt_zi(sos)
    a["sosfilt_ax0_y"] = ss.sosfilt(sos, x.T, axis=0)
    cva, cvv = r.standard_normal(37), r.standard_normal(8)
    a["cv_a"], a["cv_v"] = cva, cvv
    for mode in ("full", "same", "valid"):
        a[f"convolve_{mode}"] = ss.convolve(cva, cvv, mode=mode, method="direct")
        a[f"correlate_{mode}"] = ss.correlate(cva, cvv, mode=mode, method="direct")
    c2a, c2k = r.standard_normal((9, 11)), r.standard_normal((3, 4))
    a["cv2_a"], a["cv2_k"] = c2a, c2k
    for mode in ("full", "same", "valid"):
        for bd in ("fill", "wrap", "symm"):
            a[f"convolve2d_{mode}_{bd}"] = ss.convolve2d(c2a, c2k, mode=mode, boundary=bd)
        a[f"correlate2d_{mode}_fill"] = ss.correlate2d(c2a, c2k, mode=mode)
    mx = r.standard_normal(41)
    a["med_x"] = mx
    for k in (1, 3, 5, 7):
        a[f"medfilt_k{k}"] = ss.medfilt(mx, k)
    for name in ("hann", "hamming", "blackman", "bartlett", "boxcar", "triang", "flattop",
                 "parzen", "bohman", "blackmanharris", "nuttall", "barthann", "cosine",
                 "exponential", "tukey", "lanczos"):
        for n in (1, 2, 7, 16):
            a[f"win_{name}_{n}"] = ss.get_window(name, n)
            a[f"winsym_{name}_{n}"] = ss.get_window(name, n, fftbins=False)
    for n in (1, 7, 16):
        a[f"win_kaiser8_{n}"] = ss.get_window(("kaiser", 8.0), n)
        a[f"win_gaussian2.5_{n}"] = ss.get_window(("gaussian", 2.5), n)
        a[f"win_general_hamming0.7_{n}"] = ss.get_window(("general_hamming", 0.7), n)
    # resampling, filtfilt, lfiltic (crates/signal/tests/{resample,filtfilt}.rs):
    # `ufd_x` (2, 23), `ufd_h` (7,): `upfirdn_<up>_<down>` (constant), `upfirdn_3_2_<mode>`,
    # `upfirdn_3_2_cval` (cval 1.5), `upfirdn_ax0` (x.T, axis 0, 2/3);
    # `rp_x` (2, 40): `resample_poly_<up>_<down>_<padtype>`, `resample_poly_cval` (3/2, cval 2),
    # `resample_poly_taps` (3/2, window hann(9) taps), `resample_poly_hamming` (2/3, hamming);
    # `filtfilt_<pad>` / `sosfiltfilt_<pad>` on x (ba_b/ba_a, sos), `filtfilt_padlen5`,
    # `filtfilt_ax0` (x.T, axis 0); `lfiltic_zi` = lfiltic(ba_b, ba_a, [0.5, -1, 2], [1, 0.3]).
    ru = rng("signal", "resample")
    ux, uh = ru.standard_normal((2, 23)), ru.standard_normal(7)
    a["ufd_x"], a["ufd_h"] = ux, uh
    for up, down in ((1, 1), (3, 2), (2, 3), (1, 4), (4, 1), (5, 3)):
        a[f"upfirdn_{up}_{down}"] = ss.upfirdn(uh, ux, up, down)
    for mode in ("edge", "line", "wrap", "symmetric", "reflect"):
        a[f"upfirdn_3_2_{mode}"] = ss.upfirdn(uh, ux, 3, 2, mode=mode)
    a["upfirdn_3_2_cval"] = ss.upfirdn(uh, ux, 3, 2, mode="constant", cval=1.5)
    a["upfirdn_ax0"] = ss.upfirdn(uh, ux.T, 2, 3, axis=0)
    rx = ru.standard_normal((2, 40))
    a["rp_x"] = rx
    for up, down in ((3, 2), (2, 3), (1, 2), (5, 1), (4, 6)):
        for pt in ("constant", "line", "mean", "median", "maximum", "minimum", "edge",
                   "wrap", "symmetric", "reflect"):
            a[f"resample_poly_{up}_{down}_{pt}"] = ss.resample_poly(rx, up, down, axis=-1,
                                                                    padtype=pt)
    a["resample_poly_cval"] = ss.resample_poly(rx, 3, 2, cval=2.0)
    a["resample_poly_taps"] = ss.resample_poly(rx, 3, 2, window=ss.get_window("hann", 9))
    a["resample_poly_hamming"] = ss.resample_poly(rx, 2, 3, window="hamming")
    for pt in ("odd", "even", "constant", None):
        a[f"filtfilt_{pt}"] = ss.filtfilt(b, aa, x, padtype=pt)
        a[f"sosfiltfilt_{pt}"] = ss.sosfiltfilt(sos, x, padtype=pt)
    a["filtfilt_padlen5"] = ss.filtfilt(b, aa, x, padlen=5)
    a["filtfilt_ax0"] = ss.filtfilt(b, aa, x.T, axis=0)
    a["lfiltic_zi"] = ss.lfiltic(b, aa, [0.5, -1.0, 2.0], [1.0, 0.3])
    savez_fixed(out / "processing.npz", compressed=True, **a)

@section("signal_processing2", folder="signal")
def gen_signal_processing2(out: Path) -> None:
    """`processing2.npz` in crates/signal/tests/data/, read by crates/signal/tests/processing2.rs.

    - `dt_x` (3, 50) normal + ramps: `detrend_linear`, `detrend_constant`, `detrend_bp` (bp 10, 30),
      `detrend_ax0` (dt_x.T, axis 0, linear), `detrend_bp_1pt` (bp 49: a one-point piece);
    - `rs_x` (2, 24), `rs_c` (24,) complex: `resample_<num>` (num 7, 12, 24, 31, 48) and
      `resample_c_<num>` (complex), `resample_win` (num 16, window fftshift(hann(24)));
    - `dc_x` (2, 200): `decimate_iir_<q>` (q 2, 5), `decimate_fir_<q>`, `decimate_iir_nzp_3`,
      `decimate_fir_nzp_3` (zero_phase False);
    - `sg_x` (2, 40): `savgol_coeffs_<w>_<p>` (w 5/7/11, p 2/3), `savgol_coeffs_d1` (7, 3, deriv 1,
      delta 0.5), `savgol_coeffs_pos` (7, 2, pos 1), `savgol_coeffs_conv` (7, 2, use conv),
      `savgol_<mode>` (11, 3) for modes interp/mirror/constant/nearest/wrap, `savgol_d2` (9, 4,
      deriv 2, interp), `savgol_ax0` (sg_x.T, 7, 2, axis 0);
    - `nd_a` (5, 6, 7), `nd_b` (3, 2, 4): `fftconvolve_nd_<mode>`, `fftconvolve_ax_<mode>`
      (axes (0, 2) with b (3, 1, 4)... see the code), `oaconvolve_<mode>` (1-D, oa_a (300,),
      oa_b (21,)), `correlate_nd_<mode>`;
    - `m2_x` (9, 12): `medfilt2d_<k>` (3x3, 5x3), `order_filter_<r>` (domain 3x3 ones, ranks 0/4/8),
      `order_filter_cross` (cross domain, rank 2), `wiener_<k>` (3x3, 5x5), `wiener_noise` (noise 0.5),
      `wiener_1d` (1-D, size 5);
    - `h2_x` (6, 8): `hilbert2` (complex);
    - `ls_t` (60,) sorted uniform times, `ls_y`, `ls_f` (30,): `lombscargle`, `lombscargle_norm`
      (normalize=True), `lombscargle_pre` (precenter), `lombscargle_fm` (floating_mean),
      `lombscargle_w` (weights `ls_w`);
    - `vs_e` (50,) event times, `vs_p` (4,): `vs_strength`, `vs_phase`;
    - `dcv_sig` (12,), `dcv_div` (4,): `deconvolve_q`, `deconvolve_r`.
    """
    import scipy.signal as ss

    r = rng("signal", "processing2")
    a = {}
    t = np.arange(50)
    dx = r.standard_normal((3, 50)) + np.array([[0.1], [-2.0], [0.5]]) * t + np.array([[1.0], [4.0], [-3.0]])
    a["dt_x"] = dx
    a["detrend_linear"] = ss.detrend(dx)
    a["detrend_constant"] = ss.detrend(dx, type="constant")
    a["detrend_bp"] = ss.detrend(dx, bp=[10, 30])
    a["detrend_ax0"] = ss.detrend(dx.T, axis=0)
    a["detrend_bp_1pt"] = ss.detrend(dx, bp=[49])
    rx = r.standard_normal((2, 24))
    rc = r.standard_normal(24) + 1j * r.standard_normal(24)
    a["rs_x"], a["rs_c"] = rx, rc
    for num in (7, 12, 24, 31, 48):
        a[f"resample_{num}"] = ss.resample(rx, num, axis=-1)
        a[f"resample_c_{num}"] = ss.resample(rc, num)
    a["resample_win"] = ss.resample(rx, 16, axis=-1, window=np.fft.fftshift(ss.get_window("hann", 24)))
    dcx = r.standard_normal((2, 200))
    a["dc_x"] = dcx
    for q in (2, 5):
        a[f"decimate_iir_{q}"] = ss.decimate(dcx, q)
        a[f"decimate_fir_{q}"] = ss.decimate(dcx, q, ftype="fir")
    a["decimate_iir_nzp_3"] = ss.decimate(dcx, 3, zero_phase=False)
    a["decimate_fir_nzp_3"] = ss.decimate(dcx, 3, ftype="fir", zero_phase=False)
    sx = r.standard_normal((2, 40)) + np.linspace(0, 3, 40) ** 2
    a["sg_x"] = sx
    for w in (5, 7, 11):
        for p in (2, 3):
            a[f"savgol_coeffs_{w}_{p}"] = ss.savgol_coeffs(w, p)
    a["savgol_coeffs_d1"] = ss.savgol_coeffs(7, 3, deriv=1, delta=0.5)
    a["savgol_coeffs_pos"] = ss.savgol_coeffs(7, 2, pos=1)
    a["savgol_coeffs_conv"] = ss.savgol_coeffs(7, 2, pos=1, use="conv")
    for mode in ("interp", "mirror", "constant", "nearest", "wrap"):
        a[f"savgol_{mode}"] = ss.savgol_filter(sx, 11, 3, mode=mode)
    a["savgol_cval"] = ss.savgol_filter(sx, 11, 3, mode="constant", cval=1.5)
    a["savgol_d2"] = ss.savgol_filter(sx, 9, 4, deriv=2, delta=0.25)
    a["savgol_ax0"] = ss.savgol_filter(sx.T, 7, 2, axis=0)
    na, nb = r.standard_normal((5, 6, 7)), r.standard_normal((3, 2, 4))
    a["nd_a"], a["nd_b"] = na, nb
    nb1 = r.standard_normal((3, 1, 4))
    a["nd_b1"] = nb1
    for mode in ("full", "same", "valid"):
        a[f"fftconvolve_nd_{mode}"] = ss.fftconvolve(na, nb, mode=mode)
        a[f"fftconvolve_ax_{mode}"] = ss.fftconvolve(na, nb1, mode=mode, axes=(0, 2))
        a[f"correlate_nd_{mode}"] = ss.correlate(na, nb, mode=mode, method="direct")
        a[f"convolve_nd_{mode}"] = ss.convolve(na, nb, mode=mode, method="direct")
    oa, ob = r.standard_normal(300), r.standard_normal(21)
    a["oa_a"], a["oa_b"] = oa, ob
    for mode in ("full", "same", "valid"):
        a[f"oaconvolve_{mode}"] = ss.oaconvolve(oa, ob, mode=mode)
    mx = r.standard_normal((9, 12))
    a["m2_x"] = mx
    a["medfilt2d_3x3"] = ss.medfilt2d(mx, 3)
    a["medfilt2d_5x3"] = ss.medfilt2d(mx, [5, 3])
    for rk in (0, 4, 8):
        a[f"order_filter_{rk}"] = ss.order_filter(mx, np.ones((3, 3)), rk)
    a["order_filter_cross"] = ss.order_filter(mx, np.array([[0, 1, 0], [1, 1, 1], [0, 1, 0]]), 2)
    a["wiener_3x3"] = ss.wiener(mx)
    a["wiener_5x5"] = ss.wiener(mx, 5)
    a["wiener_noise"] = ss.wiener(mx, [3, 5], noise=0.5)
    a["wiener_1d"] = ss.wiener(mx[0], 5)
    hr, hc = r.standard_normal(5), r.standard_normal(3)
    a["sep_hr"], a["sep_hc"] = hr, hc
    a["sepfir2d"] = ss.sepfir2d(mx, hr, hc)
    hx = r.standard_normal((6, 8))
    a["h2_x"] = hx
    a["hilbert2"] = ss.hilbert2(hx)
    lt = np.sort(r.uniform(0, 10, 60))
    ly = np.sin(2.1 * lt) + 0.3 * r.standard_normal(60) + 0.7
    lf = np.linspace(0.2, 5.0, 30)
    lw = r.uniform(0.5, 2.0, 60)
    a["ls_t"], a["ls_y"], a["ls_f"], a["ls_w"] = lt, ly, lf, lw
    a["lombscargle"] = ss.lombscargle(lt, ly, lf)
    a["lombscargle_norm"] = ss.lombscargle(lt, ly, lf, normalize=True)
    a["lombscargle_pre"] = ss.lombscargle(lt, ly, lf, precenter=True)
    a["lombscargle_fm"] = ss.lombscargle(lt, ly, lf, floating_mean=True)
    a["lombscargle_w"] = ss.lombscargle(lt, ly, lf, weights=lw)
    ve = np.sort(r.uniform(0, 20, 50))
    vp = np.array([0.7, 1.0, 2.5, 3.3])
    a["vs_e"], a["vs_p"] = ve, vp
    a["vs_strength"], a["vs_phase"] = ss.vectorstrength(ve, vp)
    sig = r.standard_normal(12)
    div = np.array([1.0, 0.5, -0.25, 0.1])
    a["dcv_sig"], a["dcv_div"] = sig, div
    a["deconvolve_q"], a["deconvolve_r"] = ss.deconvolve(sig, div)
    savez_fixed(out / "processing2.npz", compressed=True, **a)

@section("signal_spectral", folder="signal")
def gen_signal_spectral(out: Path) -> None:
    """`spectral.npz` in crates/signal/tests/data/, read by crates/signal/tests/{spectral,windows}.rs.

    - `x`, `y` (2, 240) normal; `welch_<case>`, `csd_<case>_{re,im}`, `coh_<case>`,
      `per_<case>`, `spec_<mode>[_{re,im}]`, `stft_<case>_{re,im}` (+ `_f`, `_t` where noted),
      `istft_<case>`: SciPy's results for the options named in crates/signal/tests/spectral.rs;
    - `wx_<name>_<n>` (periodic) and `wxsym_<name>_<n>` (symmetric) windows with parameters.
    """
    import scipy.signal as ss
    import scipy.signal.windows as sw

    r = rng("signal_spectral", "x")
    x = r.standard_normal((2, 240))
    y = 0.5 * x + r.standard_normal((2, 240))
    a = {"x": x, "y": y}
    wcases = {
        "default64": dict(nperseg=64),
        "lin_spec": dict(nperseg=50, noverlap=10, nfft=64, window="hamming", detrend="linear",
                         scaling="spectrum"),
        "nodetrend_odd": dict(nperseg=33, detrend=False, window=("kaiser", 6.0)),
        "median": dict(nperseg=40, average="median"),
        "median_even": dict(nperseg=60, noverlap=0, average="median"),
        "twosided": dict(nperseg=32, return_onesided=False),
        "fs": dict(nperseg=64, fs=1000.0),
        "long": dict(nperseg=512),
        "array_win": dict(window=np.linspace(0.1, 1.0, 20)),
    }
    for name, kw in wcases.items():
        f, p = ss.welch(x, **kw)
        a[f"welch_{name}"], a[f"welch_{name}_f"] = p, f
    a["welch_ax0"] = ss.welch(x.T, nperseg=64, axis=0)[1]
    for name in ("default64", "median", "twosided", "lin_spec"):
        f, p = ss.csd(x, y, **wcases[name])
        a[f"csd_{name}_re"], a[f"csd_{name}_im"] = p.real, p.imag
    a["coh_default64"] = ss.coherence(x, y, nperseg=64)[1]
    for name, kw in {"default": {}, "nfft200": dict(nfft=200), "nfft400": dict(nfft=400),
                     "hann_spec": dict(window="hann", scaling="spectrum"),
                     "lin": dict(detrend="linear")}.items():
        a[f"per_{name}"] = ss.periodogram(x, **kw)[1]
    for mode in ("psd", "complex", "magnitude", "angle", "phase"):
        f, t, s = ss.spectrogram(x, nperseg=64, mode=mode)
        if mode == "complex":
            a[f"spec_{mode}_re"], a[f"spec_{mode}_im"] = s.real, s.imag
        else:
            a[f"spec_{mode}"] = s
        a["spec_t"] = t
    a["spec_default"] = ss.spectrogram(x)[2]
    a["spec_ax0"] = ss.spectrogram(x.T, nperseg=64, axis=0)[2]
    scases = {
        "default64": dict(nperseg=64),
        "even": dict(nperseg=48, boundary="even", noverlap=40),
        "odd": dict(nperseg=48, boundary="odd", padded=False),
        "constant": dict(nperseg=31, boundary="constant", window="blackman"),
        "none": dict(nperseg=64, boundary=None, padded=False, scaling="psd"),
        "nopad": dict(nperseg=70, boundary=None, padded=True, detrend="linear", nfft=80),
    }
    for name, kw in scases.items():
        f, t, z = ss.stft(x, **kw)
        a[f"stft_{name}_re"], a[f"stft_{name}_im"] = z.real, z.imag
        a[f"stft_{name}_t"] = t
    _, z = ss.stft(x, nperseg=64)[1:]
    a["istft_default64"] = ss.istft(z, nperseg=64)[1]
    _, _, z = ss.stft(x, nperseg=48, noverlap=40, window="hamming", scaling="psd")
    a["istft_ham48"] = ss.istft(z, nperseg=48, noverlap=40, window="hamming", scaling="psd")[1]
    a["istft_noboundary"] = ss.istft(ss.stft(x, nperseg=64)[2], boundary=False)[1]
    cola = []
    for w, n, ov in (("hann", 256, 128), ("hann", 256, 0), ("boxcar", 64, 0), ("hamming", 64, 32),
                     ("blackman", 90, 60), ("bartlett", 50, 25), ("hann", 99, 33)):
        cola.append([ss.check_COLA(w, n, ov), ss.check_NOLA(w, n, ov)])
    a["cola_nola"] = np.array(cola, dtype=np.float64)
    wins = {
        "chebwin50": ("chebwin", 50), "chebwin100": ("chebwin", 100),
        "taylor": ("taylor",), "taylor_6_40_nonorm": ("taylor", 6, 40, False),
        "general_cosine": ("general_cosine", [0.5, 0.3, 0.2]),
        "general_gaussian": ("general_gaussian", 1.5, 2.0),
        "exponential_tau3": ("exponential", None, 3.0),
        "tukey0": ("tukey", 0.0), "tukey1": ("tukey", 1.0), "tukey0.3": ("tukey", 0.3),
        "kaiser14": ("kaiser", 14.0), "gaussian1": ("gaussian", 1.0),
    }
    for key, spec in wins.items():
        for n in (1, 2, 7, 16, 33):
            a[f"wx_{key}_{n}"] = ss.get_window(spec, n)
            a[f"wxsym_{key}_{n}"] = ss.get_window(spec, n, fftbins=False)
    for n in (2, 8, 16):
        a[f"wxsym_kbd4_{n}"] = sw.kaiser_bessel_derived(n, 4.0)
    a["wx_exp_center_9"] = sw.exponential(9, center=2.0, tau=1.5, sym=False)
    savez_fixed(out / "spectral.npz", compressed=True, **a)


@section("signal_shortfft", folder="signal")
def gen_signal_shortfft(out: Path) -> None:
    """`shortfft.npz` and `envelope.npz` in crates/signal/tests/data/, read by
    crates/signal/tests/{shortfft,envelope}.rs.

    shortfft.npz: per case `<c>`: `<c>_win` (real) or `<c>_win_{re,im}`, `<c>_x` or `<c>_x_{re,im}`,
    `<c>_S_{re,im}` (stft / stft_detrend with the options written in shortfft.rs),
    `<c>_props` (int64: p_min, p_max(n), k_min, k_max(n), lower_border_end (2),
    upper_border_begin(n) (2), p_num(n), f_pts), `<c>_f`, `<c>_t`, `<c>_dual[_{re,im}]`,
    `<c>_istft[_{re,im}]` (istft of the golden S with k1=n), `<c>_spec` (spectrogram);
    `cd_<i>_{win,des,dual,alpha}`: closest_STFT_dual_window cases.
    envelope.npz: `env_x` (2, 64) normal, `env_xc` (2, 50) complex; `env_<case>_{env,res}`
    (complex residuals as `_res_{re,im}`); `ls_amp_{re,im}` lombscargle(normalize='amplitude') on
    `ls_t`, `ls_y`, `ls_f`; `ls_amp_fm_*` (floating_mean), `ls_amp_w_*` (weights `ls_w`).
    """
    import scipy.signal as ss
    from scipy.signal import ShortTimeFFT, closest_STFT_dual_window
    from scipy.signal import windows as sw

    a: dict[str, np.ndarray] = {}
    r = lambda name: rng("signal_shortfft", name)

    def put_c(key, v):
        v = np.asarray(v)
        a[key + "_re"] = np.ascontiguousarray(v.real)
        a[key + "_im"] = np.ascontiguousarray(v.imag)

    # (case, window, hop, fs, kwargs of the class, x, stft kwargs, detr)
    g15 = sw.gaussian(15, std=3.0, sym=True)
    cw = sw.hann(10, sym=False) * np.exp(0.3j * np.arange(10))
    cases = [
        ("a", sw.hann(16, sym=False), 4, 10.0, {}, r("a").standard_normal((2, 100)), {}, None),
        ("b", g15, 5, 2.0, dict(mfft=32, fft_mode="centered", scale_to="magnitude", phase_shift=3),
         r("b1").standard_normal((3, 60)) + 1j * r("b2").standard_normal((3, 60)),
         dict(padding="even"), None),
        ("c", sw.hamming(20, sym=False), 7, 1.0, dict(fft_mode="onesided2X", scale_to="psd"),
         r("c").standard_normal((50, 2)), dict(padding="odd", axis=0), "linear"),
        ("d", sw.kaiser(12, 8.0, sym=False), 3, 4.0, dict(mfft=24, fft_mode="twosided", phase_shift=None),
         r("d").standard_normal(40), dict(padding="edge", k_offset=5), "constant"),
        ("e", cw, 2, 1.0, dict(fft_mode="twosided"),
         r("e1").standard_normal(30) + 1j * r("e2").standard_normal(30), {}, None),
        ("f", sw.hann(16, sym=False), 4, 1.0, dict(fft_mode="onesided2X", scale_to="magnitude", phase_shift=-5),
         r("f").standard_normal(8), dict(padding="odd"), None),
        ("g", sw.hann(16, sym=False), 4, 1.0, dict(mfft=20),
         r("g").standard_normal((2, 9)), dict(padding="even", p0=-1, p1=4), "linear"),
    ]
    for c, win, hop, fs, kw, x, skw, detr in cases:
        sft = ShortTimeFFT(win, hop, fs, **kw)
        if np.iscomplexobj(win):
            put_c(f"{c}_win", win)
        else:
            a[f"{c}_win"] = win
        if np.iscomplexobj(x):
            put_c(f"{c}_x", x)
        else:
            a[f"{c}_x"] = x
        axis = skw.get("axis", -1)
        n = x.shape[axis]
        S = sft.stft_detrend(x, detr, **skw)
        put_c(f"{c}_S", S)
        lbe = sft.lower_border_end
        ubb = sft.upper_border_begin(n)
        a[f"{c}_props"] = np.array([sft.p_min, sft.p_max(n), sft.k_min, sft.k_max(n), lbe[0], lbe[1],
                                     ubb[0], ubb[1], sft.p_num(n), sft.f_pts], dtype=np.int64)
        a[f"{c}_f"] = sft.f
        a[f"{c}_t"] = sft.t(n, skw.get("p0"), skw.get("p1"), skw.get("k_offset", 0))
        if np.iscomplexobj(sft.dual_win):
            put_c(f"{c}_dual", sft.dual_win)
        else:
            a[f"{c}_dual"] = sft.dual_win
        a[f"{c}_spec"] = sft.spectrogram(x, detr=detr, **skw)
        if "p0" not in skw and detr is None:
            xi = sft.istft(S, k1=n, f_axis=axis if axis >= 0 else -2, t_axis=-1)
            if np.iscomplexobj(xi):
                put_c(f"{c}_istft", xi)
            else:
                a[f"{c}_istft"] = xi
    # closest_STFT_dual_window
    cdc = [
        (sw.bartlett(24, sym=False), 6, None, True),
        (sw.hann(16, sym=False), 3, sw.gaussian(16, 4.0), False),
        (sw.hann(16, sym=False), 3, sw.gaussian(16, 4.0), True),
        (np.ones(12), 5, sw.hamming(12), True),
    ]
    for i, (win, hop, des, scaled) in enumerate(cdc):
        d, al = closest_STFT_dual_window(win, hop, des, scaled=scaled)
        a[f"cd_{i}_win"] = win
        a[f"cd_{i}_des"] = np.ones_like(win) if des is None else des
        a[f"cd_{i}_dual"] = d
        a[f"cd_{i}_alpha"] = np.array([float(np.real(al))])
    savez_fixed(out / "shortfft.npz", compressed=True, **a)

    e: dict[str, np.ndarray] = {}
    ex = r("env_x").standard_normal((2, 64))
    exc = r("env_xr").standard_normal((2, 50)) + 1j * r("env_xi").standard_normal((2, 50))
    e["env_x"] = ex
    e["env_xc_re"], e["env_xc_im"] = exc.real.copy(), exc.imag.copy()
    # (case, complex?, bp_in, n_out, squared, residual)
    ecases = [
        ("def", False, (1, None), None, False, "lowpass"),
        ("band", False, (3, 12), None, False, "lowpass"),
        ("up", False, (2, 20), 100, True, "all"),
        ("down", False, (1, 20), 40, False, "lowpass"),
        ("odd", False, (1, None), 33, False, "all"),
        ("none", False, (0, 10), None, False, None),
        ("neg", False, (-5, 7), 50, False, "lowpass"),
        ("c_def", True, (1, None), None, False, "lowpass"),
        ("c_neg", True, (-10, 4), 64, True, "all"),
        ("c_negonly", True, (-12, -2), 30, False, "lowpass"),
        ("c_down", True, (-8, 8), 36, False, "all"),
    ]
    for c, cplx, bp, n_out, sq, res in ecases:
        z = exc if cplx else ex
        o = ss.envelope(z, bp, n_out=n_out, squared=sq, residual=res)
        if res is None:
            e[f"env_{c}_env"] = o
        else:
            e[f"env_{c}_env"] = np.real(o[0]).copy()
            if cplx:
                e[f"env_{c}_res_re"], e[f"env_{c}_res_im"] = o[1].real.copy(), o[1].imag.copy()
            else:
                e[f"env_{c}_res"] = np.real(o[1]).copy()
    # axis=0 on the transposed real signal
    e["env_ax0_env"] = ss.envelope(ex.T, (2, 25), n_out=70, residual="lowpass", axis=0)[0]
    e["env_ax0_res"] = ss.envelope(ex.T, (2, 25), n_out=70, residual="lowpass", axis=0)[1]
    lr = rng("signal_processing2", "ls")
    lt = np.sort(lr.uniform(0, 10, 60))
    ly = np.sin(2.1 * lt) + 0.5 * np.cos(3.3 * lt) + 0.1 * lr.standard_normal(60) + 0.7
    lf = np.linspace(0.5, 5.0, 30)
    lw = lr.uniform(0.5, 2.0, 60)
    e["ls_t"], e["ls_y"], e["ls_f"], e["ls_w"] = lt, ly, lf, lw
    for key, kw in [("ls_amp", {}), ("ls_amp_fm", dict(floating_mean=True)), ("ls_amp_w", dict(weights=lw))]:
        v = ss.lombscargle(lt, ly, lf, normalize="amplitude", **kw)
        e[key + "_re"], e[key + "_im"] = v.real.copy(), v.imag.copy()
    savez_fixed(out / "envelope.npz", compressed=True, **e)


# --------------------------------------------------------------------------------------------
# cusci-sparse: constructions, conversions, products and cg on SciPy
# --------------------------------------------------------------------------------------------


@section("sparse")
def gen_sparse(out: Path) -> None:
    """scipy_sparse.npz, read by crates/sparse/tests/golden.rs. Values are small integers where
    SciPy sums duplicates (so the order of the sums cannot matter)."""
    import scipy.sparse as sp
    import scipy.sparse.linalg as spl

    g = rng("sparse", "coo")
    m, n, nnz = 9, 7, 40
    row = g.integers(0, 6, nnz).astype(np.int32)  # rows 6..8 stay empty
    col = g.integers(0, n, nnz).astype(np.int32)
    val = g.integers(-4, 5, nnz).astype(np.float64)
    csr = sp.coo_matrix((val, (row, col)), shape=(m, n)).tocsr()
    csr.sort_indices()
    t = csr.T.tocsr()
    t.sort_indices()
    x = g.standard_normal(n)
    xm = g.standard_normal((n, 3))
    d = sp.diags([np.arange(1.0, 6.0), np.arange(1.0, 5.0) * -1, np.array([7.0])], [0, -1, 2],
                 shape=(5, 6), format="csr")
    b2 = sp.random(n, 5, density=0.4, random_state=np.random.RandomState(3), format="csr")
    b2.data = np.round(b2.data * 8) - 3
    prod = (csr @ b2).tocsr()
    prod.sort_indices()

    # cg on the 2-D Dirichlet Laplacian of a 16 x 16 grid
    k = 16
    N = k * k
    side = np.where((np.arange(N - 1) + 1) % k == 0, 0.0, -1.0)
    A = sp.diags([4.0 * np.ones(N), side, side, -np.ones(N - k), -np.ones(N - k)],
                 [0, -1, 1, -k, k], format="csr")
    bb = rng("sparse", "cg").standard_normal(N)
    its = [0]

    def count(_):
        its[0] += 1

    xs, info = spl.cg(A, bb, rtol=1e-8, atol=0.0, callback=count)
    savez_fixed(
        out / "scipy_sparse.npz",
        row=row, col=col, val=val,
        csr_indptr=csr.indptr.astype(np.int32), csr_indices=csr.indices.astype(np.int32),
        csr_data=csr.data,
        t_indptr=t.indptr.astype(np.int32), t_indices=t.indices.astype(np.int32), t_data=t.data,
        x=x, spmv=csr @ x, xm=xm, spmm=csr @ xm,
        diags_indptr=d.indptr.astype(np.int32), diags_indices=d.indices.astype(np.int32),
        diags_data=d.data,
        b2_indptr=b2.indptr.astype(np.int32), b2_indices=b2.indices.astype(np.int32),
        b2_data=b2.data,
        prod_indptr=prod.indptr.astype(np.int32), prod_indices=prod.indices.astype(np.int32),
        prod_data=prod.data,
        cg_b=bb, cg_x=xs, cg_info=np.array([info], dtype=np.int64),
        cg_iterations=np.array([its[0]], dtype=np.int64),
    )


@section("sparse_solvers", folder="sparse")
def gen_sparse_solvers(out: Path) -> None:
    """scipy_sparse_solvers.npz, read by crates/sparse/tests/lsq.rs: minres on a shifted
    (indefinite) 2-D Laplacian, lsqr and lsmr on a random sparse 40 x 15 matrix (plain and damped)."""
    import scipy.sparse as sp
    import scipy.sparse.linalg as spl

    k = 10
    N = k * k
    side = np.where((np.arange(N - 1) + 1) % k == 0, 0.0, -1.0)
    A = sp.diags([4.0 * np.ones(N), side, side, -np.ones(N - k), -np.ones(N - k)],
                 [0, -1, 1, -k, k], format="csr")
    b = rng("sparse_solvers", "minres").standard_normal(N)
    its = [0]

    def count(_):
        its[0] += 1

    xm, infom = spl.minres(A, b, shift=1.5, rtol=1e-10, callback=count)
    m, n = 40, 15
    g = rng("sparse_solvers", "lsq")
    L = sp.random(m, n, density=0.3, random_state=np.random.RandomState(7), format="csr")
    L.data = g.standard_normal(L.nnz)
    L.sort_indices()
    bl = g.standard_normal(m)
    r1 = spl.lsqr(L, bl, atol=1e-10, btol=1e-10)
    r2 = spl.lsmr(L, bl, atol=1e-10, btol=1e-10)
    r3 = spl.lsqr(L, bl, damp=0.7, atol=1e-10, btol=1e-10)
    r4 = spl.lsmr(L, bl, damp=0.7, atol=1e-10, btol=1e-10)
    f = lambda r: np.array([float(v) for v in r[1:8]])
    savez_fixed(
        out / "scipy_sparse_solvers.npz",
        minres_b=b, minres_x=xm, minres_info=np.array([infom], dtype=np.int64),
        minres_iterations=np.array([its[0]], dtype=np.int64),
        l_indptr=L.indptr.astype(np.int32), l_indices=L.indices.astype(np.int32), l_data=L.data,
        l_b=bl,
        lsqr_x=r1[0], lsqr_out=f(r1), lsmr_x=r2[0], lsmr_out=f(r2),
        lsqr_damp_x=r3[0], lsqr_damp_out=f(r3), lsmr_damp_x=r4[0], lsmr_damp_out=f(r4),
    )


@section("sparse_isolve", folder="sparse")
def gen_sparse_isolve(out: Path) -> None:
    """scipy_sparse_isolve.npz, read by crates/sparse/tests/isolve.rs: bicg, qmr, tfqmr, lgmres
    and gcrotmk on a non-symmetric 6 x 6-grid convection-diffusion matrix (converged with rtol 1e-10,
    the callback count; three iterations with zero tolerances; Jacobi-preconditioned), and bicg,
    qmr on a complex variant."""
    import scipy.sparse as sp
    import scipy.sparse.linalg as spl

    k, cconv = 6, 1.5
    n = k * k
    side = lambda v: np.where((np.arange(n - 1) + 1) % k == 0, 0.0, v)
    A = sp.diags([(4.0 + cconv) * np.ones(n), side(-1.0 - cconv), side(-1.0),
                  -np.ones(n - k), -np.ones(n - k)], [0, -1, 1, -k, k], format="csr")
    A.sort_indices()
    g = rng("sparse_isolve", "b")
    b = g.standard_normal(n)
    Ac = (A + sp.diags([0.3j * np.ones(n - 1), -0.5j * np.ones(n - 1)], [1, -1])).tocsr()
    Ac.sort_indices()
    bc = g.standard_normal(n) + 1j * g.standard_normal(n)
    Mj = sp.diags(1.0 / A.diagonal(), 0, format="csr")
    a = dict(a_indptr=A.indptr.astype(np.int32), a_indices=A.indices.astype(np.int32),
             a_data=A.data, b=b,
             ac_indptr=Ac.indptr.astype(np.int32), ac_indices=Ac.indices.astype(np.int32),
             ac_data=Ac.data, bc=bc)
    solvers = dict(bicg=spl.bicg, qmr=spl.qmr, tfqmr=spl.tfqmr, lgmres=spl.lgmres,
                   gcrotmk=spl.gcrotmk)
    for name, f in solvers.items():
        cnt = [0]

        def cb(_x):
            cnt[0] += 1

        x, info = f(A, b, rtol=1e-10, callback=cb)
        a[f"{name}_x"], a[f"{name}_info"] = x, np.array([info, cnt[0]], dtype=np.int64)
        x, info = f(A, b, rtol=0.0, atol=0.0, maxiter=3)
        a[f"{name}_x3"], a[f"{name}_info3"] = x, np.array([info], dtype=np.int64)
        pre = (dict(M1=spl.aslinearoperator(Mj), M2=spl.aslinearoperator(sp.identity(n)))
               if name == "qmr" else dict(M=Mj))
        x, info = f(A, b, rtol=1e-10, maxiter=3, **pre)
        a[f"{name}_xm"], a[f"{name}_infom"] = x, np.array([info], dtype=np.int64)
    for name in ("bicg", "qmr"):
        x, info = solvers[name](Ac, bc, rtol=1e-10)
        a[f"{name}_xc"], a[f"{name}_infoc"] = x, np.array([info], dtype=np.int64)
        x, info = solvers[name](Ac, bc, rtol=0.0, atol=0.0, maxiter=3)
        a[f"{name}_xc3"] = x
    savez_fixed(out / "scipy_sparse_isolve.npz", compressed=True, **a)


@section("sparse_matfuncs", folder="sparse")
def gen_sparse_matfuncs(out: Path) -> None:
    """scipy_sparse_matfuncs.npz, read by crates/sparse/tests/matfuncs.rs: expm, inv,
    expm_multiply (vector, matrix, intervals, a large norm, complex), onenormest (exact with
    t >= n), spbandwidth and is_sptriangular of a random 12 x 12 matrix; LaplacianNd on a 3 x 4
    grid for each boundary condition (toarray, eigenvalues, the 3 largest, 2 eigenvectors)."""
    import scipy.sparse as sp
    import scipy.sparse.linalg as spl

    n = 12
    g = rng("sparse_matfuncs", "m")
    M = sp.random(n, n, density=0.25, random_state=np.random.RandomState(11), format="csr")
    M.data = g.standard_normal(M.nnz)
    M = (M + sp.diags(g.standard_normal(n))).tocsr()
    M.sort_indices()
    Mc = (M + 1j * sp.random(n, n, density=0.2, random_state=np.random.RandomState(12))).tocsr()
    Mc.sort_indices()
    b = g.standard_normal(n)
    B = g.standard_normal((n, 3))
    bc = g.standard_normal(n) + 1j * g.standard_normal(n)
    a = dict(m_indptr=M.indptr.astype(np.int32), m_indices=M.indices.astype(np.int32),
             m_data=M.data, mc_indptr=Mc.indptr.astype(np.int32),
             mc_indices=Mc.indices.astype(np.int32), mc_data=Mc.data, b=b, bm=B, bc=bc)
    a["expm"] = spl.expm(M.tocsc()).toarray()
    a["inv"] = spl.inv(M.tocsc()).toarray()
    a["em_b"] = spl.expm_multiply(M, b)
    a["em_bm"] = spl.expm_multiply(M, B)
    a["em_big"] = spl.expm_multiply(M * 20.0, b)  # past condition 3.13: the onenormest branch
    a["em_c"] = spl.expm_multiply(Mc, bc)
    a["em_int"] = spl.expm_multiply(M, b, start=0.0, stop=1.0, num=5, endpoint=True)
    a["em_int2"] = spl.expm_multiply(M, B, start=0.5, stop=2.0, num=4, endpoint=False)
    a["onenorm"] = np.array([abs(M).sum(axis=0).max(), spl.onenormest(M, t=n)])
    bands = []
    for X in (M, sp.tril(M, format="csr"), sp.triu(M, k=1, format="csr"),
              sp.diags(np.ones(n), format="csr")):
        lo, hi = spl.spbandwidth(X)
        lower, upper = spl.is_sptriangular(X)
        bands.append([lo, hi, int(lower), int(upper)])
    a["bands"] = np.array(bands, dtype=np.int64)
    for bcname in ("dirichlet", "neumann", "periodic"):
        L = spl.LaplacianNd((3, 4), boundary_conditions=bcname, dtype=np.float64)
        a[f"lap_{bcname}"] = L.toarray()
        a[f"lap_{bcname}_w"] = L.eigenvalues()
        a[f"lap_{bcname}_w3"] = L.eigenvalues(3)
        a[f"lap_{bcname}_v2"] = L.eigenvectors(2)
    savez_fixed(out / "scipy_sparse_matfuncs.npz", compressed=True, **a)


@section("sparse_flow", folder="sparse")
def gen_sparse_flow(out: Path) -> None:
    """scipy_flow.npz, read by crates/sparse/tests/flow.rs: maximum_flow (dinic, edmonds_karp)
    on a random directed 30-node graph with integer capacities for a few (source, sink) pairs,
    and maximum_bipartite_matching (row and column) of a random 20 x 15 biadjacency matrix;
    the weight of min_weight_full_bipartite_matching (and maximize) of a random 12 x 16 weight
    matrix and of its transpose."""
    import scipy.sparse as sp
    from scipy.sparse.csgraph import maximum_bipartite_matching, maximum_flow

    g = rng("sparse_flow", "graph")
    n = 30
    G = sp.random(n, n, density=0.15, random_state=np.random.RandomState(5), format="csr")
    G.data = g.integers(0, 20, G.nnz).astype(np.float64)
    G.setdiag(0)
    G.eliminate_zeros()
    G.sort_indices()
    Gi = G.astype(np.int32)
    pairs = np.array([[0, 29], [3, 17], [10, 2], [5, 6]], dtype=np.int64)
    vals = []
    for s_, t_ in pairs:
        vals.append([maximum_flow(Gi, int(s_), int(t_), method=m).flow_value
                     for m in ("dinic", "edmonds_karp")])
    B = sp.random(20, 15, density=0.12, random_state=np.random.RandomState(6), format="csr")
    B.sort_indices()
    from scipy.sparse.csgraph import min_weight_full_bipartite_matching
    W = sp.random(12, 16, density=0.45, random_state=np.random.RandomState(7), format="csr")
    W.data = np.round(g.uniform(-5, 10, W.nnz), 3)
    W.sort_indices()
    mw = dict(w_indptr=W.indptr.astype(np.int32), w_indices=W.indices.astype(np.int32),
              w_data=W.data)
    for key, X in (("w", W), ("wt", W.T.tocsr())):
        for mx in (False, True):
            r, c = min_weight_full_bipartite_matching(X, maximize=mx)
            mw[f"{key}_{int(mx)}"] = np.array([X[r, c].sum()])
    savez_fixed(
        out / "scipy_flow.npz", compressed=True,
        g_indptr=G.indptr.astype(np.int32), g_indices=G.indices.astype(np.int32), g_data=G.data,
        pairs=pairs, flow_values=np.array(vals, dtype=np.int64),
        b_indptr=B.indptr.astype(np.int32), b_indices=B.indices.astype(np.int32), b_data=B.data,
        match_row=maximum_bipartite_matching(B, perm_type="row").astype(np.int32),
        match_col=maximum_bipartite_matching(B, perm_type="column").astype(np.int32),
        **mw,
    )


@section("sparse_yen", folder="sparse")
def gen_sparse_yen(out: Path) -> None:
    """scipy_yen.npz, read by crates/sparse/tests/flow.rs: yen's K = 8 shortest path lengths from
    0 to 14 on a random directed 15-node graph (directed, undirected, unweighted) and on a DAG
    with negative weights."""
    import scipy.sparse as sp
    from scipy.sparse.csgraph import yen

    g = rng("sparse_yen", "graph")
    n = 15
    G = sp.random(n, n, density=0.25, random_state=np.random.RandomState(8), format="csr")
    G.data = np.round(g.uniform(0.5, 5.0, G.nnz), 2)
    G.setdiag(0)
    G.eliminate_zeros()
    G.sort_indices()
    N = sp.triu(sp.random(n, n, density=0.35, random_state=np.random.RandomState(9)), k=1).tocsr()
    N.data = np.round(g.uniform(-2.0, 5.0, N.nnz), 2)
    N.sort_indices()
    savez_fixed(
        out / "scipy_yen.npz", compressed=True,
        g_indptr=G.indptr.astype(np.int32), g_indices=G.indices.astype(np.int32), g_data=G.data,
        n_indptr=N.indptr.astype(np.int32), n_indices=N.indices.astype(np.int32), n_data=N.data,
        directed=yen(G, 0, 14, 8), undirected=yen(G, 0, 14, 8, directed=False),
        unweighted=yen(G, 0, 14, 8, unweighted=True), negative=yen(N, 0, 14, 8),
    )


@section("sparse_csgraph", folder="sparse")
def gen_sparse_csgraph(out: Path) -> None:
    """scipy_csgraph.npz, read by crates/sparse/tests/csgraph.rs: on a random directed 28-node
    graph G (continuous weights, so shortest paths are unique; one explicit zero edge; a few
    isolated nodes) and on a DAG N with negative weights: shortest paths (every method and
    option), Laplacians, the dense conversions, construct_dist_matrix, reconstruct_path, the
    breadth- and depth-first orders and trees, minimum spanning trees, reverse Cuthill-McKee
    and structural ranks."""
    import scipy.sparse as sp
    from scipy.sparse import csgraph as cg

    g = rng("sparse_csgraph", "graph")
    n = 28
    G = sp.random(n, n, density=0.1, random_state=np.random.RandomState(5), format="csr")
    G.data = np.round(g.uniform(0.5, 10.0, G.nnz), 6)
    G = G.tolil()
    G[:, 24:] = 0  # nodes 24..27 have no in-edges
    G[24:, :] = 0  # ... and no out-edges: isolated
    G = G.tocsr()
    G.eliminate_zeros()
    G.sort_indices()
    # one explicit zero edge 3 -> 7 (an edge of weight 0)
    G = G.tolil()
    G[3, 7] = 1.0
    G = G.tocsr()
    G.data[G.indptr[3] + list(G.indices[G.indptr[3]:G.indptr[4]]).index(7)] = 0.0
    A = {"G_data": G.data, "G_indices": G.indices.astype(np.int32),
         "G_indptr": G.indptr.astype(np.int32)}

    def sp_(key, **kw):
        r = cg.shortest_path(G, **kw)
        if isinstance(r, tuple):
            A[key + "_dist"], A[key + "_pred"] = r[0], r[1].astype(np.int32)
        else:
            A[key + "_dist"] = r

    sp_("D", method="D", return_predecessors=True)
    sp_("Du", method="D", directed=False, return_predecessors=True)
    sp_("Dw", method="D", unweighted=True)
    sp_("FW", method="FW", return_predecessors=True)
    sp_("FWu", method="FW", directed=False)
    A["Dlim_dist"] = cg.dijkstra(G, indices=[0, 1, 2], limit=6.0)
    d, p, s = cg.dijkstra(G, indices=[0, 5, 9], min_only=True, return_predecessors=True)
    A["Dmin_dist"], A["Dmin_pred"], A["Dmin_src"] = d, p.astype(np.int32), s.astype(np.int32)

    # a DAG with negative weights (no negative cycle)
    h = rng("sparse_csgraph", "dag")
    m = 20
    N = sp.triu(sp.random(m, m, density=0.2, random_state=np.random.RandomState(6)), k=1).tocsr()
    N.data = np.round(h.uniform(-3.0, 8.0, N.nnz), 6)
    N.sort_indices()
    A.update({"N_data": N.data, "N_indices": N.indices.astype(np.int32),
              "N_indptr": N.indptr.astype(np.int32)})
    d, p = cg.bellman_ford(N, return_predecessors=True)
    A["BF_dist"], A["BF_pred"] = d, p.astype(np.int32)
    d, p = cg.johnson(N, indices=[0, 3, 4], return_predecessors=True)
    A["J_dist"], A["J_pred"] = d, p.astype(np.int32)
    A["auto_N_dist"] = cg.shortest_path(N)

    # Laplacians of G (every option) and the diagonals
    for key, kw in [("lap", {}), ("lap_n", {"normed": True}), ("lap_o", {"use_out_degree": True}),
                    ("lap_s", {"symmetrized": True}),
                    ("lap_ns", {"normed": True, "symmetrized": True})]:
        L, dg = cg.laplacian(G, return_diag=True, **kw)
        A[key] = L.toarray()
        A[key + "_diag"] = dg

    # dense conversions: duplicates (the smallest counts), NaN stored values, explicit zeros
    C = sp.csr_matrix((np.array([3.0, 1.0, 0.0, np.nan, 2.0, -1.0]),
                       np.array([1, 1, 2, 0, 0, 2]), np.array([0, 3, 4, 6])), shape=(3, 3))
    A.update({"C_data": C.data, "C_indices": C.indices.astype(np.int32),
              "C_indptr": C.indptr.astype(np.int32)})
    A["C_dense_inf"] = cg.csgraph_to_dense(C, null_value=np.inf)
    A["C_dense_0"] = cg.csgraph_to_dense(C)
    F = np.array([[0.0, 1.0, np.nan, np.inf], [-np.inf, 0.0, 5.0, 2.0], [7.0, 0.0, 0.0, -1.0],
                  [0.0, 7.0, 3.0, 0.0]])
    A["F"] = F
    for key, kw in [("F1", {}), ("F2", {"null_value": np.inf, "infinity_null": False}),
                    ("F3", {"null_value": 7.0, "nan_null": False})]:
        H = cg.csgraph_from_dense(F, **kw)
        A[key + "_data"], A[key + "_indices"] = H.data, H.indices.astype(np.int32)
        A[key + "_indptr"] = H.indptr.astype(np.int32)

    # construct_dist_matrix and reconstruct_path on dijkstra's predecessors
    A["cdm"] = cg.construct_dist_matrix(G, A["D_pred"])
    A["cdm_u"] = cg.construct_dist_matrix(G, A["Du_pred"], directed=False)
    A["rp"] = cg.reconstruct_path(G, A["D_pred"][0]).toarray()
    A["rp_u"] = cg.reconstruct_path(G, A["Du_pred"][2], directed=False).toarray()
    # traversals: SciPy's orders and predecessors, and the trees
    for s in (0, 3, 10, 25):
        for dname, directed in (("d", True), ("u", False)):
            o, p = cg.breadth_first_order(G, s, directed=directed)
            A[f"bfo_{s}_{dname}"], A[f"bfp_{s}_{dname}"] = o.astype(np.int32), p.astype(np.int32)
            o, p = cg.depth_first_order(G, s, directed=directed)
            A[f"dfo_{s}_{dname}"], A[f"dfp_{s}_{dname}"] = o.astype(np.int32), p.astype(np.int32)
    A["bft_0"] = cg.breadth_first_tree(G, 0).toarray()
    A["dft_0"] = cg.depth_first_tree(G, 0).toarray()
    A["bft_3_u"] = cg.breadth_first_tree(G, 3, directed=False).toarray()
    A["dft_3_u"] = cg.depth_first_tree(G, 3, directed=False).toarray()
    # minimum spanning trees: G; a 7 x 7 grid with small integer weights both ways (many ties:
    # SciPy's stable sort decides); a graph with duplicates, explicit zeros and a negative weight
    A["mst_G"] = cg.minimum_spanning_tree(G).toarray()
    k = 7
    r = rng("sparse_csgraph", "mst")
    rows, cols = [], []
    for i in range(k * k):
        if (i + 1) % k:
            rows += [i, i + 1]
            cols += [i + 1, i]
        if i + k < k * k:
            rows += [i, i + k]
            cols += [i + k, i]
    W = sp.csr_matrix((r.integers(1, 4, len(rows)).astype(np.float64), (rows, cols)),
                      shape=(k * k, k * k))
    W.sort_indices()
    A.update({"W_data": W.data, "W_indices": W.indices.astype(np.int32),
              "W_indptr": W.indptr.astype(np.int32)})
    A["mst_W"] = cg.minimum_spanning_tree(W).toarray()
    M = sp.csr_matrix((np.array([2.0, 2.0, 0.0, 1.0, -1.0, 3.0, 2.0, 5.0, 1.0]),
                       np.array([1, 1, 2, 0, 3, 1, 4, 0, 3]),
                       np.array([0, 3, 5, 7, 7, 9])), shape=(5, 5))
    A.update({"M_data": M.data, "M_indices": M.indices.astype(np.int32),
              "M_indptr": M.indptr.astype(np.int32)})
    T = cg.minimum_spanning_tree(M)
    A["mst_M"] = T.toarray()
    A["mst_M_nnz"] = np.array([T.nnz], dtype=np.int32)
    # reverse Cuthill-McKee on connected graphs whose lowest degree is unique (SciPy picks
    # seeds with an unstable argsort: ties would depend on the platform's sort)
    from scipy.sparse.csgraph import connected_components as ccomp

    def rcm_case(key, R, sym):
        S = R if sym else (R + R.T).tocsr()
        deg = np.diff(S.indptr) + np.array([int(i in S.indices[S.indptr[i]:S.indptr[i + 1]])
                                            for i in range(S.shape[0])])
        assert ccomp(S, directed=False)[0] == 1 and (deg == deg.min()).sum() == 1, key
        A.update({f"{key}_data": R.data, f"{key}_indices": R.indices.astype(np.int32),
                  f"{key}_indptr": R.indptr.astype(np.int32)})
        A[f"rcm_{key}"] = cg.reverse_cuthill_mckee(R, symmetric_mode=sym).astype(np.int32)

    k1, k2 = 6, 7
    rr, cc = [], []
    for i in range(k1 * k2):
        if (i + 1) % k2:
            rr += [i, i + 1]
            cc += [i + 1, i]
        if i + k2 < k1 * k2:
            rr += [i, i + k2]
            cc += [i + k2, i]
    rr += [0, k1 * k2]  # a pendant node on corner 0: the only node of degree 1
    cc += [k1 * k2, 0]
    Q = sp.csr_matrix((np.ones(len(rr)), (rr, cc)), shape=(k1 * k2 + 1, k1 * k2 + 1))
    Q.sort_indices()
    rcm_case("Q", Q, True)
    # a random directed graph: its symmetrized pattern, a ring through every node
    q = rng("sparse_csgraph", "rcm")
    m2 = 35
    ring = sp.csr_matrix((np.ones(m2 - 1), (np.arange(m2 - 1), np.arange(1, m2))), shape=(m2, m2))
    extra = sp.random(m2, m2, density=0.08, random_state=np.random.RandomState(9), format="csr")
    R = (ring + extra).tocsr()
    R.data = q.uniform(0.5, 2.0, R.nnz)
    R.sort_indices()
    rcm_case("R", R, False)
    # structural ranks: G, N, a wide and a tall random pattern (explicit zeros count)
    S1 = sp.random(30, 45, density=0.03, random_state=np.random.RandomState(21), format="csr")
    S1.data[::3] = 0.0
    S1.sort_indices()
    A.update({"S1_data": S1.data, "S1_indices": S1.indices.astype(np.int32),
              "S1_indptr": S1.indptr.astype(np.int32)})
    S2 = S1.T.tocsr()
    S2.sort_indices()
    A.update({"S2_data": S2.data, "S2_indices": S2.indices.astype(np.int32),
              "S2_indptr": S2.indptr.astype(np.int32)})
    A["srank"] = np.array([cg.structural_rank(X) for X in (G, N, S1, S2)], dtype=np.int64)
    savez_fixed(out / "scipy_csgraph.npz", compressed=True, **A)


@section("sparse_eigen", folder="sparse")
def gen_sparse_eigen(out: Path) -> None:
    """scipy_sparse_eigen.npz, read by crates/sparse/tests/eigen.rs: svds (LM and SM, singular
    values only) of a random sparse 40 x 25 matrix and of its transpose; lobpcg on a generalized
    problem (a 12 x 12 grid Laplacian A, a positive diagonal B), largest and smallest, with the
    dense eigh values as the reference SciPy's lobpcg must also reach."""
    import scipy.linalg as sla
    import scipy.sparse as sp
    import scipy.sparse.linalg as spl

    g = rng("sparse_eigen", "svds")
    S = sp.random(40, 25, density=0.2, random_state=np.random.RandomState(11), format="csr")
    S.data = g.standard_normal(S.nnz)
    S.sort_indices()
    s_lm = spl.svds(S, k=4, which="LM", return_singular_vectors=False, random_state=1)
    s_sm = spl.svds(S, k=3, which="SM", return_singular_vectors=False, random_state=1)
    s_lm_t = spl.svds(S.T.tocsr(), k=4, which="LM", return_singular_vectors=False, random_state=1)
    k = 12
    N = k * k
    side = np.where((np.arange(N - 1) + 1) % k == 0, 0.0, -1.0)
    A = sp.diags([4.0 * np.ones(N), side, side, -np.ones(N - k), -np.ones(N - k)],
                 [0, -1, 1, -k, k], format="csr")
    bd = 1.0 + rng("sparse_eigen", "b").random(N)
    B = sp.diags([bd], [0], format="csr")
    X = rng("sparse_eigen", "x").standard_normal((N, 3))
    wl, _ = spl.lobpcg(A, X, B=B, tol=1e-9, maxiter=500, largest=True)
    ws, _ = spl.lobpcg(A, X, B=B, tol=1e-9, maxiter=500, largest=False)
    wd = sla.eigh(A.toarray(), B.toarray(), eigvals_only=True)
    savez_fixed(
        out / "scipy_sparse_eigen.npz",
        s_indptr=S.indptr.astype(np.int32), s_indices=S.indices.astype(np.int32), s_data=S.data,
        svds_lm=s_lm, svds_sm=s_sm, svds_lm_t=s_lm_t,
        gen_bdiag=bd, lobpcg_x=X, lobpcg_largest=wl, lobpcg_smallest=ws,
        eigh_largest=wd[::-1][:3].copy(), eigh_smallest=wd[:3].copy(),
    )


@section("sparse_io", folder="sparse")
def gen_sparse_io(out: Path) -> None:
    """scipy_io_*.npz, written by scipy.sparse.save_npz itself and read by
    crates/sparse/tests/io.rs (load_npz of SciPy's files): csr (compressed, the default), csc
    float32 of a *_matrix (uncompressed, no `_is_array`), coo complex128 with a repeated
    position, dia, bsr (2 x 3 blocks), csr with int64 indices; scipy_io_expect.npz holds each
    one's dense array, the bsr matrix's tocsr() arrays, a bsr SpMV and SciPy's tobsr of a dense
    matrix."""
    import scipy.sparse as sp

    g = rng("sparse_io", "values")

    def ints(shape):
        return g.integers(-5, 6, shape).astype(np.float64)

    def save(name, m, compressed=True):
        with _fixed_zip_time():
            sp.save_npz(out / f"scipy_io_{name}.npz", m, compressed=compressed)
        return m.toarray()

    d = ints((5, 7)) * (g.random((5, 7)) < 0.4)
    csr = sp.csr_array(d)
    csc = sp.csc_matrix((ints((4, 6)) * (g.random((4, 6)) < 0.5)).astype(np.float32))
    coo = sp.coo_array((np.array([1 + 2j, 3 - 1j, 0.5j, 2.0]),
                        (np.array([0, 3, 0, 1]), np.array([2, 0, 2, 1]))), shape=(4, 3))
    dia = sp.dia_array((ints((3, 5)), np.array([-1, 0, 2])), shape=(4, 5))
    bd = ints((4, 9))
    bd[0:2, 3:6] = 0.0
    bd[2:4, 0:3] = 0.0
    bsr = sp.bsr_array(bd, blocksize=(2, 3))
    big = sp.csr_array(d)
    big.indices = big.indices.astype(np.int64)
    big.indptr = big.indptr.astype(np.int64)
    expect = dict(
        csr=save("csr", csr),
        csc_f32=save("csc_f32", csc, compressed=False),
        coo=save("coo", coo),
        dia=save("dia", dia),
        bsr=save("bsr", bsr),
        csr_i64=save("csr_i64", big),
    )
    bc = bsr.tocsr()
    x = g.standard_normal(9)
    savez_fixed(
        out / "scipy_io_expect.npz", **expect,
        bsr_csr_indptr=bc.indptr.astype(np.int32), bsr_csr_indices=bc.indices.astype(np.int32),
        bsr_csr_data=bc.data, bsr_x=x, bsr_spmv=bsr @ x, bsr_spmm=bsr @ np.stack([x, 2 * x], 1),
        bsr_nblocks=np.array([bsr.indices.size], dtype=np.int64),
    )


@section("sparse_funm", folder="sparse")
def gen_sparse_funm(out: Path) -> None:
    """scipy_sparse_funm.npz, read by crates/sparse/tests/eigsh_m.rs: funm_multiply_krylov with
    expm on a random non-symmetric 40 x 40 sparse matrix `a_*` (restarts every 6 steps), real
    and times 1j, against the dense expm(tA) b."""
    import scipy.linalg as sla
    import scipy.sparse as sp
    import scipy.sparse.linalg as spl

    g = rng("sparse_funm", "a")
    n = 40
    A = sp.random(n, n, density=0.1, random_state=np.random.RandomState(5), format="csr")
    A.data = g.standard_normal(A.nnz)
    A = (A - 2.0 * sp.eye(n)).tocsr()
    A.sort_indices()
    b = g.standard_normal(n)
    t = 0.7
    y = spl.funm_multiply_krylov(sla.expm, A, b, t=t, restart_every_m=6, rtol=1e-12)
    yc = spl.funm_multiply_krylov(sla.expm, 1j * A, b.astype(complex), t=t, restart_every_m=6,
                                  rtol=1e-12)
    savez_fixed(
        out / "scipy_sparse_funm.npz",
        a_indptr=A.indptr.astype(np.int32), a_indices=A.indices.astype(np.int32), a_data=A.data,
        b=b, t=np.array([t]), funm=y, funm_c=yc,
        exact=sla.expm(t * A.toarray()) @ b, exact_c=sla.expm(1j * t * A.toarray()) @ b,
    )


@section("sparse_eigs", folder="sparse")
def gen_sparse_eigs(out: Path) -> None:
    """scipy_sparse_eigs.npz, read by crates/sparse/tests/eigen.rs (issue 31): eigs of a real
    non-symmetric 40 x 40 sparse matrix `r_*` (CSR arrays) and of a complex 30 x 30 one `c_*`,
    for LM, LR, SR, LI and (complex) SI (`eigs_<r|c>_<which>`, complex128; k in `eigs_<r|c>_<which>_k`, chosen
    so that the k-th value splits no conjugate pair and has no tie with the next), shift-invert
    (`eigs_r_sigma`, sigma 0.3 and k 3; `eigs_c_sigma`, sigma 0.5+0.5j), and eigsh of a
    symmetric 30 x 30 sparse matrix `s_*`: `eigsh_be` (k 5, BE), `eigsh_sigma` (k 3, sigma
    1.1), `eigsh_sigma_be` (k 4, sigma 1.1, BE). `*_all`: every eigenvalue by dense eig/eigh."""
    import scipy.sparse as sp
    import scipy.sparse.linalg as spl

    def sprand(n, density, name, cplx):
        g = rng("sparse_eigs", name)
        S = sp.random(n, n, density=density, random_state=np.random.RandomState(5), format="csr")
        S.data = g.standard_normal(S.nnz)
        if cplx:
            S = S.astype(np.complex128)
            S.data = S.data + 1j * g.standard_normal(S.nnz)
        S = (S + sp.diags([np.linspace(-2.0, 3.0, n)], [0])).tocsr()
        S.sort_indices()
        return S

    def keyf(which, real):
        im = (lambda z: abs(z.imag)) if real else (lambda z: z.imag)
        return {
            "LM": lambda z: -abs(z), "SM": lambda z: abs(z), "LR": lambda z: -z.real,
            "SR": lambda z: z.real, "LI": lambda z: -im(z), "SI": lambda z: im(z),
        }[which]

    arrs = {}
    for tag, n, cplx in (("r", 40, False), ("c", 30, True)):
        A = sprand(n, 0.15, tag, cplx)
        allw = np.linalg.eigvals(A.toarray())
        arrs[f"{tag}_indptr"] = A.indptr.astype(np.int32)
        arrs[f"{tag}_indices"] = A.indices.astype(np.int32)
        arrs[f"{tag}_data"] = A.data
        arrs[f"eigs_{tag}_all"] = allw.astype(np.complex128)
        whiches = ("LM", "LR", "SR", "LI") + (("SI",) if cplx else ())
        for which in whiches:
            kf = keyf(which, not cplx)
            srt = sorted(allw, key=kf)
            k = 3
            while abs(kf(srt[k - 1]) - kf(srt[k])) < 1e-6 * max(1.0, abs(kf(srt[k]))):
                k += 1
            w = spl.eigs(A, k=k, which=which, return_eigenvectors=False,
                         v0=np.ones(n, dtype=A.dtype), tol=1e-12)
            arrs[f"eigs_{tag}_{which}"] = np.asarray(w, dtype=np.complex128)
            arrs[f"eigs_{tag}_{which}_k"] = np.array([k], dtype=np.int64)
    Ar = sp.csr_array((arrs["r_data"], arrs["r_indices"], arrs["r_indptr"]), shape=(40, 40))
    arrs["eigs_r_sigma"] = spl.eigs(Ar, k=3, sigma=0.3, return_eigenvectors=False).astype(np.complex128)
    Ac = sp.csr_array((arrs["c_data"], arrs["c_indices"], arrs["c_indptr"]), shape=(30, 30))
    arrs["eigs_c_sigma"] = spl.eigs(Ac, k=3, sigma=0.5 + 0.5j, return_eigenvectors=False).astype(np.complex128)
    g = rng("sparse_eigs", "sym")
    S = sp.random(30, 30, density=0.1, random_state=np.random.RandomState(6), format="csr")
    S.data = g.standard_normal(S.nnz)
    S = (S + S.T + sp.diags([np.linspace(-3.0, 3.0, 30)], [0])).tocsr()
    S.sort_indices()
    arrs["s_indptr"] = S.indptr.astype(np.int32)
    arrs["s_indices"] = S.indices.astype(np.int32)
    arrs["s_data"] = S.data
    arrs["eigsh_all"] = np.linalg.eigvalsh(S.toarray())
    arrs["eigsh_be"] = np.sort(spl.eigsh(S, k=5, which="BE", return_eigenvectors=False))
    arrs["eigsh_sigma"] = np.sort(spl.eigsh(S, k=3, sigma=1.1, return_eigenvectors=False))
    arrs["eigsh_sigma_be"] = np.sort(spl.eigsh(S, k=4, sigma=1.1, which="BE", return_eigenvectors=False))
    savez_fixed(out / "scipy_sparse_eigs.npz", compressed=True, **arrs)


# --------------------------------------------------------------------------------------------


@section("signal_lti", folder="signal")
def gen_signal_lti(out: Path) -> None:
    """`lti.npz` in crates/signal/tests/data/, read by crates/signal/tests/lti_golden.rs (issue 7's
    design half: order selection, state-space conversions, LTI responses, partial fractions).
    Ragged values are packed as in `signal_design` (`<name>` and `<name>_off`).

    - `ord_params` (cases x 10): func (0 buttord, 1 cheb1ord, 2 cheb2ord, 3 ellipord), band
      (0 low, 1 high, 2 bandpass, 3 bandstop), analog, wp0, wp1, ws0, ws1, gpass, gstop, fs
      (0: none); `ord_n`, `ord_wn` (cases x 2; the second is 0 for low/high).
    - `iird_params` (cases x 10, as above with func = ftype 0 butter .. 3 ellip); `iird_b`,
      `iird_a` ragged (ba output).
    - `bso_*`: band_stop_obj values.
    - `tf2ss_num`/`tf2ss_den` ragged inputs, `tf2ss_{a,b,c,d}` ragged outputs.
    - `ss_{a,b,c,d}` one MIMO system (3 states, 2 inputs, 2 outputs); `ss2tf_num{i}`,
      `ss2tf_den{i}` for each input; `c2d_{method}_{a,b,c,d}` its cont2discrete at dt 0.1.
    - `lsim_*`, `dlsim_*`, `impulse_*`, `step_*`, `dimpulse_*`, `dstep_*`, `freqresp_*`,
      `bode_*`, `dfreqresp_*`, `dbode_*`: responses (see the test for the systems).
    - `res_*`: residue/residuez/invres/invresz cases; `ur_*`: unique_roots."""
    import scipy.signal as ss

    A: dict[str, np.ndarray] = {}

    def pack(name, values, dtype=np.float64):
        vals = [np.asarray(v, dtype=dtype).ravel() for v in values]
        A[name] = np.concatenate(vals) if vals else np.zeros(0, dtype)
        A[name + "_off"] = np.concatenate([[0], np.cumsum([len(v) for v in vals])]).astype(np.int64)

    # ---- order selection
    bands = [
        ([0.2], [0.3]), ([0.3], [0.2]), ([0.2, 0.5], [0.1, 0.6]), ([0.1, 0.6], [0.2, 0.5]),
    ]
    abands = [
        ([2.0], [3.5]), ([3.5], [2.0]), ([2.0, 5.0], [1.0, 7.0]), ([1.0, 7.0], [2.0, 5.0]),
    ]
    gains = [(3.0, 40.0), (1.0, 60.0), (0.5, 25.0), (0.1, 80.0)]
    funcs = [ss.buttord, ss.cheb1ord, ss.cheb2ord, ss.ellipord]
    params, ns, wns = [], [], []
    for fi, f in enumerate(funcs):
        for bi in range(4):
            for analog in (0, 1):
                for gp, gs in gains:
                    for fs in ((0.0, 300.0) if not analog else (0.0,)):
                        wp, ws = (abands if analog else bands)[bi]
                        if fs:
                            wp = [w * fs / 2 for w in wp]
                            ws = [w * fs / 2 for w in ws]
                        n, wn = f(wp, ws, gp, gs, analog=bool(analog), fs=fs or None)
                        wn = np.atleast_1d(wn)
                        params.append([fi, bi, analog, wp[0], wp[-1], ws[0], ws[-1], gp, gs, fs])
                        ns.append(n)
                        wns.append([wn[0], wn[-1] if len(wn) > 1 else 0.0])
    A["ord_params"] = np.array(params)
    A["ord_n"] = np.array(ns, dtype=np.int64)
    A["ord_wn"] = np.array(wns)
    ftypes = ["butter", "cheby1", "cheby2", "ellip"]
    params, bs, as_ = [], [], []
    for fi, ft in enumerate(ftypes):
        for bi in range(4):
            for analog in (0, 1):
                gp, gs = gains[(fi + bi) % 4]
                wp, ws = (abands if analog else bands)[bi]
                b, a = ss.iirdesign(wp, ws, gp, gs, analog=bool(analog), ftype=ft)
                params.append([fi, bi, analog, wp[0], wp[-1], ws[0], ws[-1], gp, gs, 0.0])
                bs.append(b)
                as_.append(a)
    A["iird_params"] = np.array(params)
    pack("iird_b", bs)
    pack("iird_a", as_)
    bso = []
    for kind in ("butter", "cheby", "ellip"):
        for wp, ind in ((0.15, 0), (0.3, 0), (0.9, 1), (0.8, 1)):
            bso.append(ss.band_stop_obj(wp, ind, np.array([0.1, 1.0]), np.array([0.4, 0.6]), 1.0, 40.0, kind))
    A["bso"] = np.array(bso)

    # ---- conversions
    r = rng("signal_lti", "conv")
    nums, dens = [], []
    for order in range(1, 7):
        for numlen in (1, order, order + 1):
            den = np.concatenate([[1.0 + r.random()], r.standard_normal(order)])
            nums.append(r.standard_normal(numlen))
            dens.append(den)
    pack("tf2ss_num", nums)
    pack("tf2ss_den", dens)
    outs = [ss.tf2ss(b, a) for b, a in zip(nums, dens)]
    for j, nm in enumerate("abcd"):
        pack(f"tf2ss_{nm}", [o[j] for o in outs])
    sa = r.standard_normal((3, 3)) - 2 * np.eye(3)
    sb = r.standard_normal((3, 2))
    sc = r.standard_normal((2, 3))
    sd = r.standard_normal((2, 2))
    A["ss_a"], A["ss_b"], A["ss_c"], A["ss_d"] = sa, sb, sc, sd
    for i in range(2):
        num, den = ss.ss2tf(sa, sb, sc, sd, input=i)
        A[f"ss2tf_num{i}"] = num
        A[f"ss2tf_den{i}"] = den
    for method, alpha in (("zoh", None), ("foh", None), ("bilinear", None), ("euler", None),
                          ("backward_diff", None), ("gbt", 0.3)):
        d = ss.cont2discrete((sa, sb, sc, sd), 0.1, method=method, alpha=alpha)
        for j, nm in enumerate("abcd"):
            A[f"c2d_{method}_{nm}"] = d[j]
    d = ss.cont2discrete((sa, sb, sc, np.zeros((2, 2))), 0.1, method="impulse")
    for j, nm in enumerate("abcd"):
        A[f"c2d_impulse_{nm}"] = d[j]
    tfd = ss.cont2discrete(([1.0, 2.0], [1.0, 3.0, 2.0]), 0.05)
    A["c2d_tf_num"], A["c2d_tf_den"] = np.ravel(tfd[0]), tfd[1]

    # ---- time responses
    tf_num, tf_den = [1.0, 3.0], [1.0, 2.0, 5.0, 4.0]
    A["sys_num"], A["sys_den"] = np.array(tf_num), np.array(tf_den)
    t = np.linspace(0.0, 5.0, 60)
    u = r.standard_normal(60)
    A["lsim_t"], A["lsim_u"] = t, u
    for interp in (0, 1):
        _, y, x = ss.lsim((tf_num, tf_den), u, t, X0=[0.5, -0.2, 0.1], interp=bool(interp))
        A[f"lsim_y_{interp}"], A[f"lsim_x_{interp}"] = y, x
    t2 = np.linspace(0.3, 3.0, 40)
    u2 = r.standard_normal((40, 2))
    A["lsim2_t"], A["lsim2_u"] = t2, u2
    _, y, x = ss.lsim((sa, sb, sc, sd), u2, t2)
    A["lsim2_y"], A["lsim2_x"] = y, x
    for nm, f in (("impulse", ss.impulse), ("step", ss.step)):
        tt, y = f((tf_num, tf_den))
        A[f"{nm}_t"], A[f"{nm}_y"] = tt, y
        # (SciPy's impulse broadcasts B (n, 1) + X0 (n,) to (n, n) and fails: step only)
        if nm == "step":
            tt, y = f((tf_num, tf_den), X0=[0.1, 0.2, 0.3], N=30)
            A[f"{nm}_x0_t"], A[f"{nm}_x0_y"] = tt, y
    dsys = (0.5 * sa * 0.3 + 0.1 * np.eye(3), sb, sc, sd, 0.1)
    ud = r.standard_normal((50, 2))
    A["dlsim_u"] = ud
    tt, y, x = ss.dlsim(dsys, ud, x0=[1.0, 0.0, -1.0])
    A["dlsim_t"], A["dlsim_y"], A["dlsim_x"] = tt, y, x
    for nm, f in (("dimpulse", ss.dimpulse), ("dstep", ss.dstep)):
        tt, y = f(dsys, n=40)
        A[f"{nm}_t"], A[f"{nm}_y"] = tt, np.stack(y)
    # frequency responses
    w = np.logspace(-2, 2, 25)
    A["fr_w"] = w
    for nm, sys in (("tf", (tf_num, tf_den)),
                    ("zpk", ss.tf2zpk(tf_num, tf_den)),
                    ("ss", ss.tf2ss(tf_num, tf_den))):
        ww, h = ss.freqresp(sys, w=w)
        A[f"freqresp_{nm}"] = h
        _, mag, ph = ss.bode(sys, w=w)
        A[f"bode_{nm}_mag"], A[f"bode_{nm}_phase"] = mag, ph
    ww, h = ss.freqresp((tf_num, tf_den), n=50)
    A["freqresp_n_w"], A["freqresp_n_h"] = ww, h
    dtf = ([0.2, 0.1], [1.0, -1.1, 0.5], 0.1)
    wd = np.linspace(0.0, 3.0, 20)
    A["dfr_w"] = wd
    _, h = ss.dfreqresp(dtf, w=wd)
    A["dfreqresp_tf"] = h
    z, p, k = ss.tf2zpk(dtf[0], dtf[1])
    _, h = ss.dfreqresp((z, p, k, 0.1), w=wd)
    A["dfreqresp_zpk"] = h
    ww, h = ss.dfreqresp(dtf, n=30, whole=True)
    A["dfreqresp_n_w"], A["dfreqresp_n_h"] = ww, h
    ww, mag, ph = ss.dbode(dtf, n=30)
    A["dbode_w"], A["dbode_mag"], A["dbode_phase"] = ww, mag, ph

    # ---- partial fractions
    cases = [
        ([1.0], [1.0, 3.0, 2.0]),
        ([1.0, 0.0, 2.0, 1.0], [1.0, 3.0, 2.0]),
        ([2.0, 1.0], np.poly([-1.0, -1.0, -2.0])),
        ([1.0, -1.0, 3.0], np.poly([-1.0, -1.0, -1.0, 0.5])),
        ([1.0, 2.0, 3.0], [1.0, 2.0, 5.0]),
        ([4.0, 0.0, 1.0, 2.0], np.poly([0.5, 0.5, -0.25])),
    ]
    rs, ps, ks, rzs, pzs, kzs = [], [], [], [], [], []
    for b, a in cases:
        rr, pp, kk = ss.residue(b, a)
        rs.append(rr); ps.append(pp); ks.append(kk)
        rr, pp, kk = ss.residuez(b, a)
        rzs.append(rr); pzs.append(pp); kzs.append(kk)
    pack("res_b", [c[0] for c in cases])
    pack("res_a", [c[1] for c in cases])
    pack("res_r", rs, np.complex128); pack("res_p", ps, np.complex128); pack("res_k", ks)
    pack("resz_r", rzs, np.complex128); pack("resz_p", pzs, np.complex128); pack("resz_k", kzs)
    ir_b, ir_a, irz_b, irz_a = [], [], [], []
    for rr, pp, kk, rz, pz, kz in zip(rs, ps, ks, rzs, pzs, kzs):
        b, a = ss.invres(rr, pp, kk)
        ir_b.append(b); ir_a.append(a)
        b, a = ss.invresz(rz, pz, kz)
        irz_b.append(b); irz_a.append(a)
    pack("invres_b", ir_b, np.complex128); pack("invres_a", ir_a, np.complex128)
    pack("invresz_b", irz_b, np.complex128); pack("invresz_a", irz_a, np.complex128)
    urp = np.array([1.0, 1.0005, 3.0, 2.9995 + 0.0003j, -1.0, 1.0008, 5.0 + 1e-4j])
    A["ur_p"] = urp
    for rt in ("min", "max", "avg"):
        u_, m_ = ss.unique_roots(urp, tol=1e-3, rtype=rt)
        A[f"ur_{rt}_u"], A[f"ur_{rt}_m"] = u_.astype(np.complex128), m_.astype(np.int64)
    # ---- FIR design: firwin2, firls, minimum_phase
    fw_cases = [
        (31, [0.0, 0.3, 0.5, 1.0], [1.0, 1.0, 0.0, 0.0], dict()),
        (30, [0.0, 0.4, 0.4, 1.0], [1.0, 1.0, 0.0, 0.0], dict(window="hann")),
        (25, [0.0, 0.2, 0.6, 1.0], [0.0, 1.0, 1.0, 0.0], dict(antisymmetric=True, window=None)),
        (24, [0.0, 0.5, 1.0], [0.0, 0.5, 1.0], dict(antisymmetric=True, nfreqs=129)),
        (17, [0.0, 100.0, 150.0, 250.0], [1.0, 0.7, 0.2, 0.0], dict(fs=500.0, window="blackman")),
        (9, [0.0, 0.5, 0.5, 1.0], [1.0, 1.0, 0.0, 0.0], dict(window=("kaiser", 4.0))),
    ]
    pack("firwin2", [ss.firwin2(n, f, g, **kw) for n, f, g, kw in fw_cases])
    fl_cases = [
        (11, [0.0, 0.3, 0.5, 1.0], [1.0, 1.0, 0.0, 0.0], None, None),
        (31, [0.0, 0.2, 0.3, 0.6, 0.7, 1.0], [0.0, 0.0, 1.0, 1.0, 0.0, 0.0], [1.0, 2.0, 1.0], None),
        (21, [0.0, 50.0, 100.0, 250.0], [1.0, 0.5, 0.2, 0.0], [3.0, 1.0], 500.0),
        (1, [0.0, 1.0], [1.0, 1.0], None, None),
    ]
    pack("firls", [ss.firls(n, b, d, weight=w, fs=fs) for n, b, d, w, fs in fl_cases])
    mp = []
    h1 = ss.firwin(31, 0.3)
    h2 = ss.firwin(24, [0.2, 0.5], pass_zero=False)
    mp.append(ss.minimum_phase(h1))
    mp.append(ss.minimum_phase(h1, n_fft=256, half=False))
    mp.append(ss.minimum_phase(h2))
    mp.append(ss.minimum_phase(h1, method="hilbert"))
    mp.append(ss.minimum_phase(h2, method="hilbert", n_fft=512))
    pack("minphase_h", [h1, h2])
    pack("minphase", mp)
    savez_fixed(out / "lti.npz", compressed=True, **A)


@section("signal_iir", folder="signal")
def gen_signal_iir(out: Path) -> None:
    """`iir.npz` in crates/signal/tests/data/, read by crates/signal/tests/{symiir,filtfilt}.rs.

    - `s1_x` (3, 80): `sym1` (c0 0.7, z1 0.4, batched rows), `sym1_neg` (c0 1.3, z1 -0.6),
      `sym1_prec` (precision 1e-3), `sym1_f32` (s1_x as f32), `s1_c` (40,) complex: `sym1_c`
      (c0 0.5+0.1j, z1 0.3+0.2j);
    - `s2_x` (2, 60): `sym2` (r 0.5, omega 0.6), `sym2_om0` (omega 0), `sym2_pi` (omega pi),
      `sym2_prec` (r 0.7, omega 1.1, precision 1e-4), `sym2_negr` (r -0.4, omega 0.9), `sym2_f32`;
    - `g_b`, `g_a` = butter(4, 0.2); `g_x` (3, 200): `gust` (filtfilt method gust), `gust_ir`
      (irlen 30), `gust_ax0` (g_x.T, axis 0), `gust_short` (g_x[:, :7]); `g_c` (150,) complex:
      `gust_c`; `g_b3`, `g_a3` = cheby1(3, 1, 0.3): `gust_cheb` on g_x, irlen 40.
    """
    import scipy.signal as ss

    r = rng("signal", "iir")
    a = {}
    x1 = r.standard_normal((3, 80))
    a["s1_x"] = x1
    a["sym1"] = ss.symiirorder1(x1, 0.7, 0.4)
    a["sym1_neg"] = ss.symiirorder1(x1, 1.3, -0.6)
    a["sym1_prec"] = ss.symiirorder1(x1, 0.7, 0.4, precision=1e-3)
    a["sym1_f32"] = ss.symiirorder1(x1.astype(np.float32), 0.7, 0.4)
    xc = r.standard_normal(40) + 1j * r.standard_normal(40)
    a["s1_c"] = xc
    a["sym1_c"] = ss.symiirorder1(xc, 0.5 + 0.1j, 0.3 + 0.2j)
    x2 = r.standard_normal((2, 60))
    a["s2_x"] = x2
    a["sym2"] = ss.symiirorder2(x2, 0.5, 0.6)
    a["sym2_om0"] = ss.symiirorder2(x2, 0.5, 0.0)
    a["sym2_pi"] = ss.symiirorder2(x2, 0.5, np.pi)
    a["sym2_prec"] = ss.symiirorder2(x2, 0.7, 1.1, precision=1e-4)
    a["sym2_negr"] = ss.symiirorder2(x2, -0.4, 0.9)
    a["sym2_f32"] = ss.symiirorder2(x2.astype(np.float32), 0.5, 0.6)
    b, aa = ss.butter(4, 0.2)
    a["g_b"], a["g_a"] = b, aa
    gx = r.standard_normal((3, 200))
    a["g_x"] = gx
    a["gust"] = ss.filtfilt(b, aa, gx, method="gust")
    a["gust_ir"] = ss.filtfilt(b, aa, gx, method="gust", irlen=30)
    a["gust_ax0"] = ss.filtfilt(b, aa, gx.T, axis=0, method="gust")
    a["gust_short"] = ss.filtfilt(b, aa, gx[:, :7], method="gust")
    gc = r.standard_normal(150) + 1j * r.standard_normal(150)
    a["g_c"] = gc
    a["gust_c"] = ss.filtfilt(b, aa, gc, method="gust")
    b3, a3 = ss.cheby1(3, 1, 0.3)
    a["g_b3"], a["g_a3"] = b3, a3
    a["gust_cheb"] = ss.filtfilt(b3, a3, gx, method="gust", irlen=40)
    savez_fixed(out / "iir.npz", compressed=True, **a)


@section("signal_lti2", folder="signal")
def gen_signal_lti2(out: Path) -> None:
    """`lti2.npz` in crates/signal/tests/data/, read by crates/signal/tests/placepoles.rs and
    crates/signal/tests/lti_golden.rs (issue 7: place_poles, dlsim's `t`, SIMO transfer functions).
    Ragged values are packed as in `signal_lti` (`<name>` and `<name>_off`).

    - `pp_dims` (cases x 4): n, m, method (0 YT, 1 KNV0), deterministic (1: rank(B) = n or one
      input, the gain is unique); `pp_a`, `pp_b`, `pp_poles` (complex) ragged inputs;
      `pp_gain`, `pp_computed` (complex), `pp_requested` (complex) ragged outputs; `pp_absdet`:
      SciPy's |det X| (columns of unit norm), `pp_nb_iter` (-1 for NaN).
    - `dlsimt_*`: dlsim of one 2-input, 2-output, 3-state system (dt 0.1) with `t` given:
      case k has `dlsimt_t{k}`, `dlsimt_u{k}` in, `dlsimt_tout{k}`, `dlsimt_y{k}`, `dlsimt_x{k}` out.
    - `simo_*`: tf2ss of a 2-D numerator (`simo_num` (2 x 4), `simo_den`) -> `simo_{a,b,c,d}`;
      ss2tf of that system back (`simo_ss2tf_num`, `simo_ss2tf_den`); lsim of the SIMO lti
      (`simo_lsim_t`, `simo_lsim_u`, `simo_lsim_y`)."""
    import warnings

    import scipy.signal as ss

    A: dict[str, np.ndarray] = {}

    def pack(name, values, dtype=np.float64):
        vals = [np.asarray(v, dtype=dtype).ravel() for v in values]
        A[name] = np.concatenate(vals) if vals else np.zeros(0, dtype)
        A[name + "_off"] = np.concatenate([[0], np.cumsum([len(v) for v in vals])]).astype(np.int64)

    # ---- place_poles
    r = rng("signal_lti2", "place_poles")
    doc_a = np.array([[1.380, -0.2077, 6.715, -5.676],
                      [-0.5814, -4.290, 0, 0.6750],
                      [1.067, 4.273, -6.654, 5.893],
                      [0.0480, 4.273, 1.343, -2.104]])
    doc_b = np.array([[0, 5.679], [1.136, 1.136], [0, 0], [-3.146, 0]])
    cases = [
        (doc_a, doc_b, [-0.2, -0.5, -5.0566, -8.6659], "YT"),
        (doc_a, doc_b, [-0.2, -0.5, -5.0566, -8.6659], "KNV0"),
        (doc_a, doc_b, [-0.5 + 1j, -0.5 - 1j, -5.0566, -8.6659], "YT"),
        (doc_a, doc_b[:, :1], [-0.5 + 1j, -0.5 - 1j, -5.0566, -8.6659], "YT"),
        (doc_a, doc_b[:, 1:], [-1.0, -2.0, -3.0, -4.0], "KNV0"),
    ]
    a5, b5 = r.standard_normal((5, 5)), r.standard_normal((5, 2))
    cases += [
        (a5, b5, [-1.0, -2.0, -3.0, -4.0, -5.0], "YT"),
        (a5, b5, [-1.0, -2.0, -3.0, -4.0, -5.0], "KNV0"),
        (a5, b5, [-2.0, -1 - 1j, -1 + 1j, -3 + 2j, -3 - 2j], "YT"),
        (a5, b5, [-1.0, -1.0, -3.0, -4 + 0.5j, -4 - 0.5j], "YT"),
        (a5, b5[:, :1], [-2.0, -1 - 1j, -1 + 1j, -3 + 2j, -3 - 2j], "YT"),
    ]
    a6, b6 = r.standard_normal((6, 6)), r.standard_normal((6, 3))
    cases += [
        (a6, b6, [-1.0, -2.0, -2.0, -3.0, -5.0, -6.0], "YT"),
        (a6, b6, [-1.0, -2.0, -2.0, -3.0, -5.0, -6.0], "KNV0"),
        (a6, b6, [-1 + 2j, -1 - 2j, -2 + 1j, -2 - 1j, -3 + 0.5j, -3 - 0.5j], "YT"),
        (a6, b6, [-1.5, -1 + 2j, -1 - 2j, -2.5, -0.5, -4.0], "YT"),
    ]
    a3, b3 = r.standard_normal((3, 3)), r.standard_normal((3, 3))
    cases += [
        (a3, b3, [-1.0, -2 + 1j, -2 - 1j], "YT"),
        (a3, np.c_[b3, r.standard_normal((3, 1))], [-1.0, -2.0, -3.0], "YT"),
        (a3, b3[:, :1], [-1.0, -2.0, -3.0], "YT"),
    ]
    dims, pa, pb, pp, gains, comps, reqs, dets, iters = [], [], [], [], [], [], [], [], []
    for a, b, p, meth in cases:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = ss.place_poles(a, b, np.array(p), method=meth)
        rank = np.linalg.matrix_rank(b)
        det = int(rank == a.shape[0] or b.shape[1] == 1)
        dims.append([a.shape[0], b.shape[1], int(meth == "KNV0"), det])
        pa.append(a); pb.append(b); pp.append(np.array(p, dtype=complex))
        gains.append(res.gain_matrix)
        comps.append(res.computed_poles); reqs.append(res.requested_poles)
        x = np.asarray(res.X)
        dets.append(abs(np.linalg.det(x / np.linalg.norm(x, axis=0))))
        iters.append(-1 if np.isnan(res.nb_iter) else int(res.nb_iter))
    A["pp_dims"] = np.array(dims, dtype=np.int64)
    pack("pp_a", pa); pack("pp_b", pb); pack("pp_poles", pp, np.complex128)
    pack("pp_gain", gains)
    pack("pp_computed", comps, np.complex128); pack("pp_requested", reqs, np.complex128)
    A["pp_absdet"] = np.array(dets)
    A["pp_nb_iter"] = np.array(iters, dtype=np.int64)

    # ---- dlsim with t
    r = rng("signal_lti2", "dlsim_t")
    sa = r.standard_normal((3, 3)) * 0.3
    sb, sc, sd = r.standard_normal((3, 2)), r.standard_normal((2, 3)), r.standard_normal((2, 2))
    A["dlsimt_a"], A["dlsimt_b"], A["dlsimt_c"], A["dlsimt_d"] = sa, sb, sc, sd
    ts = [
        np.arange(12) * 0.1,                  # the system's own grid
        np.linspace(0.0, 1.65, 12),           # a coarser grid, stop not a multiple of dt
        np.linspace(0.25, 1.3, 8),            # starts late: extrapolated to 0
        np.sort(r.uniform(0.0, 1.0, 9)),      # uneven times
    ]
    # (one sample, t = [t0]: SciPy's make_interp_spline(k=1) of one point gives NaN at t0 and 0
    # elsewhere, so dlsim's output is meaningless; cusci refuses a single time)
    for k, t in enumerate(ts):
        u = r.standard_normal((len(t), 2))
        tout, y, x = ss.dlsim((sa, sb, sc, sd, 0.1), u, t=t, x0=[0.3, -0.2, 0.5])
        A[f"dlsimt_t{k}"], A[f"dlsimt_u{k}"] = t, u
        A[f"dlsimt_tout{k}"], A[f"dlsimt_y{k}"], A[f"dlsimt_x{k}"] = tout, y, x

    # ---- SIMO transfer functions
    num = np.array([[0.0, 1.0, 2.0, 3.0], [1.0, -1.0, 0.5, 2.0]])
    den = np.array([2.0, 3.0, 1.0, 0.5])
    A["simo_num"], A["simo_den"] = num, den
    sa, sb, sc, sd = ss.tf2ss(num, den)
    A["simo_a"], A["simo_b"], A["simo_c"], A["simo_d"] = sa, sb, sc, sd
    n2, d2 = ss.ss2tf(sa, sb, sc, sd)
    A["simo_ss2tf_num"], A["simo_ss2tf_den"] = n2, d2
    num0 = np.array([[0.0, 0.0, 1.0, 2.0], [0.0, 0.0, 3.0, -1.0]])
    a0, b0, c0, d0 = ss.tf2ss(num0, den)
    A["simo0_num"], A["simo0_c"], A["simo0_d"] = num0, c0, d0
    t = np.linspace(0.0, 4.0, 30)
    u = r.standard_normal(30)
    _, y, _ = ss.lsim(ss.lti(num, den), u, t)
    A["simo_lsim_t"], A["simo_lsim_u"], A["simo_lsim_y"] = t, u, y
    savez_fixed(out / "lti2.npz", compressed=True, **A)


# --------------------------------------------------------------------------------------------
# cusci-ndimage filters with SciPy's `output=` dtype (crates/ndimage/src/filters/output/):
# every input type x every output type for the filters below, on 5x7 inputs. Written to
# crates/ndimage/tests/data/ndimage_output.npz, read by crates/ndimage/tests/filter_output.rs.
# Members: `x_<in>` inputs, `W` weights, `FP` footprint, `<case>__<in>__<out>` SciPy's results
# (absent where SciPy refuses the combination). The cases' arguments are repeated in the test.
# --------------------------------------------------------------------------------------------


@section("ndimage_output", folder="ndimage")
def gen_ndimage_output(out: Path) -> None:
    import scipy.ndimage as ndi

    r = lambda name: rng("ndimage_output", name)
    shape = (5, 7)
    X = {
        "u8": r("u8").integers(0, 256, size=shape).astype(np.uint8),
        "i32": r("i32").integers(-3000, 3000, size=shape).astype(np.int32),
        "i64": r("i64").integers(-(10**6), 10**6, size=shape).astype(np.int64),
        "f32": (r("f32").standard_normal(shape) * 200).astype(np.float32),
        "f64": r("f64").standard_normal(shape) * 300,
        "bool": r("bool").random(shape) < 0.5,
    }
    X["i32"][1, 2], X["i32"][3, 5] = 2_000_000_000, -2_100_000_000  # overflow of the stores
    X["i64"][2, 3] = 2**40
    X["f64"][0, 0], X["f64"][4, 6] = 1e12, -7e9  # beyond i32 and u8 stores
    W = np.array([[0.25, -1.5, 0.0], [2.0, 0.75, -0.5], [0.0, 1.25, -2.0]])
    FP = np.array([[1, 0, 1], [0, 1, 1]], dtype=bool)
    outs = {"f64": np.float64, "f32": np.float32, "i32": np.int32, "i64": np.int64,
            "u8": np.uint8, "bool": np.bool_}
    cases = {
        "correlate1d": lambda x, o: ndi.correlate1d(x, [0.3, -1.2, 2.5], 0, output=o),
        "correlate": lambda x, o: ndi.correlate(x, W, output=o, mode="nearest"),
        "convolve": lambda x, o: ndi.convolve(x, W, output=o, mode="constant", cval=1.5),
        "gaussian": lambda x, o: ndi.gaussian_filter(x, [1.0, 1.5], output=o),
        "gaussian_order": lambda x, o: ndi.gaussian_filter(
            x, [1.2, 0.9], order=[0, 1], output=o, truncate=3.0, mode="mirror"),
        "gaussian1d": lambda x, o: ndi.gaussian_filter1d(x, 1.3, 0, order=1, output=o),
        "convolve1d": lambda x, o: ndi.convolve1d(
            x, [0.5, -2.0, 1.25, 0.75], 1, output=o, mode="wrap"),
        "uniform1d": lambda x, o: ndi.uniform_filter1d(x, 4, 1, output=o, origin=1),
        "minimum1d": lambda x, o: ndi.minimum_filter1d(
            x, 3, 0, output=o, mode="constant", cval=1.5),
        "maximum1d": lambda x, o: ndi.maximum_filter1d(x, 4, 1, output=o, mode="nearest"),
        "uniform": lambda x, o: ndi.uniform_filter(x, [3, 4], output=o, mode="mirror"),
        "sobel": lambda x, o: ndi.sobel(x, 0, output=o),
        "prewitt": lambda x, o: ndi.prewitt(x, 1, output=o, mode="nearest"),
        "laplace": lambda x, o: ndi.laplace(x, output=o),
        "gaussian_laplace": lambda x, o: ndi.gaussian_laplace(x, [1.0, 0.8], output=o, mode="nearest"),
        "gradient_magnitude": lambda x, o: ndi.gaussian_gradient_magnitude(x, [0.9, 1.1], output=o),
        "minimum": lambda x, o: ndi.minimum_filter(x, size=[3, 2], output=o),
        "maximum": lambda x, o: ndi.maximum_filter(x, size=[2, 3], output=o, mode="wrap"),
        "maximum_fp": lambda x, o: ndi.maximum_filter(x, footprint=FP, output=o),
        "median": lambda x, o: ndi.median_filter(x, size=[3, 3], output=o),
        "rank_fp": lambda x, o: ndi.rank_filter(x, -2, footprint=FP, output=o, mode="mirror"),
        "percentile": lambda x, o: ndi.percentile_filter(x, 30, size=[2, 3], output=o),
    }
    A: dict[str, np.ndarray] = {"W": W, "FP": FP}
    import warnings

    for k, x in X.items():
        A[f"x_{k}"] = x
        for c, f in cases.items():
            for ok, ot in outs.items():
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        A[f"{c}__{k}__{ok}"] = f(x, ot)
                except (RuntimeError, TypeError, ValueError):
                    pass
    savez_fixed(out / "ndimage_output.npz", compressed=True, **A)


# --------------------------------------------------------------------------------------------
# cusci-ndimage complex input (issue 32; crates/ndimage/src/complex.rs): the linear filters and
# the geometric transforms of complex128 and complex64 inputs, real and complex weights.
# Written to crates/ndimage/tests/data/ndimage_complex.npz, read by
# crates/ndimage/tests/complex.rs. Members: `x_c128`, `x_c64` (5x7), `W`, `WC` (3x3 real and
# complex weights), `w1`, `w1c` (1-D), `coords` (2x4x3), `<case>__<in>` SciPy's results; the
# cases' arguments are repeated in the test.
# --------------------------------------------------------------------------------------------


@section("ndimage_complex", folder="ndimage")
def gen_ndimage_complex(out: Path) -> None:
    import scipy.ndimage as ndi

    r = lambda name: rng("ndimage_complex", name)
    shape = (5, 7)
    z = r("re").standard_normal(shape) * 3 + 1j * r("im").standard_normal(shape) * 2
    X = {"c128": z, "c64": z.astype(np.complex64)}
    W = np.array([[0.25, -1.5, 0.0], [2.0, 0.75, -0.5], [0.0, 1.25, -2.0]])
    WC = W + 1j * np.array([[1.0, 0.0, -0.5], [0.25, -1.0, 0.0], [0.5, 0.0, 1.5]])
    w1 = np.array([0.3, -1.2, 2.5])
    w1c = np.array([0.5 - 1j, -2.0 + 0.25j, 1.25j, 0.75])
    coords = np.stack([r("cy").uniform(-1, 5, (4, 3)), r("cx").uniform(-1, 7, (4, 3))])
    M = np.array([[0.9, 0.3], [-0.2, 1.1]])
    cases = {
        "correlate": lambda x: ndi.correlate(x, W, mode="nearest"),
        "correlate_c": lambda x: ndi.correlate(x, WC, mode="constant", cval=1.5),
        "convolve_c": lambda x: ndi.convolve(x, WC),
        "correlate1d": lambda x: ndi.correlate1d(x, w1, 0, mode="wrap"),
        "correlate1d_c": lambda x: ndi.correlate1d(x, w1c, 1, mode="mirror"),
        "convolve1d_c": lambda x: ndi.convolve1d(x, w1c, 1, mode="constant", cval=-0.5),
        "gaussian": lambda x: ndi.gaussian_filter(x, [1.0, 1.5]),
        "gaussian1d": lambda x: ndi.gaussian_filter1d(x, 1.3, 0, order=1, mode="constant", cval=2.0),
        "uniform": lambda x: ndi.uniform_filter(x, [3, 4], mode="mirror"),
        "uniform1d": lambda x: ndi.uniform_filter1d(x, 4, 1, mode="constant", cval=2.0),
        "map_coordinates": lambda x: ndi.map_coordinates(x, coords, order=3, mode="nearest"),
        "affine": lambda x: ndi.affine_transform(x, M, [0.5, -1.0], order=1, mode="constant", cval=1.5),
        "shift": lambda x: ndi.shift(x, [0.5, -1.25], order=3, mode="reflect"),
        "zoom": lambda x: ndi.zoom(x, [1.5, 0.8], order=2, mode="nearest", grid_mode=True),
        "rotate": lambda x: ndi.rotate(x, 30.0, reshape=True, order=1, cval=0.5),
        "sobel": lambda x: ndi.sobel(x, 1, mode="constant", cval=1.0),
        "prewitt": lambda x: ndi.prewitt(x, 0, mode="nearest"),
        "laplace": lambda x: ndi.laplace(x, mode="wrap"),
        "gaussian_laplace": lambda x: ndi.gaussian_laplace(x, [1.0, 0.7], mode="constant", cval=-1.0),
        "spline_filter": lambda x: ndi.spline_filter(x, 3, mode="mirror"),
        "spline_filter1d": lambda x: ndi.spline_filter1d(x, 4, 0, mode="nearest"),
    }
    A: dict[str, np.ndarray] = {"W": W, "WC": WC, "w1": w1, "w1c": w1c, "coords": coords}
    import warnings

    for k, x in X.items():
        A[f"x_{k}"] = x
        for c, f in cases.items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                A[f"{c}__{k}"] = f(x)
    savez_fixed(out / "ndimage_complex.npz", compressed=True, **A)


@section("signal_convwin", folder="signal")
def gen_signal_convwin(out: Path) -> None:
    """choose_conv_method (SciPy's CPU rule), overlap-add oaconvolve and dpss: `convwin.npz`.

    `ccm` rows (n1, n2, mode 0 full / 1 same / 2 valid, 1 if 'fft') for 1-D shapes, `ccm2` rows
    (a0, a1, b0, b1, mode, fft) for 2-D; `oa_<case>_a`/`_b` inputs and `oa_<case>_<mode>`
    results (f64; `_re`/`_im` for the complex case); `dpss_<case>` windows and
    `dpss_<case>_ratios`.
    """
    import scipy.signal as ss
    from scipy.signal.windows import dpss

    a = {}
    modes = ["full", "same", "valid"]
    rows = []
    for n1 in [5, 10, 100, 1000, 3000, 10000, 100000]:
        for n2 in [3, 8, 30, 300, 1000, 3000, 30000]:
            for mi, mode in enumerate(modes):
                x, h = np.zeros(n1), np.zeros(n2)
                rows.append([n1, n2, mi, ss.choose_conv_method(x, h, mode=mode) == "fft"])
    a["ccm"] = np.array(rows, dtype=np.int64)
    rows = []
    for s1 in [(8, 8), (64, 64), (256, 300), (1000, 1000)]:
        for s2 in [(3, 3), (5, 9), (31, 31), (100, 80)]:
            for mi, mode in enumerate(modes):
                x, h = np.zeros(s1), np.zeros(s2)
                rows.append([*s1, *s2, mi, ss.choose_conv_method(x, h, mode=mode) == "fft"])
    a["ccm2"] = np.array(rows, dtype=np.int64)

    def sec_rng(name):
        return rng("signal_convwin", name)

    cases = {
        "long": ((1000,), (37,), None),
        "swap": ((37,), (1000,), None),
        "fallback": ((50,), (30,), None),
        "f2d": ((60, 80), (7, 9), None),
        "bcast": ((3, 200, 2), (1, 25, 2), [1]),
        "axes02": ((30, 2, 48), (6, 2, 5), [0, 2]),
        "mixed": ((200, 9), (10, 40), None),
    }
    for name, (sa, sb, axes) in cases.items():
        x = sec_rng(name + "_a").standard_normal(sa)
        h = sec_rng(name + "_b").standard_normal(sb)
        a[f"oa_{name}_a"], a[f"oa_{name}_b"] = x, h
        for mode in modes:
            try:
                a[f"oa_{name}_{mode}"] = ss.oaconvolve(x, h, mode=mode, axes=axes)
            except ValueError:
                pass
    xc = sec_rng("cplx_a").standard_normal((500, 2)) @ np.array([1, 1j])
    hc = sec_rng("cplx_b").standard_normal((20, 2)) @ np.array([1, 1j])
    a["oa_cplx_a_re"], a["oa_cplx_a_im"] = xc.real.copy(), xc.imag.copy()
    a["oa_cplx_b_re"], a["oa_cplx_b_im"] = hc.real.copy(), hc.imag.copy()
    for mode in modes:
        y = ss.oaconvolve(xc, hc, mode=mode)
        a[f"oa_cplx_{mode}_re"], a[f"oa_cplx_{mode}_im"] = y.real.copy(), y.imag.copy()

    dcases = {
        "m64_nw3": (64, 3, None, True, None),
        "m64_nw3_k5": (64, 3, 5, True, None),
        "m65_nw2p5_k4_per": (65, 2.5, 4, False, None),
        "m31_nw3_k3_approx": (31, 3, 3, True, "approximate"),
        "m32_nw3_k3_approx": (32, 3, 3, True, "approximate"),
        "m32_nw3_k3_sub": (32, 3, 3, True, "subsample"),
        "m33_nw3_k3_sub_per": (33, 3, 3, False, "subsample"),
        "m40_nw1_k2_l2": (40, 1.0, 2, True, 2),
        "m128_nw4_k7": (128, 4, 7, True, None),
        "m512_nw2_k3_per": (512, 2, 3, False, None),
        "m1_nw3_k1": (1, 3, 1, True, None),
        "m5_nw2_k5": (5, 2, 5, True, None),
    }
    for name, (m, nw, k, sym, norm) in dcases.items():
        w, r = dpss(m, nw, Kmax=k, sym=sym, norm=norm, return_ratios=True)
        a[f"dpss_{name}"] = np.asarray(w, dtype=np.float64)
        a[f"dpss_{name}_ratios"] = np.atleast_1d(np.asarray(r, dtype=np.float64))
    # a long one: every 97th point of 12 windows, and the ratios
    w, r = dpss(4096, 6, Kmax=12, return_ratios=True)
    a["dpss_big_cols97"], a["dpss_big_ratios"] = w[:, ::97].copy(), r
    for n in [1, 8, 33]:
        a[f"win_dpss3_{n}_per"] = ss.get_window(("dpss", 3), n)
        a[f"win_dpss3_{n}_sym"] = ss.get_window(("dpss", 3), n, fftbins=False)
    savez_fixed(out / "convwin.npz", compressed=True, **a)


# --------------------------------------------------------------------------------------------
# cusci-linalg (second file): the scipy.linalg names past CuPy. Written to
# crates/linalg/tests/data/scipy_linalg_extra.npz, read by crates/linalg/tests/scipy_extra.rs.
# Inputs are rounded to float32 first (so the f32 tests read the same matrices exactly) and
# stored as float64 / complex128; members: `in_<key>` inputs, `<fn>_<case>_<field>` results.
# Bases that are unique only up to a unitary mixing (null_space, orth) are stored as their
# projectors `Q Qᴴ` plus the column count.
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# issue 32: SciPy parity of signal.medfilt (an N-D window) and ndimage.binary_hit_or_miss (edges)
# --------------------------------------------------------------------------------------------


@section("signal_parity", folder="signal")
def gen_signal_parity(out: Path) -> None:
    """`parity.npz` in crates/signal/tests/data/, read by crates/signal/tests/medfilt.rs.

    - `medfilt_<case>_x` (f64 or f32), `medfilt_<case>_k` (int64, one size per axis, or one
      value for SciPy's scalar `kernel_size`), `medfilt_<case>_out` = medfilt(x, k): 2-D and 3-D
      inputs, odd shapes, per-axis sizes, windows longer than the input, single-axis windows
      along the first, middle and last axes (the fast 1-D path).
    """
    import warnings

    import scipy.signal as ss

    a = {}
    cases = [
        ("2d_k3", (9, 12), [3], np.float64),
        ("2d_k53", (9, 12), [5, 3], np.float64),
        ("2d_k15", (9, 12), [1, 5], np.float64),
        ("2d_k71", (9, 12), [7, 1], np.float64),
        ("2d_big", (4, 5), [7], np.float64),
        ("2d_row", (1, 13), [3], np.float64),
        ("2d_f32", (11, 10), [3, 5], np.float32),
        ("2d_long0", (40, 3), [33, 1], np.float64),
        ("3d_k3", (5, 6, 7), [3], np.float64),
        ("3d_k315", (5, 6, 7), [3, 1, 5], np.float64),
        ("3d_k171", (5, 6, 7), [1, 7, 1], np.float64),
        ("3d_odd", (3, 1, 4), [3], np.float64),
        ("3d_k555", (6, 5, 4), [5, 5, 5], np.float32),
        ("1d_k9", (23,), [9], np.float64),
    ]
    for name, shape, k, dt in cases:
        x = rng("signal_parity", f"medfilt_{name}").standard_normal(shape).astype(dt)
        # ties: a few repeated values and exact zeros (the padding's value)
        flat = x.reshape(-1)
        flat[::7] = 0.0
        flat[1::11] = flat[0]
        ks = k[0] if len(k) == 1 else k
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # kernel_size exceeds volume extent
            y = ss.medfilt(x, ks)
        assert y.dtype == dt
        a[f"medfilt_{name}_x"] = x
        a[f"medfilt_{name}_k"] = np.array(k, dtype=np.int64)
        a[f"medfilt_{name}_out"] = y
    savez_fixed(out / "parity.npz", compressed=True, **a)


@section("signal_names", folder="signal")
def gen_signal_names(out: Path) -> None:
    """`names.npz` in crates/signal/tests/data/, read by crates/signal/tests/names.rs (issue 32's
    last names).

    - `remez_<case>` (f64), one row per case: [numtaps, type (0 bandpass, 1 differentiator,
      2 hilbert), grid_density, maxiter, fs, nb, bands (2 nb), desired (nb), weight (nb), taps]
      with taps = remez(numtaps, bands, desired, weight=, type=, grid_density=, maxiter=, fs=).
    - `f2d_<case>` = firwin_2d(hsize, window, fc=, fs=, circular=) for the cases listed below.
    - `wh_<case>` (f64): [n, order, lamb (-1: 'reml'), weighted, lamb used, y (n), w (n), x (n)],
      x = whittaker_henderson(y, lamb=, order=, weights=w if weighted): SciPy 1.18's definition
      computed by dense NumPy solves (see below).
    - `fpc_<case>_x`, `fpc_<case>_peaks` (int64) = find_peaks_cwt(x, widths, ...) for the cases
      listed below (the widths and options are repeated in the Rust test).
    - `cx_*`: welch and csd of complex data (two-sided), see below.
    - `scipy_version`: the SciPy that wrote the file (major, minor, micro).
    """
    import scipy
    import scipy.signal as ss

    a = {"scipy_version": np.array([int(v) for v in scipy.__version__.split(".")[:3]])}
    types = ["bandpass", "differentiator", "hilbert"]
    remez_cases = [
        ("lp11", 11, [0, 0.1, 0.2, 0.5], [1, 0], None, 0, 16, 25, 1.0),
        ("lp12", 12, [0, 0.1, 0.2, 0.5], [1, 0], None, 0, 16, 25, 1.0),
        ("lp2", 2, [0, 0.1, 0.2, 0.5], [1, 0], None, 0, 16, 25, 1.0),
        ("lp3", 3, [0, 0.1, 0.2, 0.5], [1, 0], None, 0, 16, 25, 1.0),
        ("lp72", 72, [0, 0.1, 0.2, 0.5], [1, 0], [1, 10], 0, 16, 25, 1.0),
        ("hp_fs", 125, [0, 1750, 2000, 11025], [0, 1], None, 0, 16, 25, 22050.0),
        ("bp63", 63, [0, 1740, 2000, 5000, 5260, 11025], [0, 1, 0], None, 0, 16, 25, 22050.0),
        ("bs_w", 55, [0, 0.15, 0.2, 0.3, 0.35, 0.5], [1, 0, 1], [1, 3, 1], 0, 16, 25, 1.0),
        ("hard101", 101, [0, 0.1, 0.1001, 0.5], [1, 0], None, 0, 16, 25, 1.0),
        ("grid8", 31, [0, 0.2, 0.25, 0.5], [1, 0], [2, 1], 0, 8, 25, 1.0),
        ("iter3", 41, [0, 0.2, 0.25, 0.5], [1, 0], None, 0, 16, 3, 1.0),
        ("hil11", 11, [0.05, 0.45], [1], None, 2, 16, 25, 1.0),
        ("hil12", 12, [0.0, 0.5], [1], None, 2, 16, 25, 1.0),
        ("hil31", 31, [0.05, 0.45], [1], None, 2, 16, 25, 1.0),
        ("dif11", 11, [0.0, 0.5], [1], None, 1, 16, 25, 1.0),
        ("dif12", 12, [0.0, 0.5], [1], None, 1, 16, 25, 1.0),
        ("dif30", 30, [0.0, 0.35, 0.4, 0.5], [1, 0], None, 1, 16, 25, 1.0),
        ("multi", 81, [0, 0.05, 0.1, 0.2, 0.25, 0.3, 0.35, 0.5], [0, 1, 0.5, 0], [3, 1, 1, 3], 0, 16, 25, 1.0),
    ]
    for name, n, bands, desired, weight, t, gd, mi, fs in remez_cases:
        h = ss.remez(n, bands, desired, weight=weight, type=types[t], grid_density=gd,
                     maxiter=mi, fs=fs)
        w = weight if weight is not None else [1.0] * len(desired)
        head = [n, t, gd, mi, fs, len(desired)]
        a[f"remez_{name}"] = np.array(head + list(bands) + list(desired) + list(w) + list(h),
                                      dtype=np.float64)
    # firwin_2d: the cases of tests/names.rs `firwin_2d_golden_scipy`, in its order
    f2d = [
        ("sep55", (5, 5), ("hamming", "hamming"), 0.1, 2.0, False),
        ("sep47", (4, 7), ("hann", "blackman"), 0.3, 2.0, False),
        ("sep75bs", (7, 5), (("kaiser", 5.0), "boxcar"), [0.2, 0.5], 2.0, False),
        ("sepfs", (9, 3), ("hamming", "hann"), 2.5, 10.0, False),
        ("circ55", (5, 5), "hamming", 0.1, 2.0, True),
        ("circ46", (4, 6), "hann", 0.3, 2.0, True),
        ("circ99", (9, 9), ("kaiser", 8.6), 0.5, 2.0, True),
        ("circ1", (1, 3), "blackman", 0.4, 2.0, True),
    ]
    for name, hs, win, fc, fs, circ in f2d:
        a[f"f2d_{name}"] = np.asarray(ss.firwin_2d(hs, win, fc=fc, fs=fs, circular=circ),
                                      dtype=np.float64)
    # whittaker_henderson (SciPy 1.18; the newest SciPy on the index here is 1.17, so SciPy's
    # definition is computed directly: dense solves of (W + lamb D'D) x = W y, the profiled
    # REML criterion with dense log-determinants minimised by minimize_scalar(bracket=[-10, 10]),
    # NumPy's Polynomial.fit for the large-lambda limit)
    import scipy.optimize as so

    def wh_dense(y, lamb, order, w):
        n = len(y)
        D = np.diff(np.eye(n), n=order, axis=0)
        A = np.diag(w) + lamb * (D.T @ D)
        x = np.linalg.solve(A, w * y)
        return x, np.linalg.slogdet(A)[1], D

    def wh_ref(y, lamb, order, w):
        y = np.where(w == 0, 0.0, y)
        n = len(y)
        if lamb == "reml":
            def crit(ll):
                lam = np.exp(ll)
                x, logdet, D = wh_dense(y, lam, order, w)
                r2 = (y - x) @ (w * (y - x)) + lam * np.sum(np.diff(x, n=order) ** 2)
                ldd = np.linalg.slogdet(D @ D.T)[1]
                m = n - order
                return 0.5 * (m * (1 + np.log(r2 / m)) - (m * np.log(lam) + ldd) + logdet)
            lamb = float(np.exp(so.minimize_scalar(crit, bracket=[-10, 10]).x))
        if lamb * np.finfo(float).eps > 8:
            fit = np.polynomial.Polynomial.fit(np.arange(n), y, deg=order - 1, w=w)
            return fit(np.arange(n)), lamb
        return wh_dense(y, lamb, order, w)[0], lamb

    whc = [
        ("fix2", 40, 2, 10.0, False),
        ("fix1", 25, 1, 3.5, False),
        ("fix3w", 30, 3, 50.0, True),
        ("reml2", 60, 2, "reml", False),
        ("reml2w", 45, 2, "reml", True),
        ("reml3", 50, 3, "reml", False),
        ("huge", 20, 2, 1e17, False),
        ("short", 3, 2, 2.0, False),
    ]
    for name, n, order, lamb, weighted in whc:
        r = rng("signal_names", f"wh_{name}")
        t = np.arange(n)
        y = np.sin(t / 5.0) + 0.01 * t + 0.3 * r.standard_normal(n)
        w = np.ones(n)
        if weighted:
            w = r.uniform(0.2, 2.0, n)
            if lamb != "reml":
                # zero weights drive REML's log-determinant to -inf as lamb -> 0
                w[[3, 7, n - 2]] = 0.0
                y[[3, n - 2]] = np.nan
        x, lam = wh_ref(y, lamb, order, w)
        head = [n, order, -1.0 if lamb == "reml" else lamb, float(weighted), lam]
        a[f"wh_{name}"] = np.concatenate([head, y, w, x]).astype(np.float64)
    # find_peaks_cwt: the cases of tests/names.rs `find_peaks_cwt_golden_scipy`
    t = np.linspace(0, 6 * np.pi, 160)
    sinx = np.sin(t) + 0.1 * rng("signal_names", "fpc_sin").standard_normal(160)
    tt = np.arange(200)
    gauss = sum(h * np.exp(-((tt - c) / s) ** 2) for c, s, h in
                [(30, 4, 1.0), (70, 8, 2.0), (120, 3, 0.7), (170, 6, 1.5)])
    gauss = gauss + 0.05 * rng("signal_names", "fpc_gauss").standard_normal(200)
    short = rng("signal_names", "fpc_short").standard_normal(30)
    fpc = [
        ("sin", sinx, np.arange(1, 10), {}),
        ("gauss", gauss, np.arange(1, 20), {}),
        ("opts", gauss, np.arange(1, 20), dict(max_distances=np.arange(1, 20) / 2.0,
                                              gap_thresh=2, min_length=3, min_snr=2,
                                              noise_perc=20, window_size=15)),
        ("short", short, np.array([1, 2, 3]), {}),
        ("frac", gauss, np.array([0.25, 0.5, 1.5, 2.5]), {}),
        ("mono", np.linspace(0, 1, 40), np.arange(1, 5), {}),
    ]
    for name, x, widths, kw in fpc:
        if name not in ("opts", "frac"):  # these reuse fpc_gauss_x
            a[f"fpc_{name}_x"] = np.asarray(x, dtype=np.float64)
        a[f"fpc_{name}_peaks"] = np.asarray(ss.find_peaks_cwt(x, widths, **kw), dtype=np.int64)
    # complex welch and csd (two-sided): cx_x (2, 100) and cx_y (100) complex128
    r = rng("signal_names", "cx")
    cx = r.standard_normal((2, 100)) + 1j * r.standard_normal((2, 100))
    cx[:, :] += np.exp(2j * np.pi * 0.2 * np.arange(100))
    cy = r.standard_normal(100) + 1j * r.standard_normal(100)
    a["cx_x"], a["cx_y"] = cx, cy
    a["cx_welch_f"], a["cx_welch"] = ss.welch(cx, nperseg=32)
    a["cx_welch_lin"] = ss.welch(cx, nperseg=20, noverlap=5, nfft=24, detrend="linear",
                                 scaling="spectrum")[1]
    a["cx_csd"] = ss.csd(cx, cy, nperseg=32)[1]
    a["cx_csd_none"] = ss.csd(cx[0], cy, nperseg=25, detrend=False, window="hamming")[1]
    a["cx_per"] = ss.periodogram(cx)[1]
    a["cx_per_cut"] = ss.periodogram(cx[1], nfft=60, window="hann", scaling="spectrum")[1]
    savez_fixed(out / "names.npz", compressed=True, **a)


@section("signal_complexin", folder="signal")
def gen_signal_complexin(out: Path) -> None:
    """`complexin.npz` in crates/signal/tests/data/, read by crates/signal/tests/complexin.rs
    (issue 32: complex spectral input, czt/zoom_fft dtypes, dtype promotion, resample's t and
    domain, decimate with a dlti system).

    - `x` (2, 40) and `y` (40) complex128; `r` (40) float64.
    - `sp_<mode>`: spectrogram(x, nperseg=12, noverlap=4, window='hann', mode=<mode>)[2] for every
      mode; `sp_f`, `sp_t` its frequencies and times; `sp_lin`: psd with detrend='linear',
      scaling='spectrum', nfft=14; `sp_ax0`: spectrogram(x.T, nperseg=12, axis=0)[2].
    - `st`: stft(x, nperseg=8)[2]; `st_even`: stft(x[0], nperseg=11, noverlap=5,
      boundary='even', padded=False, scaling='psd')[2]; `ist`: istft(st, input_onesided=False)[1];
      `ist_z`: istft(z, nperseg=8, noverlap=5, input_onesided=False, boundary=False)[1] of the
      random two-sided `z` (8, 7).
    - `coh`: coherence(x, y, nperseg=12)[1]; `coh_ham`: coherence(x[1], y, nperseg=15,
      window='hamming', detrend=False)[1].
    - `med_welch`: welch(x, nperseg=8, average='median')[1]; `med_csd`: csd(x, y, nperseg=8,
      noverlap=2, average='median')[1].
    - `czt_r`: czt(r, m=15, w=exp(-0.2j), a=1.1*exp(0.3j)); `czt_c`: czt(x[0, :30]);
      `zf_r`: zoom_fft(r, [0.1, 0.6], m=30, fs=2); `zf_c`: zoom_fft(x[0], 0.5, endpoint=True, m=20).
    - `lf_b`, `lf_a` (float32), `lf_x` (float64, (3, 50)): `lf_y` = lfilter(lf_b, lf_a, lf_x)
      (float64); `sos32` (float32, (2, 6)): `sos_y` = sosfilt(sos32, lf_x); `ff_y` =
      filtfilt(lf_b, lf_a, lf_x); `sff_y` = sosfiltfilt(sos32, lf_x).
    - `cv_a` (float32, (4, 9)), `cv_b` (float64, (3, 3)): `cv_conv` = convolve(cv_a, cv_b),
      `cv_corr` = correlate(.., mode='same'), `cv_fft` = fftconvolve(.., mode='valid'), `cv_oa` =
      oaconvolve, `cv_2d` = convolve2d(.., boundary='wrap'), `cv_c2d` = correlate2d(..,
      mode='same'), `cv_up` = upfirdn(cv_b[0], cv_a[0], 2, 3) (all float64); `cv_cz` =
      convolve(cv_a[0] + 1j cv_a[1] as complex128, cv_a[2]).
    - `rs_t`: resample(r, 25, t=tt)[1] with tt = 0.5 + 0.1*arange(40); `rs_freq`:
      resample(fft(r), 25, domain='freq'); `rs_freq_up`: resample(fft(x[0]), 60,
      domain='freq'); `rs_freq_real`: resample(r, 30, domain='freq') (a real spectrum).
    - `dec_*`: decimate(lf_x, 3, ftype=dlti(...), zero_phase=...) for a Butterworth ba system
      (complex poles: SciPy's lfilter/filtfilt path), a real-pole system (the sos path) and a
      FIR system (no poles: resample_poly/upfirdn), zero_phase both ways.
    """
    import scipy.signal as ss
    import scipy.fft as sf

    import warnings

    warnings.simplefilter("ignore")  # complex input switches to two-sided; NOLA; dlti
    a = {}
    r = rng("signal_complexin", "x")
    x = r.standard_normal((2, 40)) + 1j * r.standard_normal((2, 40))
    x += np.exp(2j * np.pi * 0.3 * np.arange(40))
    y = r.standard_normal(40) + 1j * r.standard_normal(40) + 0.5 * x[0]
    rr = r.standard_normal(40)
    a["x"], a["y"], a["r"] = x, y, rr
    for mode in ("psd", "complex", "magnitude", "angle", "phase"):
        f, t, s = ss.spectrogram(x, nperseg=12, noverlap=4, window="hann", mode=mode)
        a[f"sp_{mode}"] = s
    a["sp_f"], a["sp_t"] = f, t
    a["sp_lin"] = ss.spectrogram(x, nperseg=12, noverlap=4, nfft=14, detrend="linear",
                                 scaling="spectrum")[2]
    a["sp_ax0"] = ss.spectrogram(x.T.copy(), nperseg=12, axis=0)[2]
    st = ss.stft(x, nperseg=8)[2]
    a["st"] = st
    a["st_even"] = ss.stft(x[0], nperseg=11, noverlap=5, boundary="even", padded=False,
                           scaling="psd")[2]
    a["ist"] = ss.istft(st, input_onesided=False)[1]
    z = r.standard_normal((8, 7)) + 1j * r.standard_normal((8, 7))
    a["z"] = z
    a["ist_z"] = ss.istft(z, nperseg=8, noverlap=5, input_onesided=False, boundary=False)[1]
    a["coh"] = ss.coherence(x, y, nperseg=12)[1]
    a["coh_ham"] = ss.coherence(x[1], y, nperseg=15, window="hamming", detrend=False)[1]
    a["med_welch"] = ss.welch(x, nperseg=8, average="median")[1]
    a["med_csd"] = ss.csd(x, y, nperseg=8, noverlap=2, average="median")[1]
    a["czt_r"] = ss.czt(rr, m=15, w=np.exp(-0.2j), a=1.1 * np.exp(0.3j))
    a["czt_c"] = ss.czt(x[0, :30])
    a["zf_r"] = ss.zoom_fft(rr, [0.1, 0.6], m=30, fs=2)
    a["zf_c"] = ss.zoom_fft(x[0], 0.5, endpoint=True, m=20)
    # dtype promotion
    b32, a32 = (np.asarray(v, np.float32) for v in ss.butter(3, 0.2))
    lx = rng("signal_complexin", "lf").standard_normal((3, 50))
    sos32 = ss.butter(4, 0.3, output="sos").astype(np.float32)
    a["lf_b"], a["lf_a"], a["lf_x"], a["sos32"] = b32, a32, lx, sos32
    for k, v in (("lf_y", ss.lfilter(b32, a32, lx)), ("sos_y", ss.sosfilt(sos32, lx)),
                 ("ff_y", ss.filtfilt(b32, a32, lx)), ("sff_y", ss.sosfiltfilt(sos32, lx))):
        assert v.dtype == np.float64
        a[k] = v
    # the convolutions' promotion: f32 with f64, c64 with f32
    rc = rng("signal_complexin", "conv")
    ca = rc.standard_normal((4, 9)).astype(np.float32)
    cb = rc.standard_normal((3, 3))
    a["cv_a"], a["cv_b"] = ca, cb
    for k, v in (("cv_conv", ss.convolve(ca, cb)), ("cv_corr", ss.correlate(ca, cb, mode="same")),
                 ("cv_fft", ss.fftconvolve(ca, cb, mode="valid")),
                 ("cv_oa", ss.oaconvolve(ca, cb)), ("cv_2d", ss.convolve2d(ca, cb, boundary="wrap")),
                 ("cv_c2d", ss.correlate2d(ca, cb, mode="same")),
                 ("cv_up", ss.upfirdn(cb[0], ca[0], 2, 3))):
        assert v.dtype == np.float64, k
        a[k] = v
    cz = (ca[0] + 1j * ca[1]).astype(np.complex128)
    a["cv_cz"] = ss.convolve(cz, ca[2])
    assert a["cv_cz"].dtype == np.complex128
    # resample's t and domain
    tt = 0.5 + 0.1 * np.arange(40)
    a["rs_t"] = ss.resample(rr, 25, t=tt)[1]
    a["rs_freq"] = ss.resample(sf.fft(rr), 25, domain="freq")
    a["rs_freq_up"] = ss.resample(sf.fft(x[0]), 60, domain="freq")
    a["rs_freq_real"] = ss.resample(rr, 30, domain="freq")
    # decimate with a dlti system
    bb, ab = ss.butter(4, 0.25)
    sys_c = ss.dlti(bb, ab)
    sys_r = ss.dlti([0.3, 0.2], np.poly([0.5, -0.3]))
    sys_f = ss.dlti(ss.firwin(21, 0.3), [1.0])
    for name, sy in (("c", sys_c), ("r", sys_r), ("f", sys_f)):
        for zp in (True, False):
            a[f"dec_{name}_{int(zp)}"] = ss.decimate(lx, 3, ftype=sy, zero_phase=zp)
    savez_fixed(out / "complexin.npz", compressed=True, **a)


@section("ndimage_parity", folder="ndimage")
def gen_ndimage_parity(out: Path) -> None:
    """`hit_or_miss_edges.npz` in crates/ndimage/tests/data/, read by
    crates/ndimage/tests/morphology_golden.rs.

    `hom_<case>_in` (bool), `hom_<case>_s1`, `hom_<case>_s2` (bool; absent: the default),
    `hom_<case>_o1` (int64, per axis), `hom_<case>_o2` (absent: origin2=None), `hom_<case>_out`
    = binary_hit_or_miss(in, s1, s2, origin1=o1, origin2=o2): patterns that touch the array's
    edges, where the miss half counts the outside as background.
    """
    import scipy.ndimage as ndi

    A: dict[str, np.ndarray] = {}

    def put(name, x, s1=None, s2=None, o1=None, o2=None):
        nd = x.ndim
        o1v = [0] * nd if o1 is None else list(np.broadcast_to(np.array(o1), (nd,)))
        A[f"hom_{name}_in"] = x
        if s1 is not None:
            A[f"hom_{name}_s1"] = s1
        if s2 is not None:
            A[f"hom_{name}_s2"] = s2
        A[f"hom_{name}_o1"] = np.array(o1v, dtype=np.int64)
        o2v = None
        if o2 is not None:
            o2v = list(np.broadcast_to(np.array(o2), (nd,)))
            A[f"hom_{name}_o2"] = np.array(o2v, dtype=np.int64)
        A[f"hom_{name}_out"] = ndi.binary_hit_or_miss(x, s1, s2, origin1=o1v, origin2=o2v)

    def mask(name, shape, p):
        return rng("ndimage_parity", name).random(shape) < p

    centre = np.zeros((3, 3), bool)
    centre[1, 1] = True
    below = np.zeros((3, 3), bool)
    below[2, :] = True
    put("corner", np.array([[1, 1, 0], [1, 0, 0], [0, 0, 0]], bool), centre, below)
    ring = ndi.generate_binary_structure(2, 2).copy()
    ring[1, 1] = False
    put("isolated", mask("isolated", (9, 10), 0.2), centre, ring)
    # isolated pixels on every edge and in the corners, a line along the top, one inside
    x = np.zeros((8, 9), bool)
    x[0, 0] = x[0, 4] = x[3, 0] = x[7, 8] = x[5, 8] = x[7, 2] = x[4, 4] = True
    x[2, 2:7] = True
    put("border_lines", x, centre, ring)
    put("border_lines_default", x)
    tee1 = np.array([[0, 1, 0], [1, 1, 1], [0, 0, 0]], bool)
    tee2 = np.array([[0, 0, 0], [0, 0, 0], [0, 1, 0]], bool)
    put("tee", mask("tee", (9, 10), 0.6), tee1, tee2)
    put("tee_o1", mask("tee", (9, 10), 0.6), tee1, tee2, o1=[1, 0])
    put("tee_o12", mask("tee", (9, 10), 0.6), tee1, tee2, o1=[0, -1], o2=[1, 1])
    put("centre_o", mask("centre_o", (9, 11), 0.12), centre, ring, o1=1)
    put("centre_o12", mask("centre_o", (9, 11), 0.12), centre, ring, o1=[0, 1], o2=[-1, 0])
    put("d1", np.array([1, 0, 0, 1, 1, 0, 1], bool), np.array([0, 1, 0], bool))
    put("d1_edge", np.array([1, 0, 1, 1, 0, 0, 1], bool), np.array([0, 1, 0], bool),
        np.array([1, 0, 1], bool))
    put("even", mask("even", (7, 9), 0.5), np.array([[1, 1, 0], [0, 1, 0]], bool),
        np.array([[0, 0, 1], [1, 0, 1]], bool))
    c3 = np.zeros((3, 3, 3), bool)
    c3[1, 1, 1] = True
    put("d3", mask("d3", (4, 5, 6), 0.25), c3, ndi.generate_binary_structure(3, 1) & ~c3)
    put("d3_default", mask("d3d", (4, 5, 6), 0.7))
    savez_fixed(out / "hit_or_miss_edges.npz", compressed=True, **A)


@section("ndimage_names", folder="ndimage")
def gen_ndimage_names(out: Path) -> None:
    """`names.npz` in crates/ndimage/tests/data/, read by crates/ndimage/tests/names.rs (issue
    32's last names).

    - `gt_<case>` = geometric_transform(x, mapping, output_shape, order, mode, cval=0.5,
      prefilter) for the mappings of the Rust test (`gt_x2` 7x6 and `gt_x1` 10 are the inputs).
    - `ws_<case>_{img,markers,structure,out}` = watershed_ift(img, markers, structure): ties,
      negative (background) markers, 4-/8-connectivity, 3-D, markers at the edges (SciPy's
      neighbours wrap across rows), int32 and int64 markers.
    - `vf_<case>` = vectorized_filter(vf_x2 or vf_x3, a position-weighted window sum, ...) for
      the cases of the Rust test (sizes, footprints, every mode, origins, valid, axes).
    - `scipy_version`: the SciPy that wrote the file (major, minor, micro).
    """
    import scipy
    import scipy.ndimage as ndi

    a = {"scipy_version": np.array([int(v) for v in scipy.__version__.split(".")[:3]])}
    x2 = rng("ndimage_names", "gt_x2").standard_normal((7, 6))
    x1 = rng("ndimage_names", "gt_x1").standard_normal(10)
    a["gt_x2"], a["gt_x1"] = x2, x1
    cases = [
        ("shift", x2, lambda o: (o[0] - 0.5, o[1] - 0.5), None, 3, "constant", True),
        ("nl", x2, lambda o: (o[0] * 0.8 + 0.1 * o[1], o[1] ** 1.1 * 0.9), (5, 8), 1, "nearest",
         True),
        ("rank", x1, lambda o: (o[0] * 3 + o[1] * 0.7,), (3, 4), 2, "reflect", True),
        ("wrap", x2, lambda o: (o[0] + 10.3, -o[1]), None, 0, "grid-wrap", True),
        ("mirror", x2, lambda o: (o[1] * 1.3 - 1.0, o[0] * 0.6 + 0.25), (6, 7), 3, "mirror",
         False),
        ("o5", x2, lambda o: (o[0] * 0.9 + 0.2, o[1] * 1.05 - 0.1), None, 5, "grid-constant",
         True),
    ]
    for name, x, f, oshape, order, mode, pre in cases:
        a[f"gt_{name}"] = ndi.geometric_transform(x, f, output_shape=oshape, order=order,
                                                  mode=mode, cval=0.5, prefilter=pre)
    # watershed_ift: ws_<case>_img (uint8), _markers (int32 or int64), _structure (bool), _out
    ring = np.array([[0, 0, 0, 0, 0, 0, 0],
                     [0, 1, 1, 1, 1, 1, 0],
                     [0, 1, 0, 0, 0, 1, 0],
                     [0, 1, 0, 0, 0, 1, 0],
                     [0, 1, 0, 0, 0, 1, 0],
                     [0, 1, 1, 1, 1, 1, 0],
                     [0, 0, 0, 0, 0, 0, 0]], np.uint8)
    ringm = np.zeros((7, 7), np.int32)
    ringm[3, 3], ringm[0, 0] = 1, -1

    def wsm(name, shape, k, dt):
        r = rng("ndimage_names", f"ws_{name}")
        m = np.zeros(shape, dt)
        flat = m.reshape(-1)
        idx = r.choice(flat.size, size=k, replace=False)
        flat[idx] = r.integers(-2, 5, size=k)
        return m

    def img(name, shape, hi):
        return rng("ndimage_names", f"ws_img_{name}").integers(0, hi, size=shape, dtype=np.uint8)

    ws = [
        ("ring", ring, ringm, ndi.generate_binary_structure(2, 1)),
        ("ring8", ring * 5, ringm, ndi.generate_binary_structure(2, 2)),
        ("ties", img("ties", (12, 13), 4), wsm("ties", (12, 13), 6, np.int32),
         ndi.generate_binary_structure(2, 1)),
        ("rand8", img("rand8", (11, 9), 200), wsm("rand8", (11, 9), 5, np.int32),
         ndi.generate_binary_structure(2, 2)),
        ("d3", img("d3", (4, 5, 6), 6), wsm("d3", (4, 5, 6), 5, np.int64),
         ndi.generate_binary_structure(3, 2)),
        ("edge", img("edge", (6, 5), 9), wsm("edge", (6, 5), 3, np.int32),
         ndi.generate_binary_structure(2, 1)),
        ("line", img("line", (17,), 7), wsm("line", (17,), 3, np.int64),
         ndi.generate_binary_structure(1, 1)),
    ]
    # vectorized_filter: vf_<case> = vectorized_filter(vf_x2 or vf_x3, weighted window sum
    # sum_j (j + 1) w_j over the window's values in SciPy's order, ...) for the Rust test's cases
    def wsum(w, axis):
        axis = (axis,) if np.isscalar(axis) else tuple(axis)
        w = np.moveaxis(w, axis, tuple(range(-len(axis), 0)))
        w = w.reshape(w.shape[:w.ndim - len(axis)] + (-1,))
        return np.sum(w * np.arange(1, w.shape[-1] + 1), axis=-1)

    vx2 = rng("ndimage_names", "vf_x2").standard_normal((6, 7))
    vx3 = rng("ndimage_names", "vf_x3").standard_normal((4, 3, 5))
    a["vf_x2"], a["vf_x3"] = vx2, vx3
    fp = np.array([[1, 0, 1], [1, 1, 0]], bool)
    vf = [
        ("size", vx2, dict(size=(2, 3))),
        ("fp_nearest", vx2, dict(footprint=fp, mode="nearest", origin=(0, 1))),
        ("mirror_o", vx2, dict(size=(2, 3), mode="mirror", origin=(-1, -1))),
        ("wrap", vx2, dict(size=(3, 4), mode="wrap")),
        ("const", vx2, dict(size=(3, 2), mode="constant", cval=0.3)),
        ("gridmirror", vx2, dict(size=3, mode="grid-mirror")),
        ("valid", vx2, dict(size=(2, 3), mode="valid")),
        ("valid_fp", vx2, dict(footprint=fp, mode="valid")),
        ("axis1", vx2, dict(size=3, axes=(1,))),
        ("axes10", vx2, dict(size=(3, 2), axes=(1, 0))),
        ("d3", vx3, dict(footprint=fp, axes=(0, 2), mode="nearest")),
        ("big", vx2, dict(size=(9, 2), mode="reflect")),
    ]
    for name, x, kw in vf:
        a[f"vf_{name}"] = ndi.vectorized_filter(x, wsum, **kw)
    for name, im, mk, st in ws:
        a[f"ws_{name}_img"] = im
        a[f"ws_{name}_markers"] = mk
        a[f"ws_{name}_structure"] = st
        a[f"ws_{name}_out"] = ndi.watershed_ift(im, mk, structure=st)
    savez_fixed(out / "names.npz", compressed=True, **a)


@section("linalg_extra", folder="linalg")
def gen_linalg_extra(out: Path) -> None:
    import scipy
    import scipy.linalg as sl

    a: dict[str, np.ndarray] = {}
    S = "linalg_extra"

    def f32(x):
        if np.iscomplexobj(x):
            return x.astype(np.complex64).astype(np.complex128)
        return x.astype(np.float32).astype(np.float64)

    def mat(name, shape, cplx=False, rank=None):
        g = rng(S, name)
        def one(sh):
            x = g.standard_normal(sh)
            if cplx:
                x = x + 1j * g.standard_normal(sh)
            return x
        def ints(sh):  # small integers: the product is exact in f32 and stays rank-deficient
            x = g.integers(-3, 4, sh).astype(np.float64)
            if cplx:
                x = x + 1j * g.integers(-3, 4, sh)
            return x
        if rank is None:
            x = one(shape)
        else:
            x = ints(shape[:-1] + (rank,)) @ ints(shape[:-2] + (rank, shape[-1]))
        x = f32(x)
        a[f"in_{name}"] = x
        return x

    def proj(q):
        return q @ np.swapaxes(q, -1, -2).conj()

    for dt, cx in (("d", False), ("z", True)):
        # rectangular, rank-deficient, square full rank, and a stack
        for case, shape, rank in (("tall", (7, 4), 2), ("wide", (3, 6), 2), ("sq", (5, 5), None),
                                  ("stack", (3, 4, 3), 2), ("full", (6, 3), None)):
            x = mat(f"A_{case}_{dt}", shape, cx, rank)
            a[f"svdvals_{case}_{dt}_out"] = sl.svdvals(x)
            q = sl.null_space(x)
            a[f"null_space_{case}_{dt}_proj"] = proj(q)
            a[f"null_space_{case}_{dt}_cols"] = np.array(q.shape[-1], dtype=np.int64)
            q = sl.orth(x)
            a[f"orth_{case}_{dt}_proj"] = proj(q)
            a[f"orth_{case}_{dt}_cols"] = np.array(q.shape[-1], dtype=np.int64)
        # null_space with an explicit rcond that cuts a small singular value
        u, _, vh = np.linalg.svd(mat(f"A_rc_{dt}", (5, 5), cx))
        x = f32(u @ np.diag([3.0, 2.0, 1.0, 1e-3, 1e-9]) @ vh)
        a[f"in_A_rc_{dt}"] = x
        for rc in ("1e-2", "1e-6"):
            q = sl.null_space(x, rcond=float(rc))
            a[f"null_space_rc{rc}_{dt}_proj"] = proj(q)
            a[f"null_space_rc{rc}_{dt}_cols"] = np.array(q.shape[-1], dtype=np.int64)
            q = sl.orth(x, rcond=float(rc))
            a[f"orth_rc{rc}_{dt}_proj"] = proj(q)
            a[f"orth_rc{rc}_{dt}_cols"] = np.array(q.shape[-1], dtype=np.int64)
        # orthogonal_procrustes (odd sizes, a stack)
        for case, shape in (("p53", (5, 3)), ("p33", (3, 3)), ("pst", (2, 4, 3))):
            x = mat(f"PA_{case}_{dt}", shape, cx)
            y = mat(f"PB_{case}_{dt}", shape, cx)
            r, sc = sl.orthogonal_procrustes(x, y)
            a[f"procrustes_{case}_{dt}_r"], a[f"procrustes_{case}_{dt}_scale"] = r, np.asarray(sc)
        # subspace_angles: random, nearly parallel (small angles: the arcsin branch), a stack
        x = mat(f"SA_{dt}", (7, 3), cx)
        y = mat(f"SB_{dt}", (7, 2), cx)
        a[f"subspace_angles_rand_{dt}_out"] = sl.subspace_angles(x, y)
        a[f"subspace_angles_rev_{dt}_out"] = sl.subspace_angles(y, x)
        y2 = f32(x[:, :2] + 1e-3 * mat(f"SN_{dt}", (7, 2), cx))
        a[f"in_SP_{dt}"] = y2
        a[f"subspace_angles_near_{dt}_out"] = sl.subspace_angles(x, y2)
        xs = mat(f"SS_{dt}", (2, 6, 2), cx)
        ys = mat(f"ST_{dt}", (2, 6, 3), cx)
        a[f"subspace_angles_stack_{dt}_out"] = sl.subspace_angles(xs, ys)
        # pinvh: singular Hermitian (rank 3 of 5), full rank, with atol; lower and upper
        gi = rng(S, f"PH_{dt}").integers(-3, 4, (5, 3)) + (1j * rng(S, f"PHi_{dt}").integers(-3, 4, (5, 3)) if cx else 0)
        h = gi @ gi.conj().T  # exact small integers, rank 3: the zero eigenvalues are at rounding level
        a[f"in_PH_{dt}"] = h
        a[f"pinvh_sing_{dt}_out"] = sl.pinvh(h, rtol=1e-10)
        hf = mat(f"PF_{dt}", (4, 4), cx)
        hf = f32(hf @ hf.conj().T - 2 * np.eye(4))  # indefinite
        a[f"in_PF_{dt}"] = hf
        a[f"pinvh_full_{dt}_out"] = sl.pinvh(hf)
        lam = np.sort(np.abs(np.linalg.eigvalsh(hf)))
        atol = float((lam[0] + lam[1]) / 2)  # drops the smallest |eigenvalue|
        a[f"pinvh_atol_{dt}_tol"] = np.array([atol])
        a[f"pinvh_atol_{dt}_out"] = sl.pinvh(hf, atol=atol)
        hu = np.triu(hf) + np.triu(hf, 1).conj().T
        garbage = np.tril(mat(f"PG_{dt}", (4, 4), cx), -1)
        a[f"in_PU_{dt}"] = np.triu(hf) + garbage  # only the upper triangle is meaningful
        a[f"pinvh_upper_{dt}_out"] = sl.pinvh(np.triu(hf) + garbage, lower=False)
        assert np.allclose(sl.pinvh(hu), a[f"pinvh_upper_{dt}_out"])
        # polar: square, tall, wide (full rank), both sides, a stack
        for case, shape in (("sq", (4, 4)), ("tall", (5, 3)), ("wide", (2, 5)), ("st", (2, 3, 3))):
            x = mat(f"PO_{case}_{dt}", shape, cx)
            for side in ("right", "left"):
                u, pp = sl.polar(x, side=side)
                a[f"polar_{case}_{side}_{dt}_u"], a[f"polar_{case}_{side}_{dt}_p"] = u, pp
        # diagsvd
        s = f32(np.abs(rng(S, f"ds_{dt}").standard_normal(3)) + 0.5)
        a[f"in_ds_{dt}"] = s
        for m, n in ((3, 5), (6, 3), (3, 3)):
            a[f"diagsvd_{m}x{n}_{dt}_out"] = sl.diagsvd(s, m, n)
        # solve_toeplitz / matmul_toeplitz
        c = mat(f"TC_{dt}", (7,), cx)
        r = mat(f"TR_{dt}", (7,), cx)
        c[0] += 6.0  # keep the leading minors away from singular
        a[f"in_TC_{dt}"] = c
        b1 = mat(f"TB1_{dt}", (7,), cx)
        b2 = mat(f"TB2_{dt}", (7, 3), cx)
        a[f"solve_toeplitz_cr1_{dt}_out"] = sl.solve_toeplitz((c, r), b1)
        a[f"solve_toeplitz_cr2_{dt}_out"] = sl.solve_toeplitz((c, r), b2)
        a[f"solve_toeplitz_c1_{dt}_out"] = sl.solve_toeplitz(c, b1)
        cb = mat(f"TCB_{dt}", (2, 5), cx)
        cb[:, 0] += 5.0
        a[f"in_TCB_{dt}"] = cb
        bb = mat(f"TBB_{dt}", (5,), cx)
        a[f"solve_toeplitz_batch_{dt}_out"] = sl.solve_toeplitz(cb, bb)
        # an ill-conditioned symmetric Toeplitz matrix (Gaussian kernel), Levinson still works
        kern = np.exp(-0.5 * (np.arange(9) / 2.5) ** 2)
        a[f"in_TK"] = kern
        bk = mat(f"TBK_{dt}", (9,), cx)
        a[f"solve_toeplitz_kern_{dt}_out"] = sl.solve_toeplitz(kern, bk)
        a[f"solve_toeplitz_kern_{dt}_cond"] = np.array([np.linalg.cond(sl.toeplitz(kern))])
        rr = mat(f"MR_{dt}", (4,), cx)
        x2 = mat(f"MX_{dt}", (4, 3), cx)
        x1 = mat(f"MX1_{dt}", (7,), cx)
        a[f"matmul_toeplitz_cr_{dt}_out"] = sl.matmul_toeplitz((c, rr), x2)
        a[f"matmul_toeplitz_c_{dt}_out"] = sl.matmul_toeplitz(c, x1)
        xb = mat(f"MXB_{dt}", (3, 5, 2), cx)
        a[f"matmul_toeplitz_batch_{dt}_out"] = sl.matmul_toeplitz(cb, xb[:2])
        # solve_circulant
        cc = mat(f"CC_{dt}", (7,), cx)
        cc[0] += 4.0
        a[f"in_CC_{dt}"] = cc
        a[f"solve_circulant_1_{dt}_out"] = sl.solve_circulant(cc, b1)
        a[f"solve_circulant_2_{dt}_out"] = sl.solve_circulant(cc, b2)
        ccb = mat(f"CCB_{dt}", (3, 5), cx)
        ccb[:, 0] += 4.0
        a[f"in_CCB_{dt}"] = ccb
        a[f"solve_circulant_batch_{dt}_out"] = sl.solve_circulant(ccb, bb)
        bx = mat(f"CBX_{dt}", (5, 3), cx)
        a[f"solve_circulant_axes_{dt}_out"] = sl.solve_circulant(ccb.T.copy(), bx, caxis=0, baxis=0, outaxis=-1)
        sing = np.array([1.0, 2.0, 1.0, 2.0, 1.0, 2.0])  # eigenvalue 0 at k = 3 and ... (period 2)
        sing = sing - sing.mean() + (0.5 if cx else 0.25)
        a[f"in_CS_{dt}"] = f32(sing.astype(np.complex128) if cx else sing)
        bs = mat(f"CBS_{dt}", (6,), cx)
        a[f"solve_circulant_lstsq_{dt}_out"] = sl.solve_circulant(a[f"in_CS_{dt}"], bs, singular="lstsq")
        # cross / vecdot
        u3 = mat(f"X3_{dt}", (4, 3), cx)
        v3 = mat(f"Y3_{dt}", (3,), cx)
        a[f"cross_last_{dt}_out"] = np.linalg.cross(u3, v3)
        u0 = mat(f"X0_{dt}", (3, 2), cx)
        v0 = mat(f"Y0_{dt}", (3, 4, 2), cx)
        a[f"cross_axis0_{dt}_out"] = np.linalg.cross(u0, v0, axis=0)
        a[f"vecdot_last_{dt}_out"] = np.linalg.vecdot(u3, v3)
        a[f"vecdot_axis0_{dt}_out"] = np.linalg.vecdot(u0, v0, axis=0)
    # symmetric / Hermitian tests: (name, matrix, atol, rtol) -> issymmetric, ishermitian
    cases = []
    e = np.array([[1.0, 2.0, 3.0], [2.0, 5.0, 6.0], [3.0, 6.0, 9.0]])
    cases.append(("sym", e, None, None))
    cases.append(("nansdiag", np.array([[np.nan, 1.0], [1.0, 2.0]]), None, None))
    cases.append(("nanoff", np.array([[1.0, np.nan], [np.nan, 2.0]]), None, None))
    cases.append(("inf", np.array([[1.0, np.inf], [np.inf, 2.0]]), None, None))
    cases.append(("inftol", np.array([[1.0, np.inf], [np.inf, 2.0]]), 1e-3, None))
    cases.append(("infneg", np.array([[1.0, np.inf], [-np.inf, 2.0]]), 1.0, None))
    pert = e.copy(); pert[2, 0] += 1e-9
    cases.append(("pert", pert, None, None))
    cases.append(("pert_atol", pert, 1e-8, None))
    cases.append(("pert_atol_small", pert, 1e-10, None))
    cases.append(("pert_rtol", pert, None, 1e-9))
    cases.append(("pert_rtol_small", pert, None, 1e-12))
    cases.append(("nansdiag_tol", np.array([[np.nan, 1.0], [1.0, 2.0]]), 1e-3, None))
    h = np.array([[1.0, 2 + 3j], [2 - 3j, 4.0]])
    cases.append(("herm", h, None, None))
    cases.append(("csym", np.array([[1 + 1j, 3j], [3j, 2.0]]), None, None))
    hd = h.copy(); hd[0, 0] += 1e-12j
    cases.append(("hdiag", hd, None, None))
    cases.append(("hdiag_tol", hd, 1e-11, None))
    cases.append(("hnandiag", np.array([[np.nan + 0j, 1.0], [1.0, 2.0]]), None, None))
    for name, m, at, rt in cases:
        a[f"sym_{name}_in"] = m
        a[f"sym_{name}_tol"] = np.array([np.nan if at is None else at, np.nan if rt is None else rt])
        a[f"sym_{name}_out"] = np.array([sl.issymmetric(m, atol=at, rtol=rt),
                                         sl.ishermitian(m, atol=at, rtol=rt)])
    st = np.stack([e, pert, e])
    a["sym_stack_in"] = st
    a["sym_stack_out"] = np.asarray(sl.issymmetric(st))
    # pascal / invpascal / invhilbert: exact integers (Python ints) rounded once to f64
    for n in (1, 4, 9, 20, 35):
        for kind in ("symmetric", "lower", "upper"):
            a[f"pascal_{n}_{kind}"] = np.array(sl.pascal(n, kind=kind, exact=True).tolist(), dtype=np.float64)
            a[f"invpascal_{n}_{kind}"] = np.array(sl.invpascal(n, kind=kind, exact=True).tolist(), dtype=np.float64)
    for n in (1, 2, 5, 9, 14, 16):
        a[f"invhilbert_{n}_exact"] = np.array(sl.invhilbert(n, exact=True).tolist(), dtype=np.float64)
        a[f"invhilbert_{n}_float"] = sl.invhilbert(n)
    a["version_scipy"] = np.frombuffer(scipy.__version__.encode(), dtype=np.uint8)
    savez_fixed(out / "scipy_linalg_extra.npz", compressed=True, **a)


# --------------------------------------------------------------------------------------------
# issue 30: scipy.linalg's matrix functions, banded solvers and tridiagonal eigenproblems.
# crates/linalg/tests/data/scipy_linalg_funcs.npz, read by crates/linalg/tests/matfuncs.rs and
# crates/linalg/tests/banded.rs. Inputs rounded to float32 first, stored as float64/complex128.
# --------------------------------------------------------------------------------------------


@section("linalg_funcs", folder="linalg")
def gen_linalg_funcs(out: Path) -> None:
    """`scipy_linalg_funcs.npz`: `in_<key>` inputs and `<fn>_<case>_<dt>` results (`dt`: `d` real,
    `z` complex).

    - cosm, sinm, tanm, coshm, sinhm, tanhm of a 5x5 matrix (`F_m5`) and a (2, 3, 3) stack
      (`F_st`); sqrtm, logm and fractional_matrix_power (0.3, -1.5, 3) of `SQ_*` (2 I + a perturbation),
      logm of `LG` (6 I + a perturbation), signm of `SG3_*`, all of the same shapes; expm_frechet (`SPS` and `blockEnlarge`: `frechet_<method>_<case>_<dt>_{expm,l}`)
      of (`FA`, `FE`) pairs, 4x4 of 1-norm about 1 and 9 (the scaling-and-squaring path) and a
      stack; expm_cond of 3x3 and 4x4 matrices.
    - solve_banded for (l, u) in (1,1), (2,1), (0,2), (3,0), (2,3) with n = 7 and b of shapes
      (7,), (7, 3), and a stack (2, l+u+1, 7) with b (2, 7, 2); solveh_banded, cholesky_banded,
      cho_solve_banded of Hermitian positive definite band matrices (kd = 1, 2) in both storages.
    - eigh_tridiagonal (real only, as SciPy) of n = 9: all, by index (2..5), by value (-1, 1].
    """
    import scipy.linalg as sl

    a: dict[str, np.ndarray] = {}
    S = "linalg_funcs"

    def f32(x):
        if np.iscomplexobj(x):
            return x.astype(np.complex64).astype(np.complex128)
        return x.astype(np.float32).astype(np.float64)

    def mat(name, shape, cx, scale=1.0):
        g = rng(S, name)
        x = g.standard_normal(shape)
        if cx:
            x = x + 1j * g.standard_normal(shape)
        x = f32(scale * x)
        a[f"in_{name}"] = x
        return x

    for dt, cx in (("d", False), ("z", True)):
        for case, shape in (("m5", (5, 5)), ("st", (2, 3, 3))):
            x = mat(f"F_{case}_{dt}", shape, cx, 0.35)
            for name in ("cosm", "sinm", "tanm", "coshm", "sinhm", "tanhm"):
                a[f"{name}_{case}_{dt}"] = getattr(sl, name)(x)
        for case, shape, scale in (("small", (4, 4), 0.3), ("big", (4, 4), 2.5), ("st", (2, 3, 3), 0.5)):
            x = mat(f"FA_{case}_{dt}", shape, cx, scale)
            e = mat(f"FE_{case}_{dt}", shape, cx)
            for method in ("SPS", "blockEnlarge"):
                if x.ndim == 2:
                    r, l = sl.expm_frechet(x, e, method=method)
                else:
                    pairs = [sl.expm_frechet(x[i], e[i], method=method) for i in range(x.shape[0])]
                    r, l = np.stack([p[0] for p in pairs]), np.stack([p[1] for p in pairs])
                a[f"frechet_{method}_{case}_{dt}_expm"] = r
                a[f"frechet_{method}_{case}_{dt}_l"] = l
        # sqrtm: spectra off the negative real axis; signm: eigenvalues off the imaginary axis
        for case, shape in (("m5", (5, 5)), ("st", (2, 3, 3))):
            n_ = shape[-1]
            x = f32(mat(f"SQ_{case}_{dt}", shape, cx, 0.4) + 2.0 * np.eye(n_))
            a[f"in_SQ_{case}_{dt}"] = x
            a[f"sqrtm_{case}_{dt}"] = sl.sqrtm(x)
            a[f"logm_{case}_{dt}"] = sl.logm(x)
            for name, p in (("p03", 0.3), ("pm15", -1.5), ("p3", 3.0)):
                a[f"fmp_{name}_{case}_{dt}"] = sl.fractional_matrix_power(x, p)
            if case == "m5":  # a larger norm: several square roots before the Pade step
                y = f32(mat(f"LG_{dt}", shape, cx) + 6.0 * np.eye(n_))
                a[f"in_LG_{dt}"] = y
                a[f"logm_lg_{dt}"] = sl.logm(y)
            x = mat(f"SG3_{case}_{dt}", shape, cx)
            assert np.abs(np.linalg.eigvals(x).real).min() > 0.1
            a[f"signm_{case}_{dt}"] = sl.signm(x)
        for case, n, scale in (("c3", 3, 0.5), ("c4", 4, 2.0)):
            x = mat(f"C_{case}_{dt}", (n, n), cx, scale)
            a[f"expm_cond_{case}_{dt}"] = np.array(sl.expm_cond(x))

        # solve_banded: general band matrices (partial pivoting happens: no dominance)
        n = 7
        for l, u in ((1, 1), (2, 1), (0, 2), (3, 0), (2, 3)):
            case = f"{l}{u}"
            ab = mat(f"B_{case}_{dt}", (l + u + 1, n), cx)
            b1 = mat(f"B1_{case}_{dt}", (n,), cx)
            b2 = mat(f"B2_{case}_{dt}", (n, 3), cx)
            a[f"solve_banded_{case}_1_{dt}"] = sl.solve_banded((l, u), ab, b1)
            a[f"solve_banded_{case}_2_{dt}"] = sl.solve_banded((l, u), ab, b2)
            abs_ = mat(f"BS_{case}_{dt}", (2, l + u + 1, n), cx)
            bs = mat(f"BSB_{case}_{dt}", (2, n, 2), cx)
            a[f"solve_banded_{case}_st_{dt}"] = np.stack(
                [sl.solve_banded((l, u), abs_[i], bs[i]) for i in range(2)])
        # Hermitian positive definite band matrices, both storages
        n = 6
        for kd in (1, 2):
            g = rng(S, f"H{kd}_{dt}")
            h = np.zeros((n, n), dtype=np.complex128 if cx else np.float64)
            for k in range(1, kd + 1):
                off = g.standard_normal(n - k) + (1j * g.standard_normal(n - k) if cx else 0)
                h += np.diag(off, k)
            h = h + h.conj().T + np.diag(2.0 * kd + 1.0 + np.abs(g.standard_normal(n)))
            h = f32(h)
            up = np.zeros((kd + 1, n), dtype=h.dtype)
            lo = np.zeros((kd + 1, n), dtype=h.dtype)
            for i in range(n):
                for j in range(i, min(n, i + kd + 1)):
                    up[kd + i - j, j] = h[i, j]
                    lo[j - i, i] = h[j, i]
            a[f"in_HU{kd}_{dt}"], a[f"in_HL{kd}_{dt}"] = up, lo
            b1 = mat(f"HB1_{kd}_{dt}", (n,), cx)
            b2 = mat(f"HB2_{kd}_{dt}", (n, 2), cx)
            for lower, ab in ((False, up), (True, lo)):
                side = "l" if lower else "u"
                a[f"solveh_banded_{kd}{side}_1_{dt}"] = sl.solveh_banded(ab, b1, lower=lower)
                a[f"solveh_banded_{kd}{side}_2_{dt}"] = sl.solveh_banded(ab, b2, lower=lower)
                c = sl.cholesky_banded(ab, lower=lower)
                a[f"cholesky_banded_{kd}{side}_{dt}"] = c
                a[f"cho_solve_banded_{kd}{side}_{dt}"] = sl.cho_solve_banded((c, lower), b2)

    # eigh_tridiagonal: real only in SciPy
    d = mat("T_d", (9,), False)
    e = mat("T_e", (8,), False)
    w, v = sl.eigh_tridiagonal(d, e)
    a["eigh_tridiagonal_all_w"], a["eigh_tridiagonal_all_v"] = w, v
    w, v = sl.eigh_tridiagonal(d, e, select="i", select_range=(2, 5))
    a["eigh_tridiagonal_idx_w"], a["eigh_tridiagonal_idx_v"] = w, v
    w, v = sl.eigh_tridiagonal(d, e, select="v", select_range=(-1.0, 1.0))
    a["eigh_tridiagonal_val_w"], a["eigh_tridiagonal_val_v"] = w, v
    a["eigvalsh_tridiagonal_all"] = sl.eigvalsh_tridiagonal(d, e)
    a["eigvalsh_tridiagonal_val"] = sl.eigvalsh_tridiagonal(d, e, select="v", select_range=(-1.0, 1.0))
    savez_fixed(out / "scipy_linalg_funcs.npz", compressed=True, **a)


# --------------------------------------------------------------------------------------------
# cusci-linalg: non-symmetric decompositions and matrix equations (issue 30)
# crates/linalg/tests/data/scipy_linalg_schur.npz, read by crates/linalg/tests/scipy_schur.rs.
# --------------------------------------------------------------------------------------------


@section("linalg_schur", folder="linalg")
def gen_linalg_schur(out: Path) -> None:
    import scipy.linalg as sl

    a: dict[str, np.ndarray] = {}
    S = "linalg_schur"

    def f32(x):
        if np.iscomplexobj(x):
            return x.astype(np.complex64).astype(np.complex128)
        return x.astype(np.float32).astype(np.float64)

    def mat(name, shape, cx):
        g = rng(S, name)
        x = g.standard_normal(shape)
        if cx:
            x = x + 1j * g.standard_normal(shape)
        x = f32(x)
        a[f"in_{name}"] = x
        return x

    def esort(w):
        w = np.asarray(w, dtype=np.complex128)
        return w[np.lexsort((np.round(w.imag, 9), np.round(w.real, 9)))]

    for dt, cx in (("d", False), ("z", True)):
        # hessenberg (odd sizes)
        for n in (3, 5, 8):
            x = mat(f"H{n}_{dt}", (n, n), cx)
            h, q = sl.hessenberg(x, calc_q=True)
            a[f"hess{n}_{dt}_h"], a[f"hess{n}_{dt}_q"] = h, q
        # schur: eigenvalues (sorted) of t, sdim and the selected eigenvalues for each sort
        x = mat(f"S7_{dt}", (7, 7), cx)
        for out_ in ("real", "complex"):
            t, z = sl.schur(x, output=out_)
            ev = sl.eigvals(t) if out_ == "real" else np.diag(t)
            a[f"schur_{out_}_{dt}_eigs"] = esort(ev)
            for srt in ("lhp", "rhp", "iuc", "ouc"):
                t, z, sdim = sl.schur(x, output=out_, sort=srt)
                ev = sl.eigvals(t[:sdim, :sdim]) if sdim else np.zeros(0, complex)
                a[f"schur_{out_}_{srt}_{dt}_sdim"] = np.array(sdim, dtype=np.int64)
                a[f"schur_{out_}_{srt}_{dt}_sel"] = esort(ev)
        # rq, every mode (wide, tall, square)
        for case, shape in (("w", (3, 5)), ("t", (5, 3)), ("s", (4, 4))):
            x = mat(f"RQ{case}_{dt}", shape, cx)
            for mode in ("full", "economic"):
                r, q = sl.rq(x, mode=mode)
                a[f"rq_{case}_{mode}_{dt}_r"], a[f"rq_{case}_{mode}_{dt}_q"] = r, q
            a[f"rq_{case}_r_{dt}_r"] = sl.rq(x, mode="r")
        # sylvester, lyapunov (continuous, discrete both methods)
        A = mat(f"SA_{dt}", (5, 5), cx)
        B = mat(f"SB_{dt}", (3, 3), cx)
        Q = mat(f"SQ_{dt}", (5, 3), cx)
        a[f"sylvester_{dt}_x"] = sl.solve_sylvester(A, B, Q)
        QL = mat(f"LQ_{dt}", (5, 5), cx)
        a[f"lyap_{dt}_x"] = sl.solve_continuous_lyapunov(A, QL)
        AD = f32(A * (0.4 / np.sqrt(5)))
        a[f"in_AD_{dt}"] = AD
        a[f"dlyap_direct_{dt}_x"] = sl.solve_discrete_lyapunov(AD, QL, method="direct")
        a[f"dlyap_bilinear_{dt}_x"] = sl.solve_discrete_lyapunov(AD, QL, method="bilinear")
        # Riccati (SciPy's defaults; with e and s)
        n, m = 4, 2
        Ar = mat(f"RA_{dt}", (n, n), cx)
        Br = mat(f"RB_{dt}", (n, m), cx)
        C = mat(f"RC_{dt}", (n, n), cx)
        Qr = f32(C.conj().T @ C + np.eye(n))
        D = mat(f"RD_{dt}", (m, m), cx)
        Rr = f32(D.conj().T @ D + np.eye(m))
        E = f32(np.eye(n) + 0.1 * mat(f"RE_{dt}", (n, n), cx))
        Sr = f32(0.02 * mat(f"RS_{dt}", (n, m), cx))
        a[f"in_RQ_{dt}"], a[f"in_RR_{dt}"], a[f"in_REE_{dt}"], a[f"in_RSS_{dt}"] = Qr, Rr, E, Sr
        a[f"care_{dt}_x"] = sl.solve_continuous_are(Ar, Br, Qr, Rr)
        # balanced=False with e: SciPy's balancing of this pencil reports eigenvalues "too close
        # to the imaginary axis" (the unbalanced solve gives the stabilising solution)
        a[f"care_es_{dt}_x"] = sl.solve_continuous_are(Ar, Br, Qr, Rr, e=E, s=Sr, balanced=False)
        a[f"dare_{dt}_x"] = sl.solve_discrete_are(Ar, Br, Qr, Rr)
        a[f"dare_es_{dt}_x"] = sl.solve_discrete_are(Ar, Br, Qr, Rr, e=E, s=Sr, balanced=False)
        # funm (exp and z**2 + sin z), disp=False's error estimate
        X = mat(f"FM_{dt}", (6, 6), cx)
        f, err = sl.funm(X, np.exp, disp=False)
        a[f"funm_exp_{dt}_f"], a[f"funm_exp_{dt}_err"] = f.astype(np.complex128), np.array(err)
        f, err = sl.funm(X, lambda z: z * z + np.sin(z), disp=False)
        a[f"funm_poly_{dt}_f"] = f.astype(np.complex128)
        # eig_banded / eigvals_banded: upper and lower storage, u = 2, n = 7, every select
        ab = mat(f"BAND_{dt}", (3, 7), cx)
        for lower in (False, True):
            lo = "l" if lower else "u"
            w, v = sl.eig_banded(ab, lower=lower)
            a[f"eigb_{lo}_{dt}_w"] = w
            a[f"eigb_{lo}_{dt}_absv"] = np.abs(v)  # vectors up to phase: compare moduli
            a[f"eigb_{lo}_{dt}_wi"] = sl.eigvals_banded(ab, lower=lower, select="i", select_range=(2, 4))
            a[f"eigb_{lo}_{dt}_wv"] = sl.eigvals_banded(ab, lower=lower, select="v", select_range=(-1.0, 1.5))
        # qr_multiply: both modes, conjugate, 1-D and 2-D c, tall and wide a
        for case, shape in (("t", (5, 3)), ("w", (3, 5))):
            x = mat(f"QM{case}_{dt}", shape, cx)
            M, N = shape
            K = min(M, N)
            cr = mat(f"QMR{case}_{dt}", (2, M), cx)
            cl = mat(f"QML{case}_{dt}", (K, 2), cx)
            for conj in (False, True):
                cj = "c" if conj else "n"
                a[f"qrm_{case}_right_{cj}_{dt}"] = sl.qr_multiply(x, cr, mode="right", conjugate=conj)[0]
                a[f"qrm_{case}_left_{cj}_{dt}"] = sl.qr_multiply(x, cl, mode="left", conjugate=conj)[0]
            a[f"qrm_{case}_right1_{dt}"] = sl.qr_multiply(x, cr[0], mode="right")[0]
            a[f"qrm_{case}_left1_{dt}"] = sl.qr_multiply(x, cl[:, 0], mode="left")[0]
            a[f"qrm_{case}_{dt}_r"] = sl.qr_multiply(x, cr, mode="right")[1]
        # ldl: random symmetric/Hermitian and one with a zero diagonal (2 x 2 pivots), both
        # triangles, hermitian and (complex) symmetric
        g = mat(f"LD_{dt}", (6, 6), cx)
        for case, x in (("r", g + g.T), ("h", g + g.conj().T), ("z", (g + g.T) * (1 - np.eye(6)))):
            x = f32(x)
            a[f"in_LDL{case}_{dt}"] = x
            for lower in (True, False):
                for herm in ((True, False) if cx else (True,)):
                    key = f"ldl_{case}_{'l' if lower else 'u'}_{'h' if herm else 's'}_{dt}"
                    lu, dd, perm = sl.ldl(x, lower=lower, hermitian=herm)
                    a[f"{key}_lu"], a[f"{key}_d"], a[f"{key}_perm"] = lu, dd, perm.astype(np.int64)
    # rsf2csf of SciPy's real Schur form; cdf2rdf of numpy's eig of a real matrix
    x = a["in_S7_d"]
    t, z = sl.schur(x)
    a["rsf_t"], a["rsf_z"] = t, z
    a["rsf_tc"], a["rsf_zc"] = sl.rsf2csf(t, z)
    w, v = np.linalg.eig(x)
    a["cdf_w"], a["cdf_v"] = w, v
    a["cdf_wr"], a["cdf_vr"] = sl.cdf2rdf(w, v)
    # eigh: the imaginary part of the diagonal is ignored
    h = mat("EH_z", (5, 5), True)
    h = h + h.conj().T
    hn = h + 1j * np.diag(np.arange(1.0, 6.0))
    a["in_EHN"] = hn
    a["eigh_imagdiag_w"] = sl.eigh(hn, eigvals_only=True)
    savez_fixed(out / "scipy_linalg_schur.npz", compressed=True, **a)


# --------------------------------------------------------------------------------------------
# cusci-linalg: matrix_balance and the QR updates (issue 30)
# crates/linalg/tests/data/scipy_linalg_update.npz, read by crates/linalg/tests/scipy_update.rs.
# --------------------------------------------------------------------------------------------


@section("linalg_update", folder="linalg")
def gen_linalg_update(out: Path) -> None:
    """matrix_balance (b and the separate scaling/permutation) for badly scaled, reducible and
    stacked matrices; qr_update / qr_insert / qr_delete of SciPy's full and economic factors of
    a 5 x 3 (and a 3 x 5) matrix: the target matrix `a1` and `|r1|` (unique up to a unimodular
    factor per row). Inputs are exactly representable in f32."""
    import scipy.linalg as sl

    a: dict[str, np.ndarray] = {}
    S = "linalg_update"

    def f32(x):
        if np.iscomplexobj(x):
            return x.astype(np.complex64).astype(np.complex128)
        return x.astype(np.float32).astype(np.float64)

    def mat(name, shape, cx):
        g = rng(S, name)
        x = g.standard_normal(shape)
        if cx:
            x = x + 1j * g.standard_normal(shape)
        x = f32(x)
        a[f"in_{name}"] = x
        return x

    for dt, cx in (("d", False), ("z", True)):
        # matrix_balance: graded scaling, a reducible matrix (isolated eigenvalues), a stack
        g = mat(f"B5_{dt}", (5, 5), cx)
        d = 2.0 ** np.array([-9, -3, 0, 4, 10])
        x = f32(g * d[:, None] / d[None, :])
        a[f"in_BAL_{dt}"] = x
        red = mat(f"BR5_{dt}", (5, 5), cx)
        red[2, [0, 1, 3, 4]] = 0  # row 2 isolates an eigenvalue
        red[[1, 2, 3, 4], 0] = 0  # column 0 too
        red = f32(red * d[None, :])
        a[f"in_BRED_{dt}"] = red
        st = f32(mat(f"BS_{dt}", (2, 3, 3), cx) * np.array([1e-3, 1.0, 1e3])[None, None, :])
        a[f"in_BST_{dt}"] = st
        for case, m in (("bal", x), ("red", red), ("st", st)):
            for perm, scale, tag in ((True, True, "ps"), (True, False, "p"), (False, True, "s")):
                if m.ndim == 2:
                    b, (sc, pm) = sl.matrix_balance(m, permute=perm, scale=scale, separate=True)
                else:
                    # SciPy 1.17 stacks each matrix's (scale, perm) pair along the batch axis
                    # (unpacking splits the batch): the per-matrix results, stacked
                    rs = [sl.matrix_balance(x, permute=perm, scale=scale, separate=True) for x in m]
                    b = np.stack([r[0] for r in rs])
                    sc = np.stack([r[1][0] for r in rs])
                    pm = np.stack([r[1][1] for r in rs])
                key = f"mb_{case}_{tag}_{dt}"
                a[f"{key}_b"], a[f"{key}_scale"], a[f"{key}_perm"] = b, sc, pm.astype(np.int64)
            a[f"mb_{case}_ps_{dt}_t"] = sl.matrix_balance(m)[1]
        # QR updates of a tall 5 x 3 and a wide 3 x 5 matrix
        A = mat(f"QA_{dt}", (5, 3), cx)
        W = mat(f"QW_{dt}", (3, 5), cx)
        qf, rf = sl.qr(A)
        qe, re = sl.qr(A, mode="economic")
        qw, rw = sl.qr(W)
        a[f"in_QF_{dt}"], a[f"in_RF_{dt}"] = qf, rf
        a[f"in_QE_{dt}"], a[f"in_RE_{dt}"] = qe, re
        a[f"in_QWF_{dt}"], a[f"in_RWF_{dt}"] = qw, rw
        u5, v3 = mat(f"U5_{dt}", (5,), cx), mat(f"V3_{dt}", (3,), cx)
        u52, v32 = mat(f"U52_{dt}", (5, 2), cx), mat(f"V32_{dt}", (3, 2), cx)
        u3, v5 = mat(f"U3_{dt}", (3,), cx), mat(f"V5_{dt}", (5,), cx)
        r1, r2 = mat(f"ROW1_{dt}", (3,), cx), mat(f"ROW2_{dt}", (2, 3), cx)
        c1, c3 = mat(f"COL1_{dt}", (5,), cx), mat(f"COL3_{dt}", (5, 3), cx)
        cw = mat(f"COLW_{dt}", (3,), cx)
        rw1 = mat(f"ROWW_{dt}", (5,), cx)
        cases = {
            # name: (q, r, a (the matrix), call, new matrix)
            "upd_f": (qf, rf, lambda q, r: sl.qr_update(q, r, u5, v3), A + np.outer(u5, v3.conj())),
            "upd_e": (qe, re, lambda q, r: sl.qr_update(q, r, u5, v3), A + np.outer(u5, v3.conj())),
            "updk_f": (qf, rf, lambda q, r: sl.qr_update(q, r, u52, v32), A + u52 @ v32.conj().T),
            "updk_e": (qe, re, lambda q, r: sl.qr_update(q, r, u52, v32), A + u52 @ v32.conj().T),
            "upd_w": (qw, rw, lambda q, r: sl.qr_update(q, r, u3, v5), W + np.outer(u3, v5.conj())),
            "insr_f": (qf, rf, lambda q, r: sl.qr_insert(q, r, r1, 2), np.insert(A, 2, r1, 0)),
            "insr_e": (qe, re, lambda q, r: sl.qr_insert(q, r, r1, 0), np.insert(A, 0, r1, 0)),
            "insr2_f": (qf, rf, lambda q, r: sl.qr_insert(q, r, r2, 5), np.vstack([A, r2])),
            "insr2_e": (qe, re, lambda q, r: sl.qr_insert(q, r, r2, -2), np.insert(A, [3, 3], r2, 0)),
            "insr_w": (qw, rw, lambda q, r: sl.qr_insert(q, r, rw1, 1), np.insert(W, 1, rw1, 0)),
            "insc_f": (qf, rf, lambda q, r: sl.qr_insert(q, r, c1, 1, "col"), np.insert(A, 1, c1, 1)),
            "insc_e": (qe, re, lambda q, r: sl.qr_insert(q, r, c1, 3, "col"), np.column_stack([A, c1])),
            "insc3_f": (qf, rf, lambda q, r: sl.qr_insert(q, r, c3, 0, "col"), np.hstack([c3, A])),
            "insc3_e": (qe, re, lambda q, r: sl.qr_insert(q, r, c3, 1, "col"), np.hstack([A[:, :1], c3, A[:, 1:]])),
            "insc_w": (qw, rw, lambda q, r: sl.qr_insert(q, r, cw, 4, "col"), np.insert(W, 4, cw, 1)),
            "delr_f": (qf, rf, lambda q, r: sl.qr_delete(q, r, 2), np.delete(A, 2, 0)),
            "delr3_f": (qf, rf, lambda q, r: sl.qr_delete(q, r, -3, 3), A[:2]),
            "delr_e": (qe, re, lambda q, r: sl.qr_delete(q, r, 4), A[:4]),
            "delr3_e": (qe, re, lambda q, r: sl.qr_delete(q, r, 1, 3), np.delete(A, [1, 2, 3], 0)),
            "delr_w": (qw, rw, lambda q, r: sl.qr_delete(q, r, 0, 2), W[2:]),
            "delc_f": (qf, rf, lambda q, r: sl.qr_delete(q, r, 0, 2, "col"), A[:, 2:]),
            "delc_e": (qe, re, lambda q, r: sl.qr_delete(q, r, 1, 1, "col"), np.delete(A, 1, 1)),
            "delc_w": (qw, rw, lambda q, r: sl.qr_delete(q, r, 1, 3, "col"), np.delete(W, [1, 2, 3], 1)),
        }
        for name, (q, r, call, a1) in cases.items():
            q1, r1_ = call(q, r)
            assert np.allclose(q1 @ r1_, a1), name
            a[f"{name}_{dt}_a1"] = a1
            a[f"{name}_{dt}_absr"] = np.abs(r1_)
            a[f"{name}_{dt}_qshape"] = np.array(q1.shape, dtype=np.int64)
        # qz / ordqz (output='complex'): eigenvalues as sets; a singular b (infinite eigenvalues)
        QA, QB = mat(f"QZA_{dt}", (5, 5), cx), mat(f"QZB_{dt}", (5, 5), cx)
        QS = QB.copy()
        QS[:, 1] = 0
        QS[3, :] = 0
        a[f"in_QZS_{dt}"] = QS
        for case, bb_ in (("g", QB), ("s", QS)):
            AA, BB, Q, Zm = sl.qz(QA, bb_, output="complex")
            al, be = np.diag(AA), np.diag(BB)
            fin = np.abs(be) > 1e-12 * np.abs(BB).max()
            a[f"qz_{case}_{dt}_eigs"] = np.sort_complex(al[fin] / be[fin])
            a[f"qz_{case}_{dt}_ninf"] = np.array((~fin).sum(), dtype=np.int64)
            for srt in ("lhp", "rhp", "iuc", "ouc"):
                AA, BB, al, be, Q, Zm = sl.ordqz(QA, bb_, sort=srt, output="complex")
                sel = {"lhp": sl._decomp_qz._lhp, "rhp": sl._decomp_qz._rhp,
                       "iuc": sl._decomp_qz._iuc, "ouc": sl._decomp_qz._ouc}[srt](al, be)
                k = int(sel.sum())
                assert sel[:k].all()
                # infinite eigenvalues (|beta| at rounding level) left out
                fin = np.abs(be[:k]) > 1e-10 * np.abs(be).max()
                a[f"ordqz_{case}_{srt}_{dt}_k"] = np.array(k, dtype=np.int64)
                a[f"ordqz_{case}_{srt}_{dt}_sel"] = np.sort_complex(al[:k][fin] / be[:k][fin])
    savez_fixed(out / "scipy_linalg_update.npz", compressed=True, **a)



# --------------------------------------------------------------------------------------------
# issue 30: SciPy's semantics for eigh/eigvalsh (generalized, subsets), solve (assume_a),
# cholesky, lu, qr (pivoting), pinv/pinvh (atol, rtol), norm (axis, keepdims), matrix_rank.
# crates/linalg/tests/data/scipy_linalg_sem.npz, read by crates/linalg/tests/scipy_sem.rs.
# Inputs rounded to float32 first, stored as float64/complex128.
# --------------------------------------------------------------------------------------------


@section("linalg_sem", folder="linalg")
def gen_linalg_sem(out: Path) -> None:
    """`scipy_linalg_sem.npz`: `in_<key>` inputs and `<fn>_<case>_<dt>` results (`dt`: `d` real,
    `z` complex).

    - eigh: `EA5_<dt>` (5x5, not Hermitian: only one triangle is read), `EB5_<dt>` (5x5, its
      triangles give positive definite matrices); eigenvalues of the standard problem and of
      types 1, 2, 3 with lower=True and False (`eigh_<case>_<lower>_<dt>`), subsets by index
      [1, 3] and by value (-0.5, 1.5] (standard and type 1), and a (2, 4, 4) stack (`EAS`, `EBS`).
    - solve: `SA5_<dt>` (5x5 general), `SP5_<dt>` (positive definite), `SB5_<dt>`/`SB52_<dt>`
      right-hand sides (5,) and (5, 2); x for every assume_a (and lower / transposed where
      SciPy reads them).
    - cholesky upper and lower of `SP5`; lu (`p_indices`, `permute_l`) and qr with pivoting
      (full, economic) of `LA_<dt>` (5x3) and its transpose; pinv (default, atol=0.01,
      rtol=0.5) and matrix_rank (default, rtol, tol, hermitian) of `PA` (4x3, singular values
      3, 1, 1e-3); norm of `NA` (2, 3, 4): all, vector norms along axis 1 (keepdims), matrix
      norms over (2, 0), (1, 2) with keepdims.
    - cossin of `CS_<dt>` (7x7 orthogonal / unitary, not rounded to float32: unitarity matters)
      for (p, q) in (3, 2), (5, 4), (5, 5), (2, 6), (1, 1), (4, 3): `cs` and `theta`; `cs` with
      swap_sign for (3, 2).
    """
    import scipy.linalg as sl

    a: dict[str, np.ndarray] = {}
    S = "linalg_sem"

    def f32(x):
        if np.iscomplexobj(x):
            return x.astype(np.complex64).astype(np.complex128)
        return x.astype(np.float32).astype(np.float64)

    def mat(name, shape, cx, scale=1.0, shift=0.0):
        g = rng(S, name)
        x = g.standard_normal(shape)
        if cx:
            x = x + 1j * g.standard_normal(shape)
        x = scale * x
        if shift:
            x = x + shift * np.eye(shape[-1])
        x = f32(x)
        a[f"in_{name}"] = x
        return x

    for dt, cx in (("d", False), ("z", True)):
        # eigh: a full non-Hermitian array of which one triangle is read; b positive definite
        # from either triangle (a dominant diagonal)
        A = mat(f"EA5_{dt}", (5, 5), cx)
        B = mat(f"EB5_{dt}", (5, 5), cx, 0.3, 3.0)
        for lower, lt in ((True, "l"), (False, "u")):
            a[f"eigh_std_{lt}_{dt}"] = sl.eigh(A, lower=lower, eigvals_only=True)
            for t in (1, 2, 3):
                a[f"eigh_t{t}_{lt}_{dt}"] = sl.eigh(A, B, lower=lower, type=t, eigvals_only=True)
        a[f"eigh_idx_std_{dt}"] = sl.eigh(A, subset_by_index=[1, 3], eigvals_only=True)
        a[f"eigh_idx_t1_{dt}"] = sl.eigh(A, B, subset_by_index=[1, 3], eigvals_only=True)
        a[f"eigh_val_std_{dt}"] = sl.eigh(A, subset_by_value=[-0.5, 1.5], eigvals_only=True)
        a[f"eigh_val_t1_{dt}"] = sl.eigh(A, B, subset_by_value=[-0.5, 1.5], eigvals_only=True)
        AS = mat(f"EAS_{dt}", (2, 4, 4), cx)
        BS = mat(f"EBS_{dt}", (2, 4, 4), cx, 0.3, 3.0)
        a[f"eigh_stack_t1_{dt}"] = np.stack(
            [sl.eigh(AS[i], BS[i], eigvals_only=True) for i in range(2)])

        # solve with every assume_a
        SA = mat(f"SA5_{dt}", (5, 5), cx, 1.0, 2.0)
        SP = mat(f"SP5_{dt}", (5, 5), cx, 0.3, 3.0)
        b1 = mat(f"SB5_{dt}", (5,), cx)
        b2 = mat(f"SB52_{dt}", (5, 2), cx)
        for bn, b in (("v", b1), ("m", b2)):
            a[f"solve_gen_{bn}_{dt}"] = sl.solve(SA, b, assume_a="gen")
            if not cx:
                a[f"solve_gent_{bn}_{dt}"] = sl.solve(SA, b, assume_a="gen", transposed=True)
            for lower, lt in ((True, "l"), (False, "u")):
                a[f"solve_sym_{lt}_{bn}_{dt}"] = sl.solve(SA, b, assume_a="sym", lower=lower)
                a[f"solve_her_{lt}_{bn}_{dt}"] = sl.solve(SA, b, assume_a="her", lower=lower)
                a[f"solve_pos_{lt}_{bn}_{dt}"] = sl.solve(SP, b, assume_a="pos", lower=lower)
            a[f"solve_lt_{bn}_{dt}"] = sl.solve(np.tril(SA), b, assume_a="lower triangular")
            a[f"solve_ut_{bn}_{dt}"] = sl.solve(np.triu(SA), b, assume_a="upper triangular")
            a[f"solve_diag_{bn}_{dt}"] = sl.solve(np.diag(np.diag(SA)), b, assume_a="diagonal")
            tri = np.triu(np.tril(SA, 1), -1)
            a[f"solve_tri_{bn}_{dt}"] = sl.solve(tri, b, assume_a="tridiagonal")
            band = np.triu(np.tril(SA, 2), -1)
            a[f"solve_band_{bn}_{dt}"] = sl.solve(band, b, assume_a="banded")
            a[f"solve_auto_{bn}_{dt}"] = sl.solve(SA, b)

        # cholesky (upper by default), lu (p_indices, permute_l), qr with pivoting
        a[f"chol_u_{dt}"] = sl.cholesky(SP)
        a[f"chol_l_{dt}"] = sl.cholesky(SP, lower=True)
        LA = mat(f"LA_{dt}", (5, 3), cx)
        for case, x in (("t", LA), ("w", LA.T.copy())):
            p, l, u = sl.lu(x, p_indices=True)
            a[f"lu_p_{case}_{dt}"] = p.astype(np.int64)
            pl, u2 = sl.lu(x, permute_l=True)
            a[f"lu_pl_{case}_{dt}"] = pl
            for mode in ("full", "economic"):
                q, r, pv = sl.qr(x, mode=mode, pivoting=True)
                a[f"qrp_{mode}_{case}_{dt}_q"] = q
                a[f"qrp_{mode}_{case}_{dt}_r"] = r
                a[f"qrp_{mode}_{case}_{dt}_p"] = pv.astype(np.int64)
        # pinv with atol / rtol of a matrix with singular values 3, 1, 1e-3
        U, _ = np.linalg.qr(mat(f"PU_{dt}", (4, 3), cx))
        V, _ = np.linalg.qr(mat(f"PV_{dt}", (3, 3), cx))
        PA = f32(U @ np.diag([3.0, 1.0, 1e-3]) @ V.conj().T)
        a[f"in_PA_{dt}"] = PA
        a[f"pinv_def_{dt}"] = sl.pinv(PA)
        a[f"pinv_atol_{dt}"] = sl.pinv(PA, atol=0.01)
        a[f"pinv_rtol_{dt}"] = sl.pinv(PA, rtol=0.5)
        a[f"rank_def_{dt}"] = np.array(np.linalg.matrix_rank(PA), dtype=np.int64)
        a[f"rank_rtol_{dt}"] = np.array(np.linalg.matrix_rank(PA, rtol=1e-2), dtype=np.int64)
        a[f"rank_tol_{dt}"] = np.array(np.linalg.matrix_rank(PA, tol=2.0), dtype=np.int64)
        HA = f32(PA.conj().T @ PA)
        a[f"in_HA_{dt}"] = HA
        a[f"rank_herm_{dt}"] = np.array(
            np.linalg.matrix_rank(HA, hermitian=True, rtol=1e-5), dtype=np.int64)
        # norm with axis / keepdims of a (2, 3, 4) array
        NA = mat(f"NA_{dt}", (2, 3, 4), cx)
        a[f"norm_all_{dt}"] = np.array(sl.norm(NA))
        for ordn, o in (("none", None), ("1", 1), ("inf", np.inf), ("ninf", -np.inf),
                        ("0", 0), ("3", 3)):
            a[f"norm_v1_{ordn}_{dt}"] = sl.norm(NA, ord=o, axis=1, keepdims=True)
        for ordn, o in (("none", None), ("fro", "fro"), ("nuc", "nuc"), ("1", 1),
                        ("m1", -1), ("inf", np.inf), ("2", 2), ("m2", -2)):
            a[f"norm_m20_{ordn}_{dt}"] = sl.norm(NA, ord=o, axis=(2, 0))
        a[f"norm_m12k_{dt}"] = sl.norm(NA, ord=1, axis=(1, 2), keepdims=True)

        # cossin of a 7x7 unitary (orthogonal) matrix for several partitions
        from scipy.stats import ortho_group, unitary_group
        seed = int.from_bytes(hashlib.sha256(f"{S}/CS_{dt}".encode()).digest()[:4], "little")
        X = (unitary_group if cx else ortho_group).rvs(7, random_state=seed)
        a[f"in_CS_{dt}"] = X
        for p_, q_ in ((3, 2), (5, 4), (5, 5), (2, 6), (1, 1), (4, 3)):
            _, cs, _ = sl.cossin(X, p=p_, q=q_)
            a[f"cossin_{p_}{q_}_{dt}_cs"] = cs
            a[f"cossin_{p_}{q_}_{dt}_theta"] = sl.cossin(X, p=p_, q=q_, separate=True)[1]
        a[f"cossin_swap_{dt}_cs"] = sl.cossin(X, p=3, q=2, swap_sign=True)[1]
    savez_fixed(out / "scipy_linalg_sem.npz", compressed=True, **a)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sections", nargs="*", help="sections to generate (default: all)")
    ap.add_argument("--list", action="store_true", help="list the sections and exit")
    args = ap.parse_args(argv)
    if args.list:
        for name, fn in SECTIONS.items():
            print(f"{name}: crates/{FOLDERS.get(name, name)}/tests/data/ ({fn.__name__})")
        return 0
    unknown = [s for s in args.sections if s not in SECTIONS]
    if unknown:
        ap.error(f"unknown sections {unknown}; known: {sorted(SECTIONS)}")
    for name in args.sections or list(SECTIONS):
        out = ROOT / "crates" / FOLDERS.get(name, name) / "tests" / "data"
        out.mkdir(parents=True, exist_ok=True)
        SECTIONS[name](out)
        files = sorted(p for p in out.iterdir() if p.is_file())
        total = sum(p.stat().st_size for p in files)
        print(f"{name}: {len(files)} files, {total} bytes in {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
