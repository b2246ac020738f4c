#include "calibrate/algorithm_agreement.h"

namespace amdahl::calibrate {

AlgorithmFamily library_family(const std::string& algo) {
  if (algo.starts_with("WINOGRAD")) return AlgorithmFamily::kWinograd;
  if (algo.starts_with("FFT")) return AlgorithmFamily::kFft;
  return AlgorithmFamily::kDirect;
}

AlgorithmFamily model_family(const model::KernelChoice& kernel) {
  switch (kernel.algorithm) {
    case model::Algorithm::kWinograd:
      return AlgorithmFamily::kWinograd;
    case model::Algorithm::kFft:
      return AlgorithmFamily::kFft;
    default:
      return AlgorithmFamily::kDirect;
  }
}

std::string label_algorithm(const std::string& label) {
  const auto space = label.find(' ');
  if (space == std::string::npos) return "";
  std::size_t at = space + 1;
  while (at < label.size()) {
    const auto end = std::min(label.find(';', at), label.size());
    if (label.compare(at, 5, "algo=") == 0) return label.substr(at + 5, end - at - 5);
    at = end + 1;
  }
  return "";
}

std::vector<AlgorithmAgreement> algorithm_agreement(
    const std::vector<std::pair<std::string, const std::vector<Residual>*>>& entries) {
  std::vector<AlgorithmAgreement> out;
  for (const auto& [entry, residuals] : entries) {
    AlgorithmAgreement a;
    a.entry = entry;
    for (const Residual& r : *residuals) {
      const std::string algo = label_algorithm(r.label);
      if (algo.empty()) continue;
      ++a.rows;
      const AlgorithmFamily library = library_family(algo), model = model_family(r.kernel);
      bool agree = false;
      switch (library) {
        case AlgorithmFamily::kWinograd:
          ++a.library_winograd;
          agree = model == AlgorithmFamily::kWinograd;
          a.both_winograd += agree;
          break;
        case AlgorithmFamily::kDirect:
          ++a.library_direct;
          agree = model == AlgorithmFamily::kDirect;
          a.both_direct += agree;
          break;
        case AlgorithmFamily::kFft:
          ++a.library_fft;
          agree = model == AlgorithmFamily::kFft;
          a.both_fft += agree;
          break;
      }
      const double error = (r.predicted_s - r.measured_s) / r.measured_s;
      (agree ? a.agreeing_errors : a.other_errors).push_back(error);
    }
    if (a.rows > 0) out.push_back(std::move(a));
  }
  return out;
}

}  // namespace amdahl::calibrate
