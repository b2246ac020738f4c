#include "conv_bench.h"

#ifdef AMDAHL_HAVE_CUDNN

#include <cudnn.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "conv_bytes.h"
#include "cuda_check.h"
#include "device_buffer.h"
#include "precision.h"
#include "random_fill.h"

namespace amdahl::cudabench {
namespace {

// Workspace offered to the algorithm search: PyTorch offers what it can allocate; 1 GiB
// admits every algorithm these layers use on a datacenter GPU.
constexpr std::size_t kMaxWorkspaceBytes = std::size_t{1} << 30;

// One convolution layer without its batch: input c x h x w, k filters of r x s.
struct ConvLayer {
  int c = 0;
  int h = 0;
  int w = 0;
  int k = 0;
  int r = 0;
  int s = 0;
  int pad = 0;
  int stride = 0;
};

// The distinct convolutions of ResNet-50 v1.5 at 224x224 (He et al. 2016, torchvision's
// layout: stride 2 on the 3x3 of the first block of a stage, 1x1 projection shortcuts).
std::vector<ConvLayer> conv_layers(bool quick) {
  if (quick) {
    return {
        {3, 224, 224, 64, 7, 7, 3, 2},    // conv1
        {64, 56, 56, 64, 3, 3, 1, 1},     // conv2_x 3x3
        {256, 56, 56, 64, 1, 1, 0, 1},    // conv2_x 1x1 reduce
        {128, 28, 28, 128, 3, 3, 1, 1},   // conv3_x 3x3
        {1024, 14, 14, 256, 1, 1, 0, 1},  // conv4_x 1x1 reduce
        {512, 7, 7, 512, 3, 3, 1, 1},     // conv5_x 3x3
    };
  }
  return {
      {3, 224, 224, 64, 7, 7, 3, 2},    // conv1
      {64, 56, 56, 64, 1, 1, 0, 1},     // conv2_1 1x1 reduce
      {64, 56, 56, 64, 3, 3, 1, 1},     // conv2_x 3x3
      {64, 56, 56, 256, 1, 1, 0, 1},    // conv2_x 1x1 expand and projection
      {256, 56, 56, 64, 1, 1, 0, 1},    // conv2_x 1x1 reduce
      {256, 56, 56, 128, 1, 1, 0, 1},   // conv3_1 1x1 reduce
      {128, 56, 56, 128, 3, 3, 1, 2},   // conv3_1 3x3 stride 2
      {256, 56, 56, 512, 1, 1, 0, 2},   // conv3_1 projection stride 2
      {128, 28, 28, 128, 3, 3, 1, 1},   // conv3_x 3x3
      {128, 28, 28, 512, 1, 1, 0, 1},   // conv3_x 1x1 expand
      {512, 28, 28, 128, 1, 1, 0, 1},   // conv3_x 1x1 reduce
      {256, 14, 14, 256, 3, 3, 1, 1},   // conv4_x 3x3
      {256, 14, 14, 1024, 1, 1, 0, 1},  // conv4_x 1x1 expand
      {1024, 14, 14, 256, 1, 1, 0, 1},  // conv4_x 1x1 reduce
      {512, 7, 7, 512, 3, 3, 1, 1},     // conv5_x 3x3
      {512, 7, 7, 2048, 1, 1, 0, 1},    // conv5_x 1x1 expand
      {2048, 7, 7, 512, 1, 1, 0, 1},    // conv5_x 1x1 reduce
  };
}

struct ConvPrecision {
  Precision precision;
  cudnnDataType_t data_type;
  cudnnTensorFormat_t format;
  cudnnMathType_t math;
};

std::vector<ConvPrecision> conv_precisions(bool quick) {
  std::vector<ConvPrecision> precisions = {
      {Precision::kFp32, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, CUDNN_FMA_MATH},
      {Precision::kFp16, CUDNN_DATA_HALF, CUDNN_TENSOR_NHWC, CUDNN_TENSOR_OP_MATH},
  };
  if (!quick) {
    precisions.push_back(
        {Precision::kTf32, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, CUDNN_DEFAULT_MATH});
    precisions.push_back(
        {Precision::kBf16, CUDNN_DATA_BFLOAT16, CUDNN_TENSOR_NHWC, CUDNN_TENSOR_OP_MATH});
  }
  return precisions;
}

const char* format_name(cudnnTensorFormat_t format) {
  return format == CUDNN_TENSOR_NHWC ? "NHWC" : "NCHW";
}

const char* math_name(cudnnMathType_t math) {
  switch (math) {
    case CUDNN_DEFAULT_MATH:
      return "DEFAULT";
    case CUDNN_TENSOR_OP_MATH:
      return "TENSOR_OP";
    case CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION:
      return "TENSOR_OP_ALLOW_CONVERSION";
    case CUDNN_FMA_MATH:
      return "FMA";
  }
  return "UNKNOWN";
}

const char* algo_name(cudnnConvolutionFwdAlgo_t algo) {
  switch (algo) {
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM:
      return "IMPLICIT_GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM:
      return "IMPLICIT_PRECOMP_GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_GEMM:
      return "GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_DIRECT:
      return "DIRECT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT:
      return "FFT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING:
      return "FFT_TILING";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD:
      return "WINOGRAD";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED:
      return "WINOGRAD_NONFUSED";
    case CUDNN_CONVOLUTION_FWD_ALGO_COUNT:
      break;
  }
  return "UNKNOWN";
}

const char* algo_name(cudnnConvolutionBwdDataAlgo_t algo) {
  switch (algo) {
    case CUDNN_CONVOLUTION_BWD_DATA_ALGO_0:
      return "ALGO_0";
    case CUDNN_CONVOLUTION_BWD_DATA_ALGO_1:
      return "ALGO_1";
    case CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT:
      return "FFT";
    case CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING:
      return "FFT_TILING";
    case CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD:
      return "WINOGRAD";
    case CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED:
      return "WINOGRAD_NONFUSED";
    case CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT:
      break;
  }
  return "UNKNOWN";
}

const char* algo_name(cudnnConvolutionBwdFilterAlgo_t algo) {
  switch (algo) {
    case CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0:
      return "ALGO_0";
    case CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1:
      return "ALGO_1";
    case CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT:
      return "FFT";
    case CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3:
      return "ALGO_3";
    case CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD:
      return "WINOGRAD";
    case CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED:
      return "WINOGRAD_NONFUSED";
    case CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING:
      return "FFT_TILING";
    case CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT:
      break;
  }
  return "UNKNOWN";
}

// --- owning handles for the cuDNN objects ---

class CudnnHandle {
 public:
  CudnnHandle() { AMDAHL_CUDNN_CHECK(cudnnCreate(&handle_)); }
  ~CudnnHandle() { cudnnDestroy(handle_); }
  CudnnHandle(const CudnnHandle&) = delete;
  CudnnHandle& operator=(const CudnnHandle&) = delete;
  cudnnHandle_t get() const { return handle_; }

 private:
  cudnnHandle_t handle_ = nullptr;
};

class TensorDescriptor {
 public:
  TensorDescriptor(cudnnTensorFormat_t format, cudnnDataType_t type, int n, int c, int h, int w) {
    AMDAHL_CUDNN_CHECK(cudnnCreateTensorDescriptor(&descriptor_));
    AMDAHL_CUDNN_CHECK(cudnnSetTensor4dDescriptor(descriptor_, format, type, n, c, h, w));
  }
  ~TensorDescriptor() { cudnnDestroyTensorDescriptor(descriptor_); }
  TensorDescriptor(const TensorDescriptor&) = delete;
  TensorDescriptor& operator=(const TensorDescriptor&) = delete;
  cudnnTensorDescriptor_t get() const { return descriptor_; }

 private:
  cudnnTensorDescriptor_t descriptor_ = nullptr;
};

class FilterDescriptor {
 public:
  FilterDescriptor(cudnnTensorFormat_t format, cudnnDataType_t type, int k, int c, int r, int s) {
    AMDAHL_CUDNN_CHECK(cudnnCreateFilterDescriptor(&descriptor_));
    AMDAHL_CUDNN_CHECK(cudnnSetFilter4dDescriptor(descriptor_, type, format, k, c, r, s));
  }
  ~FilterDescriptor() { cudnnDestroyFilterDescriptor(descriptor_); }
  FilterDescriptor(const FilterDescriptor&) = delete;
  FilterDescriptor& operator=(const FilterDescriptor&) = delete;
  cudnnFilterDescriptor_t get() const { return descriptor_; }

 private:
  cudnnFilterDescriptor_t descriptor_ = nullptr;
};

class ConvolutionDescriptor {
 public:
  // Cross-correlation (what frameworks call convolution) with fp32 compute, as PyTorch sets it
  // up for fp32, fp16 and bf16 data alike.
  ConvolutionDescriptor(int pad, int stride) {
    AMDAHL_CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&descriptor_));
    AMDAHL_CUDNN_CHECK(cudnnSetConvolution2dDescriptor(descriptor_, pad, pad, stride, stride, 1, 1,
                                                       CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  }
  ~ConvolutionDescriptor() { cudnnDestroyConvolutionDescriptor(descriptor_); }
  ConvolutionDescriptor(const ConvolutionDescriptor&) = delete;
  ConvolutionDescriptor& operator=(const ConvolutionDescriptor&) = delete;
  cudnnConvolutionDescriptor_t get() const { return descriptor_; }
  void set_math(cudnnMathType_t math) {
    AMDAHL_CUDNN_CHECK(cudnnSetConvolutionMathType(descriptor_, math));
  }

 private:
  cudnnConvolutionDescriptor_t descriptor_ = nullptr;
};

// The algorithm the search put first among those that ran.
struct AlgoChoice {
  const char* name = "";
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
  std::size_t workspace_bytes = 0;
};

template <typename Perf>
std::optional<std::pair<Perf, AlgoChoice>> first_successful(const Perf* results, int count) {
  for (int i = 0; i < count; ++i) {
    if (results[i].status == CUDNN_STATUS_SUCCESS) {
      return std::make_pair(results[i], AlgoChoice{algo_name(results[i].algo), results[i].mathType,
                                                   results[i].memory});
    }
  }
  return std::nullopt;
}

// The cuDNN descriptors of one convolution problem: input x (n, c, h, w), filters w
// (k, c, r, s), output y (n, k, p, q). The gradients dx, dw, dy share them.
struct ConvProblem {
  ConvProblem(const ConvLayer& layer, int batch, const ConvPrecision& precision)
      : x_desc(precision.format, precision.data_type, batch, layer.c, layer.h, layer.w),
        w_desc(precision.format, precision.data_type, layer.k, layer.c, layer.r, layer.s),
        conv_desc(layer.pad, layer.stride) {
    int out_n = 0;
    int out_k = 0;
    AMDAHL_CUDNN_CHECK(cudnnGetConvolution2dForwardOutputDim(conv_desc.get(), x_desc.get(),
                                                             w_desc.get(), &out_n, &out_k, &p, &q));
    y_desc.emplace(precision.format, precision.data_type, batch, layer.k, p, q);
  }

  int p = 0;  // output height
  int q = 0;  // output width
  TensorDescriptor x_desc;
  FilterDescriptor w_desc;
  ConvolutionDescriptor conv_desc;
  std::optional<TensorDescriptor> y_desc;
};

ShapeString layer_shape(const ConvLayer& layer, int batch) {
  ShapeString shape;
  shape.add("n", batch)
      .add("c", layer.c)
      .add("h", layer.h)
      .add("w", layer.w)
      .add("k", layer.k)
      .add("r", layer.r)
      .add("s", layer.s)
      .add("pad", layer.pad)
      .add("stride", layer.stride);
  return shape;
}

std::string shape_text(const ConvLayer& layer, int batch, const ConvPrecision& precision,
                       const AlgoChoice& choice) {
  return layer_shape(layer, batch)
      .add("algo", choice.name)
      .add("layout", format_name(precision.format))
      .add("math", math_name(choice.math))
      .str();
}

// For progress notes: "fp16 n=32;c=64;...".
std::string layer_text(const ConvLayer& layer, int batch, const ConvPrecision& precision) {
  return std::string(precision_name(precision.precision)) + " " + layer_shape(layer, batch).str();
}

// Measures the three directions of one layer at one batch size and precision.
void bench_problem(const BenchConfig& config, Reporter& reporter, cudnnHandle_t handle,
                   const DeviceBuffer& workspace, const ConvLayer& layer, int batch,
                   const ConvPrecision& precision, std::uint32_t seed) {
  ConvProblem problem(layer, batch, precision);
  const DataType type = storage_type(precision.precision);
  const std::uint64_t element_bytes = size_of(type);
  const std::uint64_t x_elements = static_cast<std::uint64_t>(batch) * layer.c * layer.h * layer.w;
  const std::uint64_t w_elements =
      static_cast<std::uint64_t>(layer.k) * layer.c * layer.r * layer.s;
  const std::uint64_t y_elements =
      static_cast<std::uint64_t>(batch) * layer.k * problem.p * problem.q;
  const std::uint64_t tensor_bytes = (x_elements + w_elements + y_elements) * element_bytes;
  const auto u = [](int v) { return static_cast<std::uint64_t>(v); };
  const ConvBytesShape bytes_shape{u(batch),   u(layer.c), u(layer.h),   u(layer.w),  u(layer.k),
                                   u(layer.r), u(layer.s), u(problem.p), u(problem.q)};
  const auto bench_bytes = [&](const char* bench) {
    return conv_bench_bytes(bench, bytes_shape, element_bytes);
  };

  // Two copies of each tensor, with a tenth of the free memory kept back for cuDNN itself.
  const std::size_t free_bytes = free_device_memory();
  if (2 * tensor_bytes > free_bytes - free_bytes / 10) {
    reporter.skip("conv " + layer_text(layer, batch, precision),
                  "needs " + std::to_string(2 * tensor_bytes) + " bytes of device memory, " +
                      std::to_string(free_bytes) + " free");
    return;
  }
  const DeviceBuffer x(x_elements * element_bytes);
  const DeviceBuffer w(w_elements * element_bytes);
  const DeviceBuffer y(y_elements * element_bytes);
  const DeviceBuffer dx(x_elements * element_bytes);
  const DeviceBuffer dw(w_elements * element_bytes);
  const DeviceBuffer dy(y_elements * element_bytes);
  fill_uniform(x, type, seed, config.stream);
  fill_uniform(w, type, seed + 1, config.stream);
  fill_uniform(dy, type, seed + 2, config.stream);
  AMDAHL_CUDA_CHECK(cudaStreamSynchronize(config.stream));

  const std::uint64_t flops = 2 * static_cast<std::uint64_t>(batch) * layer.k * problem.p *
                              problem.q * layer.c * layer.r * layer.s;
  const float alpha = 1.0f;
  const float beta = 0.0f;
  cudnnConvolutionDescriptor_t conv = problem.conv_desc.get();
  cudnnTensorDescriptor_t x_desc = problem.x_desc.get();
  cudnnFilterDescriptor_t w_desc = problem.w_desc.get();
  cudnnTensorDescriptor_t y_desc = problem.y_desc->get();

  const auto record = [&](const char* bench, const AlgoChoice& choice, const Timing& timing) {
    Measurement row;
    row.bench = bench;
    row.op_class = "conv";
    row.precision = precision_name(precision.precision);
    row.shape = shape_text(layer, batch, precision, choice);
    row.flops = flops;
    row.bytes = bench_bytes(bench);
    row.time_s = timing.median_seconds;
    row.reps = timing.reps;
    reporter.record(row);
  };
  // Every algorithm the search ran, with the time cudnnFind measured for it (one run each):
  // op class conv_algorithm, which `amdahl calibrate` does not fit (the fastest, re-timed
  // above or below, is the conv row); raw data for per-algorithm models (docs/calibration.md).
  const auto record_search = [&](const char* bench, const auto* results, int count) {
    for (int i = 0; i < count; ++i) {
      if (results[i].status != CUDNN_STATUS_SUCCESS || !(results[i].time > 0)) continue;
      Measurement row;
      row.bench = bench;
      row.op_class = "conv_algorithm";
      row.precision = precision_name(precision.precision);
      row.shape = shape_text(
          layer, batch, precision,
          AlgoChoice{algo_name(results[i].algo), results[i].mathType, results[i].memory});
      row.flops = flops;
      row.bytes = bench_bytes(bench);
      row.time_s = results[i].time * 1e-3;  // cudnnFind reports milliseconds
      row.reps = 1;
      reporter.record(row);
    }
  };
  const auto no_algorithm = [&](const char* bench) {
    reporter.skip(std::string(bench) + " " + layer_text(layer, batch, precision),
                  "no cuDNN algorithm ran");
  };

  // One direction: cuDNN's algorithm search as frameworks run it (`find(results, returned)`,
  // cudnnFind*AlgorithmEx on the workspace), then the fastest algorithm that ran, re-timed
  // (`run(algo, workspace_bytes)`); `results` holds that direction's cudnn*AlgoPerf_t.
  const auto bench_direction = [&](const char* bench, auto& results, const auto& find,
                                   const auto& run) {
    problem.conv_desc.set_math(precision.math);
    int returned = 0;
    find(results, &returned);
    const auto found = first_successful(results, returned);
    if (!found) {
      no_algorithm(bench);
      return;
    }
    const AlgoChoice& choice = found->second;
    problem.conv_desc.set_math(choice.math);
    const Timing timing = time_on_stream(config.stream, config.timing,
                                         [&] { run(found->first.algo, choice.workspace_bytes); });
    record(bench, choice, timing);
    record_search(bench, results, returned);
  };
  cudnnConvolutionFwdAlgoPerf_t fwd[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  bench_direction(
      "conv_fwd", fwd,
      [&](auto& results, int* returned) {
        AMDAHL_CUDNN_CHECK(cudnnFindConvolutionForwardAlgorithmEx(
            handle, x_desc, x.data(), w_desc, w.data(), conv, y_desc, y.data(),
            CUDNN_CONVOLUTION_FWD_ALGO_COUNT, returned, results, workspace.data(),
            workspace.bytes()));
      },
      [&](cudnnConvolutionFwdAlgo_t algo, std::size_t workspace_bytes) {
        AMDAHL_CUDNN_CHECK(cudnnConvolutionForward(handle, &alpha, x_desc, x.data(), w_desc,
                                                   w.data(), conv, algo, workspace.data(),
                                                   workspace_bytes, &beta, y_desc, y.data()));
      });
  cudnnConvolutionBwdDataAlgoPerf_t data[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
  bench_direction(
      "conv_bwd_data", data,
      [&](auto& results, int* returned) {
        AMDAHL_CUDNN_CHECK(cudnnFindConvolutionBackwardDataAlgorithmEx(
            handle, w_desc, w.data(), y_desc, dy.data(), conv, x_desc, dx.data(),
            CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, returned, results, workspace.data(),
            workspace.bytes()));
      },
      [&](cudnnConvolutionBwdDataAlgo_t algo, std::size_t workspace_bytes) {
        AMDAHL_CUDNN_CHECK(cudnnConvolutionBackwardData(handle, &alpha, w_desc, w.data(), y_desc,
                                                        dy.data(), conv, algo, workspace.data(),
                                                        workspace_bytes, &beta, x_desc, dx.data()));
      });
  cudnnConvolutionBwdFilterAlgoPerf_t filter[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
  bench_direction(
      "conv_bwd_filter", filter,
      [&](auto& results, int* returned) {
        AMDAHL_CUDNN_CHECK(cudnnFindConvolutionBackwardFilterAlgorithmEx(
            handle, x_desc, x.data(), y_desc, dy.data(), conv, w_desc, dw.data(),
            CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, returned, results, workspace.data(),
            workspace.bytes()));
      },
      [&](cudnnConvolutionBwdFilterAlgo_t algo, std::size_t workspace_bytes) {
        AMDAHL_CUDNN_CHECK(cudnnConvolutionBackwardFilter(
            handle, &alpha, x_desc, x.data(), y_desc, dy.data(), conv, algo, workspace.data(),
            workspace_bytes, &beta, w_desc, dw.data()));
      });
}

}  // namespace

bool conv_bench_available() { return true; }

void run_conv_bench(const BenchConfig& config, Reporter& reporter) {
  const std::vector<ConvLayer> layers = conv_layers(config.quick);
  const std::vector<int> batches =
      config.quick ? std::vector<int>{32} : std::vector<int>{16, 32, 64};
  const std::vector<ConvPrecision> precisions = conv_precisions(config.quick);

  CudnnHandle handle;
  AMDAHL_CUDNN_CHECK(cudnnSetStream(handle.get(), config.stream));
  reporter.note("cuDNN " + std::to_string(cudnnGetVersion()));
  const DeviceBuffer workspace(std::min(kMaxWorkspaceBytes, free_device_memory() / 4));

  const std::size_t total = precisions.size() * batches.size() * layers.size();
  std::size_t done = 0;
  std::uint32_t seed = 100;
  for (const ConvPrecision& precision : precisions) {
    for (int batch : batches) {
      for (const ConvLayer& layer : layers) {
        if (config.deadline.passed()) {
          reporter.skip(
              "conv: " + std::to_string(total - done) + " layer problems (3 directions each)",
              "time budget of " + std::to_string(static_cast<int>(config.deadline.seconds())) +
                  " s used up");
          return;
        }
        ++done;
        seed += 3;
        try {
          bench_problem(config, reporter, handle.get(), workspace, layer, batch, precision, seed);
        } catch (const LibraryError& error) {
          AMDAHL_CUDA_CHECK(cudaStreamSynchronize(config.stream));
          reporter.skip("conv " + layer_text(layer, batch, precision), error.what());
        }
      }
    }
  }
}

}  // namespace amdahl::cudabench

#else  // !AMDAHL_HAVE_CUDNN

namespace amdahl::cudabench {

bool conv_bench_available() { return false; }

void run_conv_bench(const BenchConfig& /*config*/, Reporter& reporter) {
  reporter.skip("conv", "this build has no cuDNN (configure with AMDAHL_CUDNN_ROOT)");
}

}  // namespace amdahl::cudabench

#endif  // AMDAHL_HAVE_CUDNN
