#!/usr/bin/env bash
# pack-gpu-bundle.sh SRC DST [PKG_REGEX]
#
# Repacks a bundle made by ../shared/gpu/bundle (SRC, usually .gpu-bundle) so that it fits the
# 64 MiB the GPU machine accepts: the whole workspace's executables are ~120 MiB as gzip, but
# they share most of their code, and one xz stream with a large dictionary brings them to ~22 MiB.
# PKG_REGEX keeps only the executables of matching packages (e.g. 'crates/(sparse|signal)').
# On the GPU machine, unpack first:
#   python3 .gpu-bundle/unpack.py && bash .gpu-bundle/run.sh tests
# Needs xz and tar here; python3 there (it has it for CuPy).
set -euo pipefail
src=$1 dst=$2 re=${3:-.}
rm -rf "$dst"
mkdir -p "$dst/bin"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -xzf "$src/bins.tar.gz" -C "$tmp"
for f in tests benches; do
  : >"$dst/$f.tsv"
  while IFS=$'\t' read -r bin pkg name; do
    if [[ $pkg =~ $re ]]; then
      printf '%s\t%s\t%s\n' "$bin" "$pkg" "$name" >>"$dst/$f.tsv"
      cp -n "$tmp/bin/$bin" "$dst/bin/"
    fi
  done <"$src/$f.tsv"
done
(cd "$dst" && tar -cf - bin | xz -9 -T2 --lzma2=dict=256MiB >bins.txz && rm -rf bin)
cp "$src/run.sh" "$src/cupy_ref.py" "$src/compare.py" "$src/BUILD_ROOT" "$dst/"
# PyTorch's reference (the `vs best` column) when the source bundle has it
[[ -f $src/torch_ref.py ]] && cp "$src/torch_ref.py" "$dst/"
cat >"$dst/unpack.py" <<'PY'
import os, tarfile
d = os.path.dirname(os.path.abspath(__file__))
if not os.path.isdir(os.path.join(d, 'bin')):
    tarfile.open(os.path.join(d, 'bins.txz'), 'r:xz').extractall(d)
PY
du -sh "$dst"
