#!/bin/bash
# stream2d-1: the streaming register kernel (stream2d.cu) for sobel / uniform 9 on f32[4096,4096]:
# checks against the tree's sep2f kernel, cupyx and float64 numpy, then timings against a float4 copy.
# Run from the repo root of a copy of the worktree (branch stream2d).
python3 "$(dirname "$0")/stream2d-1.py"
