#!/usr/bin/env bash
# Builds amdahl-cudabench in a temporary folder and runs the full benchmark on this machine's
# GPU. Takes about 2-5 minutes on an H200 (build about 1 minute, benchmark capped at 6.5).
#
# usage: calibrate/cuda/run_on_device.sh [amdahl-cudabench options, e.g. --quick or --only gemm]
#
# Writes to $OUT (default ./cudabench-out):
#   h200_cuda_measurements.csv  the measurements (name overridable with CSV_NAME)
#   cudabench.log               the benchmark's progress output
#   build.log                   the CMake configure and build output
#   nvidia-smi.txt              nvidia-smi -q, taken before the run
# Environment: AMDAHL_CUDA_ARCHITECTURES (default: the GPU's compute capability, else 90),
# AMDAHL_CUDNN_ROOT (a cuDNN prefix, if it is in neither the CUDA Toolkit nor pip's nvidia/cudnn).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${OUT:-$PWD/cudabench-out}"
csv_name="${CSV_NAME:-h200_cuda_measurements.csv}"
bench_timeout_s=390
mkdir -p "$out"

if ! command -v nvcc >/dev/null 2>&1 && [[ -x /usr/local/cuda/bin/nvcc ]]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi
if ! command -v cmake >/dev/null 2>&1; then
  echo "run_on_device.sh: cmake not found on PATH" >&2
  exit 1
fi

if command -v nvidia-smi >/dev/null 2>&1; then
  nvidia-smi -q >"$out/nvidia-smi.txt" 2>&1 || echo "nvidia-smi -q failed" >>"$out/nvidia-smi.txt"
else
  echo "nvidia-smi not found" >"$out/nvidia-smi.txt"
fi

arch="${AMDAHL_CUDA_ARCHITECTURES:-}"
if [[ -z "$arch" ]] && command -v nvidia-smi >/dev/null 2>&1; then
  # "9.0" -> "90"
  arch="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null \
            | head -n 1 | tr -d ' .')" || arch=""
fi
arch="${arch:-90}"

build="$(mktemp -d "${TMPDIR:-/tmp}/amdahl-cudabench-build.XXXXXX")"
cmake_args=(-S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release "-DAMDAHL_CUDA_ARCHITECTURES=$arch")
if [[ -n "${AMDAHL_CUDNN_ROOT:-}" ]]; then
  cmake_args+=("-DAMDAHL_CUDNN_ROOT=$AMDAHL_CUDNN_ROOT")
fi
{
  echo "+ cmake ${cmake_args[*]}"
  cmake "${cmake_args[@]}"
  echo "+ cmake --build $build -j $(nproc)"
  cmake --build "$build" -j "$(nproc)"
} 2>&1 | tee "$out/build.log"

echo "+ $build/amdahl-cudabench --out $out/$csv_name $*" | tee "$out/cudabench.log"
timeout "$bench_timeout_s" "$build/amdahl-cudabench" --out "$out/$csv_name" "$@" 2>&1 \
  | tee -a "$out/cudabench.log"
echo "run_on_device.sh: wrote $out/$csv_name ($(grep -vc '^#' "$out/$csv_name") lines incl. header)"
