#!/usr/bin/env python3
"""CuPy's side of the project's cases that the shared cupy_ref.py does not have yet (issue 34):
the fusion cases. It registers them with cupy_ref.py's own `case` decorator and runs its main, so
timing and records are the shared script's. On the GPU machine, after `run.sh bench`:

  python3 benches/cupy_extra.py --out $OUT/cupy_extra.jsonl
  python3 .gpu-bundle/compare.py $OUT/cusci.jsonl <(cat $OUT/cupy.jsonl $OUT/cupy_extra.jsonl)
"""
import math, os, sys
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", ".gpu-bundle"))
sys.path.insert(0, os.path.join(here, "..", "..", "shared", "bench"))
import cupy as cp
import cupy_ref
from cupy_ref import case, rng, F32, N28

cupy_ref.CASES.clear()

@case("core.fuse_payoff_f32_2^26", bytes_=(1 << 26) * F32)
def _():
    z = rng().standard_normal(1 << 26, dtype=cp.float32)
    S0, K, r, sig, T = 100.0, 105.0, 0.05, 0.2, 1.0
    drift, vol = (r - 0.5 * sig * sig) * T, sig * math.sqrt(T)
    w = math.exp(-r * T) / z.size  # the discounted mean as one fused sum
    @cp.fuse()
    def payoff(z):
        return cp.sum(cp.maximum(cp.exp(z * vol + drift) * S0 - K, 0) * w)
    return lambda: payoff(z)

@case("core.fuse_normclip_f32_2^28", bytes_=2 * N28 * F32)
def _():
    x = rng().standard_normal(N28, dtype=cp.float32)
    @cp.fuse()
    def normclip(x):
        return cp.clip((x - 0.1) * 1.25, -3.0, 3.0) * 2.5 + 1.0
    return lambda: normclip(x)

if __name__ == "__main__":
    cupy_ref.main()
