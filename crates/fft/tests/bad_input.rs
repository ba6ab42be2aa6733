//! Bad and extreme inputs for cusci-fft (issue 33): a table of cases, each asserting a typed
//! error variant or SciPy's value (scipy.fft 1.17.1) where SciPy accepts the input, run on every
//! device in a child process (the harness is `cusci_core::testing::bad_input`). No case
//! allocates more than a few KiB: huge lengths must be refused before anything is allocated.

use cusci_core::testing::bad_input::{self as bi, cv, f, fv, s1, shp, Kind::*, Table, V};
use cusci_core::{c64, Array, Device, Result};
use cusci_fft::*;

const G40: usize = 1 << 40;
const G62: usize = 1 << 62;

fn re(v: &[f64], d: &Device) -> Result<Array<f64>> {
    Array::from_slice(v, &[v.len()], d)
}
fn cx(v: &[(f64, f64)], d: &Device) -> Result<Array<c64>> {
    let c: Vec<c64> = v.iter().map(|&(a, b)| c64::new(a, b)).collect();
    Array::from_vec(c, &[v.len()], d)
}
fn a5(d: &Device) -> Result<Array<f64>> {
    re(&[0.0, 1.0, 2.0, 3.0, 4.0], d)
}
fn o1(n: Option<usize>, axis: isize) -> FftOptions {
    FftOptions {
        n,
        axis,
        ..Default::default()
    }
}
fn on(s: Option<Vec<usize>>, axes: Option<Vec<isize>>) -> FftnOptions {
    FftnOptions {
        s,
        axes,
        ..Default::default()
    }
}
fn od(kind: DctType, n: Option<usize>) -> DctOptions {
    DctOptions {
        kind,
        n,
        ..Default::default()
    }
}
fn odn(s: Option<Vec<usize>>, axes: Option<Vec<isize>>) -> DctnOptions {
    DctnOptions {
        s,
        axes,
        ..Default::default()
    }
}
fn ones2(d: &Device) -> Result<Array<f64>> {
    Array::<f64>::ones(&[2, 2], d)
}
fn len(n: usize) -> V {
    V::N(n as u64)
}

fn table(_dev: &Device) -> Table {
    let mut t = Table::new();

    // ---------- fft / ifft: empty, 0-d, n, axis ----------
    t.err("fft empty", Arg, |d| cv(fft(&re(&[], d)?, &o1(None, -1))?));
    t.err("fft 0-d", Arg, |d| {
        cv(fft(&Array::<f64>::full(&[], 1.0, d)?, &o1(None, -1))?)
    });
    t.err("fft n=0", Arg, |d| cv(fft(&a5(d)?, &o1(Some(0), -1))?));
    t.err("fft n=2^40", Oom, |d| cv(fft(&a5(d)?, &o1(Some(G40), -1))?));
    t.err("fft n=2^62", Arg, |d| cv(fft(&a5(d)?, &o1(Some(G62), -1))?));
    t.err("fft n=usize::MAX", Arg, |d| {
        cv(fft(&a5(d)?, &o1(Some(usize::MAX), -1))?)
    });
    t.err("fft axis 1 of 1-D", Arg, |d| {
        cv(fft(&a5(d)?, &o1(None, 1))?)
    });
    t.err("fft axis -2 of 1-D", Arg, |d| {
        cv(fft(&a5(d)?, &o1(None, -2))?)
    });
    t.err("fft axis isize::MIN", Arg, |d| {
        cv(fft(&a5(d)?, &o1(None, isize::MIN))?)
    });
    t.err("fft axis isize::MAX", Arg, |d| {
        cv(fft(&a5(d)?, &o1(None, isize::MAX))?)
    });
    t.val("fft n=1 (truncation)", f(&[1, 2], &[0.0, 0.0]), |d| {
        cv(fft(&a5(d)?, &o1(Some(1), -1))?)
    });
    t.val("fft of one element", f(&[1, 2], &[7.0, 0.0]), |d| {
        cv(fft(&re(&[7.0], d)?, &o1(None, -1))?)
    });
    t.val("fft NaN propagates", f(&[2], &[f64::NAN, f64::NAN]), |d| {
        fv(fft(&re(&[f64::NAN, 1.0], d)?, &o1(None, -1))?)
    });
    t.val(
        "fft inf propagates",
        f(&[2], &[f64::INFINITY, f64::INFINITY]),
        |d| fv(fft(&re(&[f64::INFINITY, 1.0], d)?, &o1(None, -1))?),
    );
    t.val("fft (2, 0) along axis 0", shp(&[2, 0]), |d| {
        let y = fft(&Array::<f64>::zeros(&[2, 0], d)?, &o1(None, 0))?;
        Ok(bi::shape_of(&y))
    });
    t.err("fft (2, 0) along axis 1", Arg, |d| {
        cv(fft(&Array::<f64>::zeros(&[2, 0], d)?, &o1(None, 1))?)
    });
    t.close(
        "fft n=3 truncates",
        f(
            &[3, 2],
            &[
                3.0,
                0.0,
                -1.5,
                0.8660254037844386,
                -1.5,
                -0.8660254037844386,
            ],
        ),
        1e-12,
        |d| cv(fft(&a5(d)?, &o1(Some(3), -1))?),
    );
    t.err("ifft empty", Arg, |d| {
        cv(ifft(&cx(&[], d)?, &o1(None, -1))?)
    });
    t.err("ifft n=0", Arg, |d| {
        cv(ifft(&cx(&[(1.0, 0.0)], d)?, &o1(Some(0), -1))?)
    });
    t.err("ifft n=usize::MAX", Arg, |d| {
        cv(ifft(&cx(&[(1.0, 0.0)], d)?, &o1(Some(usize::MAX), -1))?)
    });
    t.val("ifft ortho of one", f(&[1, 2], &[4.0, 0.0]), |d| {
        let o = FftOptions {
            norm: Norm::Ortho,
            ..Default::default()
        };
        cv(ifft(&cx(&[(4.0, 0.0)], d)?, &o)?)
    });

    // ---------- rfft / irfft / hfft / ihfft ----------
    t.err("rfft empty", Arg, |d| {
        cv(rfft(&re(&[], d)?, &o1(None, -1))?)
    });
    t.err("rfft 0-d", Arg, |d| {
        cv(rfft(&Array::<f64>::full(&[], 1.0, d)?, &o1(None, -1))?)
    });
    t.err("rfft n=0", Arg, |d| cv(rfft(&a5(d)?, &o1(Some(0), -1))?));
    t.err("rfft n=2^40", Oom, |d| {
        cv(rfft(&a5(d)?, &o1(Some(G40), -1))?)
    });
    t.err("rfft n=usize::MAX", Arg, |d| {
        cv(rfft(&a5(d)?, &o1(Some(usize::MAX), -1))?)
    });
    t.err("rfft axis 3", Arg, |d| cv(rfft(&a5(d)?, &o1(None, 3))?));
    t.val("rfft n=1", f(&[1, 2], &[0.0, 0.0]), |d| {
        cv(rfft(&a5(d)?, &o1(Some(1), -1))?)
    });
    t.err("irfft of one element (n = 0)", Arg, |d| {
        fv(irfft(&cx(&[(1.0, 0.0)], d)?, &o1(None, -1))?)
    });
    t.err("irfft empty", Arg, |d| {
        fv(irfft(&cx(&[], d)?, &o1(None, -1))?)
    });
    t.err("irfft n=0", Arg, |d| {
        fv(irfft(&cx(&[(1.0, 0.0), (2.0, 0.0)], d)?, &o1(Some(0), -1))?)
    });
    t.err("irfft n=2^40", Oom, |d| {
        fv(irfft(
            &cx(&[(1.0, 0.0), (2.0, 0.0)], d)?,
            &o1(Some(G40), -1),
        )?)
    });
    t.err("irfft n=usize::MAX", Arg, |d| {
        fv(irfft(
            &cx(&[(1.0, 0.0), (2.0, 0.0)], d)?,
            &o1(Some(usize::MAX), -1),
        )?)
    });
    t.val("irfft n=1", f(&[1], &[1.0]), |d| {
        fv(irfft(&cx(&[(1.0, 0.0), (2.0, 0.0)], d)?, &o1(Some(1), -1))?)
    });
    t.val("irfft n=2 truncates", f(&[2], &[1.5, -0.5]), |d| {
        let x = cx(&[(1.0, 0.0), (2.0, 0.0), (3.0, 0.0)], d)?;
        fv(irfft(&x, &o1(Some(2), -1))?)
    });
    t.err("hfft of one element (n = 0)", Arg, |d| {
        fv(hfft(&cx(&[(1.0, 0.0)], d)?, &o1(None, -1))?)
    });
    t.err("hfft empty", Arg, |d| {
        fv(hfft(&cx(&[], d)?, &o1(None, -1))?)
    });
    t.err("hfft n=usize::MAX", Arg, |d| {
        fv(hfft(
            &cx(&[(1.0, 0.0), (2.0, 0.0)], d)?,
            &o1(Some(usize::MAX), -1),
        )?)
    });
    t.err("ihfft empty", Arg, |d| {
        cv(ihfft(&re(&[], d)?, &o1(None, -1))?)
    });
    t.err("ihfft n=0", Arg, |d| cv(ihfft(&a5(d)?, &o1(Some(0), -1))?));
    t.err("irfft_real empty", Arg, |d| {
        fv(irfft_real(&re(&[], d)?, &o1(None, -1))?)
    });

    // ---------- fftn family: s, axes ----------
    t.err("fftn duplicate axes", Arg, |d| {
        cv(fftn(&ones2(d)?, &on(None, Some(vec![0, 0])))?)
    });
    t.err("fftn duplicate axes (-1, 1)", Arg, |d| {
        cv(fftn(&ones2(d)?, &on(None, Some(vec![-1, 1])))?)
    });
    t.err("fftn axis 2 of 2-D", Arg, |d| {
        cv(fftn(&ones2(d)?, &on(None, Some(vec![2])))?)
    });
    t.err("fftn axis -3 of 2-D", Arg, |d| {
        cv(fftn(&ones2(d)?, &on(None, Some(vec![-3])))?)
    });
    t.err("fftn s and axes of other lengths", Shape, |d| {
        cv(fftn(&ones2(d)?, &on(Some(vec![2]), Some(vec![0, 1])))?)
    });
    t.err("fftn s longer than the rank", Shape, |d| {
        cv(fftn(&ones2(d)?, &on(Some(vec![2, 2, 2]), None))?)
    });
    t.err("fftn s with 0", Arg, |d| {
        cv(fftn(&ones2(d)?, &on(Some(vec![0, 2]), None))?)
    });
    t.err("fftn s (2^40, 2^40)", Arg, |d| {
        cv(fftn(&ones2(d)?, &on(Some(vec![G40, G40]), None))?)
    });
    t.err("fftn s (2^20, 2^20)", Oom, |d| {
        cv(fftn(&ones2(d)?, &on(Some(vec![1 << 20, 1 << 20]), None))?)
    });
    t.err("fftn s usize::MAX", Arg, |d| {
        cv(fftn(&ones2(d)?, &on(Some(vec![usize::MAX, 2]), None))?)
    });
    t.err("fftn of an empty axis", Arg, |d| {
        cv(fftn(&Array::<f64>::zeros(&[2, 0], d)?, &on(None, None))?)
    });
    t.val(
        "fftn over no axes",
        f(&[2, 2, 2], &[1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0]),
        |d| cv(fftn(&ones2(d)?, &on(None, Some(vec![])))?),
    );
    t.err("ifftn duplicate axes", Arg, |d| {
        cv(ifftn(&ones2(d)?, &on(None, Some(vec![1, 1])))?)
    });
    t.err("fft2 of 1-D", Arg, |d| cv(fft2(&a5(d)?, &on(None, None))?));
    t.err("ifft2 of 1-D", Arg, |d| {
        cv(ifft2(&a5(d)?, &on(None, None))?)
    });
    t.err("rfftn duplicate axes", Arg, |d| {
        cv(rfftn(&ones2(d)?, &on(None, Some(vec![1, 1])))?)
    });
    t.err("rfftn s with 0", Arg, |d| {
        cv(rfftn(&ones2(d)?, &on(Some(vec![2, 0]), None))?)
    });
    t.err("rfftn s usize::MAX", Arg, |d| {
        cv(rfftn(&ones2(d)?, &on(Some(vec![2, usize::MAX]), None))?)
    });
    t.err("irfftn of last length 1 (n = 0)", Arg, |d| {
        let x = Array::<c64>::ones(&[2, 1], d)?;
        fv(irfftn(&x, &on(None, None))?)
    });
    t.err("irfftn duplicate axes", Arg, |d| {
        let x = Array::<c64>::ones(&[2, 2], d)?;
        fv(irfftn(&x, &on(None, Some(vec![0, 0])))?)
    });
    t.err("irfftn s usize::MAX", Arg, |d| {
        let x = Array::<c64>::ones(&[2, 2], d)?;
        fv(irfftn(&x, &on(Some(vec![2, usize::MAX]), None))?)
    });
    t.err("rfft2 of 1-D", Arg, |d| {
        cv(rfft2(&a5(d)?, &on(None, None))?)
    });
    t.err("irfft2 of 1-D", Arg, |d| {
        fv(irfft2(&cx(&[(1.0, 0.0), (1.0, 0.0)], d)?, &on(None, None))?)
    });
    t.err("hfftn duplicate axes", Arg, |d| {
        let x = Array::<c64>::ones(&[2, 2], d)?;
        fv(hfftn(&x, &on(None, Some(vec![1, 1])))?)
    });
    t.err("ihfftn s with 0", Arg, |d| {
        cv(ihfftn(&ones2(d)?, &on(Some(vec![0, 2]), None))?)
    });
    t.err("hfft2 of 1-D", Arg, |d| {
        fv(hfft2(&cx(&[(1.0, 0.0), (1.0, 0.0)], d)?, &on(None, None))?)
    });
    t.err("ihfft2 of 1-D", Arg, |d| {
        cv(ihfft2(&a5(d)?, &on(None, None))?)
    });

    // ---------- DCT / DST ----------
    t.err("dct empty", Arg, |d| {
        fv(dct(&re(&[], d)?, &od(DctType::Type2, None))?)
    });
    t.err("dct 0-d", Arg, |d| {
        fv(dct(
            &Array::<f64>::full(&[], 1.0, d)?,
            &od(DctType::Type2, None),
        )?)
    });
    t.err("dct n=0", Arg, |d| {
        fv(dct(&a5(d)?, &od(DctType::Type2, Some(0)))?)
    });
    t.err("dct n=2^40", Oom, |d| {
        fv(dct(&a5(d)?, &od(DctType::Type2, Some(G40)))?)
    });
    t.err("dct n=usize::MAX", Arg, |d| {
        fv(dct(&a5(d)?, &od(DctType::Type2, Some(usize::MAX)))?)
    });
    t.err("dct type 1 of one element", Arg, |d| {
        fv(dct(&re(&[1.0], d)?, &od(DctType::Type1, None))?)
    });
    t.err("idct type 1 of one element", Arg, |d| {
        fv(idct(&re(&[1.0], d)?, &od(DctType::Type1, None))?)
    });
    t.val("dst type 1 of one element", f(&[1], &[2.0]), |d| {
        fv(dst(&re(&[1.0], d)?, &od(DctType::Type1, None))?)
    });
    t.val(
        "dct type 4 of one element",
        f(&[1], &[2.0 * std::f64::consts::SQRT_2]),
        |d| fv(dct(&re(&[2.0], d)?, &od(DctType::Type4, None))?),
    );
    t.err("dst n=usize::MAX", Arg, |d| {
        fv(dst(&a5(d)?, &od(DctType::Type3, Some(usize::MAX)))?)
    });
    t.err("idst empty", Arg, |d| {
        fv(idst(&re(&[], d)?, &od(DctType::Type2, None))?)
    });
    t.err("dct axis 1 of 1-D", Arg, |d| {
        let o = DctOptions {
            axis: 1,
            ..Default::default()
        };
        fv(dct(&a5(d)?, &o)?)
    });
    t.err("dctn duplicate axes", Arg, |d| {
        fv(dctn(&ones2(d)?, &odn(None, Some(vec![0, 0])))?)
    });
    t.err("dctn s with 0", Arg, |d| {
        fv(dctn(&ones2(d)?, &odn(Some(vec![0, 2]), None))?)
    });
    t.err("dctn s usize::MAX", Arg, |d| {
        fv(dctn(&ones2(d)?, &odn(Some(vec![usize::MAX, 2]), None))?)
    });
    t.err("idctn axis 5", Arg, |d| {
        fv(idctn(&ones2(d)?, &odn(None, Some(vec![5])))?)
    });
    t.err("dstn s and axes of other lengths", Shape, |d| {
        fv(dstn(&ones2(d)?, &odn(Some(vec![2]), Some(vec![0, 1])))?)
    });
    t.err("idstn of an empty axis", Arg, |d| {
        fv(idstn(&Array::<f64>::zeros(&[0, 2], d)?, &odn(None, None))?)
    });

    // ---------- helpers ----------
    t.err("fftfreq 0", Arg, |d| fv(fftfreq::<f64>(0, 1.0, d)?));
    t.err("fftfreq d=0", Arg, |d| fv(fftfreq::<f64>(4, 0.0, d)?));
    t.val("fftfreq 1", f(&[1], &[0.0]), |d| {
        fv(fftfreq::<f64>(1, 1.0, d)?)
    });
    t.err("fftfreq 2^40", Oom, |d| fv(fftfreq::<f64>(G40, 1.0, d)?));
    t.err("fftfreq usize::MAX", Arg, |d| {
        fv(fftfreq::<f64>(usize::MAX, 1.0, d)?)
    });
    t.err("rfftfreq 0", Arg, |d| fv(rfftfreq::<f64>(0, 1.0, d)?));
    t.val("rfftfreq 1", f(&[1], &[0.0]), |d| {
        fv(rfftfreq::<f64>(1, 1.0, d)?)
    });
    t.err("rfftfreq usize::MAX", Arg, |d| {
        fv(rfftfreq::<f64>(usize::MAX, 1.0, d)?)
    });
    t.err("rfftfreq 2^62", Arg, |d| fv(rfftfreq::<f32>(G62, 1.0, d)?));
    t.err("rfftfreq 2^40", Oom, |d| fv(rfftfreq::<f32>(G40, 1.0, d)?));
    t.val("fftshift empty", f(&[0], &[]), |d| {
        fv(fftshift(&re(&[], d)?, None)?)
    });
    t.err("fftshift axis 1 of 1-D", Arg, |d| {
        fv(fftshift(&a5(d)?, Some(&[1]))?)
    });
    t.err("ifftshift axis -2 of 1-D", Arg, |d| {
        fv(ifftshift(&a5(d)?, Some(&[-2]))?)
    });
    t.val("fftshift of 5", f(&[5], &[3.0, 4.0, 0.0, 1.0, 2.0]), |d| {
        fv(fftshift(&a5(d)?, None)?)
    });
    t.val("ifftshift of 5", f(&[5], &[2.0, 3.0, 4.0, 0.0, 1.0]), |d| {
        fv(ifftshift(&a5(d)?, None)?)
    });
    t.val("next_fast_len 0 (SciPy: 0)", len(0), |_| {
        Ok(len(next_fast_len(0, false)?))
    });
    t.val("next_fast_len 1", len(1), |_| {
        Ok(len(next_fast_len(1, true)?))
    });
    t.err("next_fast_len usize::MAX", Arg, |_| {
        Ok(len(next_fast_len(usize::MAX, false)?))
    });

    // ---------- FFTLog ----------
    t.err("fht empty", Arg, |d| {
        fv(fht(&re(&[], d)?, 0.1, 0.0, &FhtOptions::default())?)
    });
    t.err("fht dln = 0", Arg, |d| {
        fv(fht(&re(&[1.0; 4], d)?, 0.0, 0.0, &FhtOptions::default())?)
    });
    t.err("ifht dln = 0", Arg, |d| {
        fv(ifht(&re(&[1.0; 4], d)?, 0.0, 0.0, &FhtOptions::default())?)
    });
    // SciPy gives NaN here; cusci refuses a non-finite mu (a known difference)
    t.err("fht mu NaN", Arg, |d| {
        fv(fht(
            &re(&[1.0; 4], d)?,
            0.1,
            f64::NAN,
            &FhtOptions::default(),
        )?)
    });
    t.err("fhtoffset dln = 0", Arg, |_| {
        Ok(s1(fhtoffset(0.0, 0.0, 0.0, 0.0)?))
    });

    // ---------- plans ----------
    t.err("plan for n=8 run on n=16", Shape, |d| {
        let x8 = Array::<c64>::ones(&[8], d)?;
        let x16 = Array::<c64>::ones(&[16], d)?;
        let p = get_fft_plan(&x8, &o1(None, -1))?;
        cv(p.execute(&x16, true)?)
    });
    t.err("get_fft_plan n=0", Arg, |d| {
        let x = Array::<c64>::ones(&[8], d)?;
        Ok(V::N(get_fft_plan(&x, &o1(Some(0), -1)).map(|_| 0)?))
    });
    t.err("get_fft_plan n=usize::MAX", Arg, |d| {
        let x = Array::<c64>::ones(&[8], d)?;
        Ok(V::N(
            get_fft_plan(&x, &o1(Some(usize::MAX), -1)).map(|_| 0)?,
        ))
    });
    t.err("get_fftn_plan no axes", Arg, |d| {
        let x = Array::<c64>::ones(&[2, 2], d)?;
        Ok(V::N(
            get_fftn_plan(&x, &on(None, Some(vec![])), PlanKind::C2c).map(|_| 0)?,
        ))
    });
    t.err("get_fftn_plan R2c of complex", DType, |d| {
        let x = Array::<c64>::ones(&[2, 2], d)?;
        Ok(V::N(
            get_fftn_plan(&x, &on(None, None), PlanKind::R2c).map(|_| 0)?,
        ))
    });
    t
}

#[test]
fn bad_input_table() {
    bi::run_in_child("bad_input::bad_input_child", 600);
}

#[test]
fn bad_input_child() {
    bi::child("cusci-fft", 100, table);
}
