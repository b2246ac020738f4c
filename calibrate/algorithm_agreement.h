#pragma once
// The model's kernel against the algorithm the library chose, for measurements that name it
// (DeepBench's forward rows, `algo=` in the shape; every amdahl-cudabench convolution row).
// Nothing in a fit reads the library's choice, so this is a check of the model's algorithm
// choice (model/kernel_choice.h): Winograd, FFT and direct, per calibrated entry.
//
// Families: the library's WINOGRAD* algorithms are "winograd", FFT* "fft", every other (the
// implicit-GEMM and GEMM algorithms, cuDNN's backward ALGO_n) "direct"; the model's Winograd
// kernels (also as forward) are "winograd", its FFT kernels (model/fft.h) "fft", every other
// "direct".

#include <string>
#include <vector>

#include "calibrate/efficiency_fit.h"

namespace amdahl::calibrate {

enum class AlgorithmFamily { kDirect, kWinograd, kFft };

// The family of a library algorithm name (WINOGRAD_NONFUSED, FFT_TILING, ALGO_1, ...).
AlgorithmFamily library_family(const std::string& algo);
// The family of the model's kernel (as forward or not).
AlgorithmFamily model_family(const model::KernelChoice& kernel);
// The `algo=` value of a measurement label ("conv_fwd algo=WINOGRAD;c=64;..."); "" if none.
std::string label_algorithm(const std::string& label);

struct AlgorithmAgreement {
  std::string entry;
  int rows = 0;  // residuals naming an algorithm
  int library_winograd = 0;
  int both_winograd = 0;  // of those, the model's kernel is Winograd too
  int library_direct = 0;
  int both_direct = 0;
  int library_fft = 0;
  int both_fft = 0;                     // of those, the model's kernel is FFT too
  std::vector<double> agreeing_errors;  // signed relative errors of the agreeing rows
  std::vector<double> other_errors;     // and of the rest
};

// One line per entry with residuals that name an algorithm, in the given order.
std::vector<AlgorithmAgreement> algorithm_agreement(
    const std::vector<std::pair<std::string, const std::vector<Residual>*>>& entries);

}  // namespace amdahl::calibrate
