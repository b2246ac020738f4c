#include "validate/kernel_profile.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <tuple>

#include "scratch_dir.h"

using namespace amdahl;
using namespace amdahl::validate;

using amdahl::test::scratch_file;

TEST_CASE("profiler keys: host rows, kernels by class, unmapped", "[validate]") {
  const auto cls = [](std::string_view name) { return classify_profile_key(name); };
  // Host side: operators, autograd nodes, runtime calls and annotations, even where a
  // kernel's template arguments contain the same words.
  for (const char* host :
       {"aten::addmm", "ConvolutionBackward0",
        "autograd::engine::evaluate_function: AddmmBackward0", "cudaLaunchKernel", "cuLaunchKernel",
        "Optimizer.step#SGD.step", "Activity Buffer Request"}) {
    INFO(host);
    CHECK(cls(host).host);
  }
  const struct {
    const char* name;
    OpClass op_class;
  } kernels[] = {
      {"void implicit_convolve_sgemm<float, float, 1024, 5, 5, 3, 3, 3, 1, false, false, "
       "true>(int, int)",
       OpClass::kConv},
      {"sm80_xmma_dgrad_implicit_gemm_f32f32_f32f32_f32_nchwkcrs_nchw_tilesize32x32x8_cudnn",
       OpClass::kConv},
      {"sm80_xmma_gemm_cf32cf32_f32f32_cf32_tn_n_tilesize64x64x8_execute_kernel__5x_cublas",
       OpClass::kConv},  // the complex GEMM of cuDNN's FFT convolution
      {"sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize32x32x8_execute_kernel__5x_cublas",
       OpClass::kGemm},
      {"void cutlass::Kernel2<cutlass_80_simt_sgemm_64x64_8x5_nn_align1>(Params)", OpClass::kGemm},
      {"void elemWiseRNNcell<float, float, float, (cudnnRNNMode_t)2>(int)", OpClass::kRnn},
      {"void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1, true>()",
       OpClass::kNormalization},
      {"void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d<float>()",
       OpClass::kSoftmax},  // "cuda" inside a kernel name is no runtime call
      {"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<TensorListMetadata<2>>()",
       OpClass::kOptimizer},
      {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, MeanOps>>()",
       OpClass::kReduction},
      {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>()",
       OpClass::kElementwise},
      {"Memset (Device)", OpClass::kDataMovement},
  };
  for (const auto& k : kernels) {
    INFO(k.name);
    const auto c = cls(k.name);
    CHECK_FALSE(c.host);
    REQUIRE(c.op_class);
    CHECK(*c.op_class == k.op_class);
  }
  const auto unknown = cls("void some_new_kernel<float>(float*)");
  CHECK_FALSE(unknown.host);
  CHECK_FALSE(unknown.op_class);
  CHECK(unknown.family == kUnmapped);
}

TEST_CASE("profile device time per step: kernel rows only, divided by steps", "[validate]") {
  const auto path = scratch_file("amdahl_kernel_profile.csv");
  // Two steps. The aten row carries its kernel's time again and is left out.
  std::ofstream(path)
      << "model,batch,precision,op,calls,self_device_us,self_cpu_us,steps\n"
         "deepq,256,fp32,aten::addmm,6,300.0,50.0,2\n"
         "deepq,256,fp32,\"void cutlass::Kernel2<cutlass_80_simt_sgemm_64x64_8x5_nn_align1>"
         "(cutlass_80_simt_sgemm_64x64_8x5_nn_align1::Params)\",4,200.0,0,2\n"
         "deepq,256,fp32,sm80_xmma_gemm_f32f32_f32f32_f32_nt_n_tilesize64x64x8_cublas,2,100.0,0,2\n"
         "deepq,256,fp32,\"void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float>()\",2,40.0,0,2\n"
         "deepq,256,fp32,void mystery_kernel(),2,10.0,0,2\n"
         "deepq,256,fp32,cudaLaunchKernel,10,0,80.0,2\n"
         "resnet50,1,fp32,Memset (Device),3,3.0,0,3\n";
  const auto configs = read_kernel_profile(path);
  REQUIRE(configs.size() == 2);
  const ProfiledConfig& c = configs[0];
  CHECK(c.model == "deepq");
  CHECK(c.batch == 256);
  CHECK(c.steps == 2);
  // GEMM: (200 + 100) us over 2 steps; batch norm 40 / 2; unmapped 10 / 2.
  CHECK(c.device_s_per_step.at("gemm") == Approx(150e-6));
  CHECK(c.device_s_per_step.at("normalization") == Approx(20e-6));
  CHECK(c.device_s_per_step.at(std::string(kUnmapped)) == Approx(5e-6));
  CHECK(c.kernel_s_per_step() == Approx(175e-6));
  CHECK(c.kernels.size() == 4);
  CHECK(c.kernels[0].calls_per_step == Approx(2));
  CHECK(configs[1].device_s_per_step.at("data_movement") == Approx(1e-6));
  std::ofstream(path) << "model,batch,precision,op,calls,self_device_us,self_cpu_us,steps\n"
                         "deepq,256,fp32,aten::addmm,6,300.0,50.0,2\n"
                         "deepq,256,fp32,aten::mm,6,300.0,50.0,3\n";
  CHECK_THROWS_WITH(read_kernel_profile(path),
                    Catch::Contains("amdahl_kernel_profile.csv:3: column steps"));
  // Batch and steps are whole numbers from 1: a fraction, an exponent or a step count beyond
  // an int is an error, never a cast.
  for (const auto& [batch, steps, column] : {std::tuple{"2.5", "2", "batch"},
                                             {"1e3", "2", "batch"},
                                             {"0", "2", "batch"},
                                             {"256", "2.9e11", "steps"},
                                             {"256", "4294967296", "steps"},
                                             {"256", "0", "steps"}}) {
    INFO(batch << " " << steps);
    std::ofstream(path) << "model,batch,precision,op,calls,self_device_us,self_cpu_us,steps\n"
                        << "deepq," << batch << ",fp32,aten::addmm,6,300.0,50.0," << steps << "\n";
    CHECK_THROWS_WITH(read_kernel_profile(path),
                      Catch::Contains(std::string("amdahl_kernel_profile.csv:2: column ") + column +
                                      ": expected a whole number from 1 to "));
  }
}

TEST_CASE("a profile's device time and calls are plausible measurements", "[validate]") {
  const std::string path = scratch_file("amdahl_kernel_profile_numbers.csv");
  // nan passed `device_us <= 0` and made every class's time nan; inf made it infinite; 1e308 us
  // and 1e-300 us printed 300-digit percentages. A device time is 0 or within
  // hw::measured_range (1 ns to 10^4 s); calls a whole number.
  const std::string time_rule = "expected 0 or a time from 1 ns to 1e+04 s";
  const std::string calls_rule = "expected a whole number from 0 to ";
  for (const auto& [calls, device_us, column, rule] :
       {std::tuple{"6", "nan", "self_device_us", time_rule},
        {"6", "inf", "self_device_us", time_rule},
        {"6", "-300", "self_device_us", time_rule},
        {"6", "1e308", "self_device_us", time_rule},
        {"6", "1e-300", "self_device_us", time_rule},
        {"6", "1e-320", "self_device_us", time_rule},
        {"inf", "300", "calls", calls_rule},
        {"-6", "300", "calls", calls_rule},
        {"1e308", "300", "calls", calls_rule},
        {"2.5", "300", "calls", calls_rule}}) {
    INFO(calls << " " << device_us);
    std::ofstream(path) << "model,batch,precision,op,calls,self_device_us,self_cpu_us,steps\n"
                        << "deepq,256,fp32,sm80_xmma_gemm_f32f32_f32f32_f32_nt_n_tilesize64x64x8_"
                           "cublas,"
                        << calls << "," << device_us << ",0,2\n";
    CHECK_THROWS_WITH(read_kernel_profile(path),
                      Catch::Contains(std::string("amdahl_kernel_profile_numbers.csv:2: column ") +
                                      column + ": " + rule));
  }
  // A precision no step is costed at.
  std::ofstream(path) << "model,batch,precision,op,calls,self_device_us,self_cpu_us,steps\n"
                      << "deepq,256,int8,aten::addmm,6,300.0,50.0,2\n";
  CHECK_THROWS_WITH(read_kernel_profile(path),
                    Catch::Contains("amdahl_kernel_profile_numbers.csv:2: column precision: "
                                    "unknown precision 'int8'"));
}
