//! Bad and extreme inputs for cusci-signal (issue 33): a table of cases, each asserting a typed
//! error variant or SciPy's value (scipy.signal 1.17.1) where SciPy accepts the input, run on
//! every device in a child process (harness: `cusci_core::testing::bad_input`): huge orders,
//! rates and lengths refused before allocation (they wrapped or aborted), empty inputs, bad
//! windows and segment lengths.

use cusci_core::testing::bad_input::{self as bi, fv, Kind::*, Table, V};
use cusci_core::{Array, Device, Result};
use cusci_signal::*;

fn x8(d: &Device) -> Result<Array<f64>> {
    Array::from_vec((0..8).map(|v| v as f64).collect(), &[8], d)
}
fn vec1(v: &[f64], d: &Device) -> Result<Array<f64>> {
    Array::from_slice(v, &[v.len()], d)
}
fn lags(v: Vec<i64>) -> V {
    V::I(vec![v.len()], v)
}
fn ok<T>(r: Result<T>) -> Result<V> {
    r.map(|_| V::N(1))
}

fn table(_dev: &Device) -> Table {
    let mut t = Table::new();

    // ---------- filter design: huge and zero orders ----------
    let lp = IirOptions::default();
    for (name, n) in [
        ("usize::MAX", usize::MAX),
        ("2^62", 1usize << 62),
        ("2^59", 1 << 59),
    ] {
        t.err(&format!("butter({name}) overflows"), Arg, move |_| {
            ok(butter(n, &[0.5], &lp))
        });
        t.err(&format!("buttap({name}) overflows"), Arg, move |_| {
            ok(buttap(n))
        });
    }
    t.err("butter(2^40) past the host's memory", Oom, move |_| {
        ok(butter(1 << 40, &[0.5], &lp))
    });
    t.err("cheby1(2^40)", Oom, |_| {
        ok(cheby1(1 << 40, 1.0, &[0.5], &IirOptions::default()))
    });
    t.err("bessel(usize::MAX)", Arg, |_| {
        ok(bessel(
            usize::MAX,
            &[0.5],
            BesselNorm::default(),
            &IirOptions::default(),
        ))
    });
    t.err("butter(0)", Arg, move |_| ok(butter(0, &[0.5], &lp)));
    t.err("butter cutoff 1 (digital)", Arg, move |_| {
        ok(butter(2, &[1.0], &lp))
    });
    t.err("butter cutoff NaN", Arg, move |_| {
        ok(butter(2, &[f64::NAN], &lp))
    });
    t.err("butter cutoff 0", Arg, move |_| ok(butter(2, &[0.0], &lp)));

    // ---------- resample_poly: rates whose products wrapped ----------
    t.err("resample_poly up 2^62", Arg, |d| {
        fv(resample_poly(
            &x8(d)?,
            1 << 62,
            1,
            &ResamplePolyOptions::default(),
        )?)
    });
    t.err("resample_poly down 2^62", Arg, |d| {
        fv(resample_poly(
            &x8(d)?,
            1,
            1 << 62,
            &ResamplePolyOptions::default(),
        )?)
    });
    t.err("resample_poly up usize::MAX", Arg, |d| {
        fv(resample_poly(
            &x8(d)?,
            usize::MAX,
            1,
            &ResamplePolyOptions::default(),
        )?)
    });
    t.err("resample_poly up 2^40", Oom, |d| {
        fv(resample_poly(
            &x8(d)?,
            1 << 40,
            1,
            &ResamplePolyOptions::default(),
        )?)
    });
    t.err("resample_poly up 0", Arg, |d| {
        fv(resample_poly(
            &x8(d)?,
            0,
            1,
            &ResamplePolyOptions::default(),
        )?)
    });
    t.err("resample_poly down 0", Arg, |d| {
        fv(resample_poly(
            &x8(d)?,
            1,
            0,
            &ResamplePolyOptions::default(),
        )?)
    });

    // ---------- correlation_lags: lengths past i64 ----------
    t.err("correlation_lags(usize::MAX, 2) full", Arg, |_| {
        Ok(lags(correlation_lags(usize::MAX, 2, ConvMode::Full)?))
    });
    t.err("correlation_lags(2, usize::MAX) valid", Arg, |_| {
        Ok(lags(correlation_lags(2, usize::MAX, ConvMode::Valid)?))
    });
    t.err("correlation_lags(2^40, 2^40) full", Oom, |_| {
        Ok(lags(correlation_lags(1 << 40, 1 << 40, ConvMode::Full)?))
    });
    t.err("correlation_lags(2^62, 2^62) full", Arg, |_| {
        Ok(lags(correlation_lags(1 << 62, 1 << 62, ConvMode::Full)?))
    });
    t.err("correlation_lags(i64::MAX, 1) same", Arg, |_| {
        Ok(lags(correlation_lags(
            i64::MAX as usize,
            1,
            ConvMode::Same,
        )?))
    });
    t.val(
        "correlation_lags(0, 0) full (SciPy: [])",
        lags(vec![]),
        |_| Ok(lags(correlation_lags(0, 0, ConvMode::Full)?)),
    );
    t.val(
        "correlation_lags(3, 2) full",
        lags(vec![-1, 0, 1, 2]),
        |_| Ok(lags(correlation_lags(3, 2, ConvMode::Full)?)),
    );
    t.val(
        "correlation_lags(2, 4) valid",
        lags(vec![-2, -1, 0]),
        |_| Ok(lags(correlation_lags(2, 4, ConvMode::Valid)?)),
    );
    t.val(
        "correlation_lags(4, 2) same",
        lags(vec![-1, 0, 1, 2]),
        |_| Ok(lags(correlation_lags(4, 2, ConvMode::Same)?)),
    );

    // ---------- empty and bad arguments ----------
    t.err("medfilt even kernel", Arg, |d| fv(medfilt(&x8(d)?, 4)?));
    t.err("firwin numtaps 0", Arg, |_| {
        ok(firwin(0, &[0.5], &FirwinOptions::default()))
    });
    t.err("firwin cutoff 1.5", Arg, |_| {
        ok(firwin(11, &[1.5], &FirwinOptions::default()))
    });
    t.val(
        "get_window kaiser NaN beta (SciPy: NaN)",
        V::F(vec![8], vec![f64::NAN; 8]),
        |d| fv(get_window::<f64>(&Window::Kaiser(f64::NAN), 8, true, d)?),
    );
    t.val(
        "get_window hann 0 (SciPy: [])",
        V::F(vec![0], vec![]),
        |d| fv(get_window::<f64>(&Window::Hann, 0, true, d)?),
    );
    t.err("welch noverlap >= nperseg", Arg, |d| {
        let o = WelchOptions {
            nperseg: Some(4),
            noverlap: Some(4),
            ..Default::default()
        };
        fv(welch(&x8(d)?, &o)?.1)
    });
    t.err("welch nperseg 0", Arg, |d| {
        let o = WelchOptions {
            nperseg: Some(0),
            ..Default::default()
        };
        fv(welch(&x8(d)?, &o)?.1)
    });
    t.err("welch nfft < nperseg", Arg, |d| {
        let o = WelchOptions {
            nperseg: Some(8),
            nfft: Some(4),
            ..Default::default()
        };
        fv(welch(&x8(d)?, &o)?.1)
    });
    t.err("lfilter a[0] = 0", Arg, |d| {
        let r = lfilter(
            &vec1(&[1.0], d)?,
            &vec1(&[0.0, 1.0], d)?,
            &x8(d)?,
            &FilterOptions::default(),
        )?;
        fv(r.y)
    });
    t.err("lfilter empty a", Arg, |d| {
        let r = lfilter(
            &vec1(&[1.0], d)?,
            &vec1(&[], d)?,
            &x8(d)?,
            &FilterOptions::default(),
        )?;
        fv(r.y)
    });
    t.err("sosfilt sos of 5 columns", Shape, |d| {
        let sos = Array::<f64>::ones(&[1, 5], d)?;
        fv(sosfilt(&sos, &x8(d)?, &FilterOptions::default())?.y)
    });
    t.err("convolve of an empty input", Arg, |d| {
        fv(convolve(&vec1(&[], d)?, &x8(d)?, &ConvOptions::default())?)
    });
    t
}

#[test]
fn bad_input_table() {
    bi::run_in_child("bad_input::bad_input_child", 600);
}

#[test]
fn bad_input_child() {
    bi::child("cusci-signal", 35, table);
}
