#include "calibrate/cpu/cpu_benchmarks.h"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <vector>

#include "calibrate/error_stats.h"
#include "calibrate/measured_op.h"

#ifdef AMDAHL_HAVE_ONEDNN
#include <oneapi/dnnl/dnnl.hpp>
#endif

namespace amdahl::calibrate {
namespace {

using Clock = std::chrono::steady_clock;

// Median seconds of one call: one warm-up call, then calls until `reps` are done or
// `budget_s` has passed (at least 3).
std::pair<double, int> time_call(const std::function<void()>& call, int reps, double budget_s) {
  call();
  std::vector<double> times;
  const auto start = Clock::now();
  while (static_cast<int>(times.size()) < reps) {
    const auto t0 = Clock::now();
    call();
    times.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    if (times.size() >= 3 && std::chrono::duration<double>(Clock::now() - start).count() > budget_s)
      break;
  }
  return {percentile(times, 0.5), static_cast<int>(times.size())};
}

Measurement row(const std::string& bench, const std::string& op_class,
                std::map<std::string, std::string> shape, double flops, double bytes) {
  Measurement m;
  m.bench = bench;
  m.op_class = op_class;
  m.precision = op_class == "data_movement" ? "none" : "fp32";
  m.shape = std::move(shape);
  m.flops = flops;
  m.bytes = bytes;
  return m;
}

void record(MeasurementSet& set, Measurement m, const std::function<void()>& call, int reps,
            double budget_s, std::ostream& log) {
  const auto [t, n] = time_call(call, reps, budget_s);
  m.time_s = t;
  m.reps = n;
  log << fmt::format("  {:<16} {:<60} {:10.3f} us {:8.2f} GFLOP/s {:8.2f} GB/s\n", m.bench,
                     format_shape(m.shape), t * 1e6, m.flops / t / 1e9, m.bytes / t / 1e9);
  set.rows.push_back(std::move(m));
}

void memory_benchmarks(const CpuBenchOptions& o, MeasurementSet& set, std::ostream& log) {
  const double largest = o.bandwidth_probe_bytes > 0 ? o.bandwidth_probe_bytes
                                                     : (o.quick ? 256.0 : 512.0) * 1024 * 1024;
  const auto max_n = static_cast<std::size_t>(largest / sizeof(float));
  std::vector<float> a(max_n, 1.0f), b(max_n, 2.0f), c(max_n, 0.5f);
  omp_set_num_threads(o.cores);
  const double step = o.quick ? 2.0 : std::sqrt(2.0);  // operand sizes 4 KiB .. largest
  for (double bytes = 4096; bytes <= largest * 1.0001; bytes *= step) {
    const auto n = static_cast<std::int64_t>(bytes / sizeof(float));
    const std::map<std::string, std::string> shape{{"n", std::to_string(n)}};
    const double e = sizeof(float) * static_cast<double>(n);
    const int reps = o.quick ? 15 : 40;
    const double budget = o.quick ? 0.4 : 1.0;
    float* pa = a.data();
    const float* pb = b.data();
    const float* pc = c.data();
    record(
        set, row("mem_copy", "data_movement", shape, 0, 2 * e),
        [=] {
#pragma omp parallel for simd schedule(static)
          for (std::int64_t i = 0; i < n; ++i) pa[i] = pb[i];
        },
        reps, budget, log);
    record(
        set, row("mem_triad", "elementwise", shape, 2.0 * n, 3 * e),
        [=] {
#pragma omp parallel for simd schedule(static)
          for (std::int64_t i = 0; i < n; ++i) pa[i] = pb[i] + 0.5f * pc[i];
        },
        reps, budget, log);
    record(
        set, row("elementwise_add", "elementwise", shape, 1.0 * n, 3 * e),
        [=] {
#pragma omp parallel for simd schedule(static)
          for (std::int64_t i = 0; i < n; ++i) pa[i] = pb[i] + pc[i];
        },
        reps, budget, log);
    record(
        set, row("elementwise_relu", "elementwise", shape, 1.0 * n, 2 * e),
        [=] {
#pragma omp parallel for simd schedule(static)
          // A select, not std::max: GCC does not if-convert std::max's branch, and a scalar
          // relu ran at a third of add's bandwidth.
          for (std::int64_t i = 0; i < n; ++i) {
            const float v = pb[i];
            pa[i] = v > 0.0f ? v : 0.0f;
          }
        },
        reps, budget, log);
    float sink = 0;
    float* psink = &sink;
    record(
        set, row("reduce_sum", "reduction", shape, 1.0 * n, e + 4),
        [=] {
          // Locals, not the lambda's captures: GCC does not vectorize a reduction that loads
          // its pointer from the closure (a scalar sum ran at a third of the copy bandwidth).
          const float* x = pb;
          const std::int64_t len = n;
          float s = 0;
#pragma omp parallel for simd reduction(+ : s) schedule(static)
          for (std::int64_t i = 0; i < len; ++i) s += x[i];
          *psink = s;
        },
        reps, budget, log);
  }
}

#ifdef AMDAHL_HAVE_ONEDNN

std::vector<int> thread_counts(int cores) {
  std::vector<int> t{1};
  if (cores / 2 > 1) t.push_back(cores / 2);
  if (cores > 1) t.push_back(cores);
  return t;
}

void gemm_benchmarks(const CpuBenchOptions& o, MeasurementSet& set, std::ostream& log) {
  struct Shape {
    std::int64_t m, n, k;
  };
  // Squares, skinny (small batch / few rows as in inference and RNN steps) and deep shapes.
  std::vector<Shape> shapes{{64, 64, 64},    {128, 128, 128},    {256, 256, 256},
                            {512, 512, 512}, {1024, 1024, 1024}, {16, 1024, 1024},
                            {64, 2048, 512}, {256, 1024, 4096},  {1024, 64, 256},
                            {32, 512, 2048}, {512, 128, 64},     {2048, 512, 256}};
  if (!o.quick) {
    for (const Shape& s : std::vector<Shape>{{1536, 1536, 1536},
                                             {2048, 2048, 2048},
                                             {8, 4096, 1024},
                                             {128, 4096, 4096},
                                             {4096, 128, 512},
                                             {96, 96, 3072},
                                             {768, 3072, 768},
                                             {3072, 768, 768}})
      shapes.push_back(s);
  }
  for (const Shape& s : shapes) {
    std::vector<float> a(static_cast<std::size_t>(s.m * s.k), 0.5f);
    std::vector<float> b(static_cast<std::size_t>(s.k * s.n), 0.25f);
    std::vector<float> c(static_cast<std::size_t>(s.m * s.n), 0.0f);
    for (int t : thread_counts(o.cores)) {
      omp_set_num_threads(t);
      Measurement m = row("gemm", "gemm",
                          {{"m", std::to_string(s.m)},
                           {"n", std::to_string(s.n)},
                           {"k", std::to_string(s.k)},
                           {"ta", "N"},
                           {"tb", "N"},
                           {"threads", std::to_string(t)}},
                          0, 0);
      count_from_registry(m);
      record(
          set, std::move(m),
          [&] {
            dnnl_sgemm('N', 'N', s.m, s.n, s.k, 1.0f, a.data(), s.k, b.data(), s.n, 0.0f, c.data(),
                       s.n);
          },
          o.quick ? 7 : 20, o.quick ? 0.5 : 1.5, log);
    }
  }
}

void fill(dnnl::memory& mem, float v) {
  auto* p = static_cast<float*>(mem.get_data_handle());
  const std::size_t n = mem.get_desc().get_size() / sizeof(float);
  std::fill(p, p + n, v);
}

void conv_benchmarks(const CpuBenchOptions& o, MeasurementSet& set, std::ostream& log) {
  using dnnl::memory;
  // ResNet-50 and VGG-like layers at small batch (2-core CPU budget).
  std::vector<ConvShape> convs{{2, 3, 112, 112, 32, 7, 7, 3, 2},  {2, 64, 28, 28, 64, 3, 3, 1, 1},
                               {2, 64, 28, 28, 256, 1, 1, 0, 1},  {2, 256, 14, 14, 64, 1, 1, 0, 1},
                               {2, 128, 14, 14, 128, 3, 3, 1, 1}, {4, 256, 7, 7, 256, 3, 3, 1, 1},
                               {2, 128, 28, 28, 256, 1, 1, 0, 2}, {4, 512, 7, 7, 128, 1, 1, 0, 1}};
  if (!o.quick) {
    for (const ConvShape& c : std::vector<ConvShape>{{4, 64, 56, 56, 64, 3, 3, 1, 1},
                                                     {4, 256, 28, 28, 512, 1, 1, 0, 2},
                                                     {8, 512, 14, 14, 512, 3, 3, 1, 1},
                                                     {8, 32, 56, 56, 32, 5, 5, 2, 1},
                                                     {1, 3, 224, 224, 64, 3, 3, 1, 1},
                                                     {16, 1024, 7, 7, 256, 1, 1, 0, 1},
                                                     {8, 128, 28, 28, 128, 3, 3, 1, 1}})
      convs.push_back(c);
  }
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(eng);
  omp_set_num_threads(o.cores);
  for (const ConvShape& g : convs) {
    const std::int64_t p = g.p(), q = g.q();
    const memory::dims src{g.n, g.c, g.h, g.w}, wei{g.k, g.c, g.r, g.s}, dst{g.n, g.k, p, q};
    const memory::dims strides{g.stride, g.stride}, pad{g.pad, g.pad};
    const auto f32 = memory::data_type::f32;
    const memory::desc src_md(src, f32, memory::format_tag::any);
    const memory::desc wei_md(wei, f32, memory::format_tag::any);
    const memory::desc dst_md(dst, f32, memory::format_tag::any);
    const dnnl::convolution_forward::primitive_desc fwd_pd(
        dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training,
                                        dnnl::algorithm::convolution_direct, src_md, wei_md, dst_md,
                                        strides, pad, pad),
        eng);
    const dnnl::convolution_backward_data::primitive_desc bwd_data_pd(
        dnnl::convolution_backward_data::desc(dnnl::algorithm::convolution_direct, src_md, wei_md,
                                              dst_md, strides, pad, pad),
        eng, fwd_pd);
    const dnnl::convolution_backward_weights::primitive_desc bwd_weights_pd(
        dnnl::convolution_backward_weights::desc(dnnl::algorithm::convolution_direct, src_md,
                                                 wei_md, dst_md, strides, pad, pad),
        eng, fwd_pd);
    memory src_m(fwd_pd.src_desc(), eng), wei_m(fwd_pd.weights_desc(), eng);
    memory dst_m(fwd_pd.dst_desc(), eng), dsrc_m(bwd_data_pd.diff_src_desc(), eng);
    memory ddst_m(bwd_data_pd.diff_dst_desc(), eng),
        dwei_m(bwd_weights_pd.diff_weights_desc(), eng);
    memory src_w(bwd_weights_pd.src_desc(), eng), ddst_w(bwd_weights_pd.diff_dst_desc(), eng);
    for (memory* m : {&src_m, &wei_m, &dst_m, &dsrc_m, &ddst_m, &dwei_m, &src_w, &ddst_w})
      fill(*m, 0.5f);
    dnnl::convolution_forward fwd(fwd_pd);
    dnnl::convolution_backward_data bwd_data(bwd_data_pd);
    dnnl::convolution_backward_weights bwd_weights(bwd_weights_pd);
    const double flops = conv_flops(g);
    const std::map<std::string, std::string> shape{
        {"n", std::to_string(g.n)},          {"c", std::to_string(g.c)},
        {"h", std::to_string(g.h)},          {"w", std::to_string(g.w)},
        {"k", std::to_string(g.k)},          {"r", std::to_string(g.r)},
        {"s", std::to_string(g.s)},          {"pad", std::to_string(g.pad)},
        {"stride", std::to_string(g.stride)}};
    const int reps = o.quick ? 5 : 15;
    const double budget = o.quick ? 0.4 : 1.5;
    record(
        set, row("conv_fwd", "conv", shape, flops, conv_bytes("conv_fwd", g, 4.0)),
        [&] {
          fwd.execute(stream,
                      {{DNNL_ARG_SRC, src_m}, {DNNL_ARG_WEIGHTS, wei_m}, {DNNL_ARG_DST, dst_m}});
          stream.wait();
        },
        reps, budget, log);
    record(
        set, row("conv_bwd_data", "conv", shape, flops, conv_bytes("conv_bwd_data", g, 4.0)),
        [&] {
          bwd_data.execute(stream, {{DNNL_ARG_DIFF_DST, ddst_m},
                                    {DNNL_ARG_WEIGHTS, wei_m},
                                    {DNNL_ARG_DIFF_SRC, dsrc_m}});
          stream.wait();
        },
        reps, budget, log);
    record(
        set, row("conv_bwd_filter", "conv", shape, flops, conv_bytes("conv_bwd_filter", g, 4.0)),
        [&] {
          bwd_weights.execute(stream, {{DNNL_ARG_SRC, src_w},
                                       {DNNL_ARG_DIFF_DST, ddst_w},
                                       {DNNL_ARG_DIFF_WEIGHTS, dwei_m}});
          stream.wait();
        },
        reps, budget, log);
  }
}

#endif  // AMDAHL_HAVE_ONEDNN

}  // namespace

std::string onednn_version() {
#ifdef AMDAHL_HAVE_ONEDNN
  const dnnl_version_t* v = dnnl_version();
  return fmt::format("{}.{}.{}", v->major, v->minor, v->patch);
#else
  return "";
#endif
}

void run_cpu_benchmarks(const CpuBenchOptions& options, MeasurementSet& set, std::ostream& log) {
#ifdef AMDAHL_HAVE_ONEDNN
  log << "oneDNN GEMM (dnnl_sgemm):\n";
  gemm_benchmarks(options, set, log);
  log << "oneDNN convolution (direct; forward, backward data, backward weights):\n";
  conv_benchmarks(options, set, log);
#else
  log << "built without oneDNN (AMDAHL_WITH_ONEDNN=OFF): no GEMM or convolution measurements\n";
#endif
  log << "memory, elementwise and reduction kernels (OpenMP):\n";
  memory_benchmarks(options, set, log);
}

}  // namespace amdahl::calibrate
