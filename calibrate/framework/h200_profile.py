"""The H200 measurements as fit_h200_runtime.py reads them: the CSV reader and the column
lists of kernels/micro.csv and networks/*.csv, the profiler row names it treats specially
(launch APIs, per-launch and cuDNN-side runtime rows, shared allocation and view rows), and
the kernel-name tables that give a kernel row its launch API and the aten op launching it."""

import csv
import math
import os

from fit_common import InputError

LAUNCH_APIS = ("cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel")
PER_LAUNCH_ROWS = ("cudaGetErrorString", "cudaPeekAtLastError", "cudaDeviceGetAttribute",
                   "cudaStreamIsCapturing", "cudaFuncGetAttributes", "cudaPointerGetAttributes",
                   "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags")
CUDNN_ROWS = ("cudaFuncSetAttribute", "cudaEventRecord", "cudaStreamWaitEvent")
NOT_HOST = ("Activity Buffer Request", "cudaDeviceSynchronize")  # profiler's own; a wait
SHARED = ("aten::empty", "aten::empty_like", "aten::empty_strided", "aten::view",
          "aten::reshape", "aten::expand", "aten::as_strided", "aten::zeros", "aten::zero_",
          "aten::fill_", "aten::resize_", "aten::to", "aten::zeros_like", "aten::t",
          "aten::transpose")

PROFILE_COLS = ["model", "batch", "precision", "op", "calls", "self_device_us", "self_cpu_us",
                "steps"]
MICRO_COLS = ["bench", "bytes_or_elems", "median_us", "min_us"]
STEPS_COLS = ["model", "batch", "precision", "mode", "median_us", "min_us", "params"]
PSTEPS_COLS = ["model", "batch", "precision", "wall_us_per_step", "device_busy_us_per_step"]


def read_csv(path, cols, numeric):
    """Rows of `path` as dicts; `numeric` columns parsed as non-negative floats."""
    name = os.path.basename(os.path.dirname(path)) + "/" + os.path.basename(path)
    want = "expected columns " + ",".join(cols)
    try:
        with open(path, newline="") as f:
            reader = csv.reader(f)
            header = next(reader, None)
            if header is None or [h.strip() for h in header] != cols:
                raise InputError(f"{path}: bad header {header}; {want}")
            rows = []
            for line, rec in enumerate(reader, start=2):
                if not rec:
                    continue
                if len(rec) != len(cols):
                    raise InputError(f"{path}:{line}: {len(rec)} fields; {want}")
                row = dict(zip(cols, rec))
                row["_line"] = line
                for c in numeric:
                    try:
                        v = float(row[c])
                    except ValueError:
                        raise InputError(f"{path}:{line}: {c}={row[c]!r} is not a number; {want}")
                    if not math.isfinite(v) or v < 0:
                        raise InputError(f"{path}:{line}: {c}={row[c]!r} must be >= 0; {want}")
                    row[c] = v
                rows.append(row)
    except FileNotFoundError:
        raise InputError(f"{path}: missing ({name}; {want})")
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise InputError(f"{path}: unreadable ({e}); {want}")
    if not rows:
        raise InputError(f"{path}: no data rows; {want}")
    return rows


def api_of(kernel):
    if kernel.startswith("Memset"):
        return "memset"
    if kernel.startswith("Memcpy"):
        return "memcpy"
    if kernel.startswith("sm80_xmma") or "splitKreduce" in kernel:
        return "cudaLaunchKernelExC"
    if "cutlass" in kernel:
        return "cuLaunchKernel"
    return "cudaLaunchKernel"


GEMM_LIKE = ("gemvx", "cutlass", "sm80_xmma_gemm", "sgemm", "scal_kernel", "cublasLt")
CONV_FWD = ("sm80_xmma_fprop", "implicit_convolve_sgemm", "precomputed_convolve_sgemm",
            "kern_precompute_indices")
CONV_BWD = ("dgrad", "wgrad", "Wgrad", "scalePackedTensor", "nchwToNhwc", "nhwcToNchw",
            "FoldedNchw", "foldedNchw", "nchwAddPadding")
CONV_ANY = ("fft2d", "flip_filter", "cf32", "region_transform", "winogradForward")
NAMED = [  # (substrings all present, launcher)
    (("multi_tensor_apply_kernel", "TensorListMetadata<1>"), "aten::_foreach_mul_"),
    (("multi_tensor_apply_kernel", "TensorListMetadata<2>"), "aten::_foreach_add_"),
    (("CUDAFunctorOnSelf_add",), "aten::add_"),
    (("CUDAFunctor_add",), "aten::add_"),
    (("launch_clamp_scalar",), "CLAMP"),
    (("threshold_kernel",), "aten::threshold_backward"),
    (("bn_fw",), "aten::cudnn_batch_norm"),
    (("bn_bw",), "aten::cudnn_batch_norm_backward"),
    (("max_pool_forward",), "aten::max_pool2d_with_indices"),
    (("max_pool_backward",), "aten::max_pool2d_with_indices_backward"),
    (("atomic_adaptive_average_gradinput",), "aten::_adaptive_avg_pool2d_backward"),
    (("adaptive_average_pool",), "aten::_adaptive_avg_pool2d"),
    (("MeanOps",), "aten::mean"),
    (("sum_functor",), "aten::sum"),
    (("FillFunctor",), "aten::fill_"),
    (("BUnaryFunctor", "MulFunctor"), "aten::div"),
    (("MulFunctor",), "aten::mul"),
    (("pow_tensor_scalar",), "aten::pow"),
    (("softmax_warp_forward",), "aten::_log_softmax"),
    (("softmax_warp_backward",), "aten::_log_softmax_backward_data"),
    (("nll_loss_forward",), "aten::nll_loss_forward"),
    (("nll_loss_backward",), "aten::nll_loss_backward"),
    (("distribution_elementwise",), "aten::random_"),
    (("vectorized_gather_kernel",), "aten::gather"),
    (("embedding_backward_feature_kernel",), "aten::embedding_dense_backward"),
    (("fused_dropout",), "aten::native_dropout"),
    (("masked_scale",), "aten::native_dropout_backward"),
    (("elemWiseRNNcell",), "aten::_cudnn_rnn"),
    (("LSTM_elementWise_bp",), "aten::_cudnn_rnn_backward"),
    (("GENERIC_elementWise_bp",), "aten::_cudnn_rnn_backward"),
    (("Memcpy",), "aten::copy_"),
]

