#include "calibrate/calibration.h"

#include <fmt/format.h>

#include <map>

#include "calibrate/holdout.h"
#include "calibrate/measured_op.h"
#include "model/efficiency.h"

namespace amdahl::calibrate {

std::vector<ClassPlan> gpu_plan() {
  FitOptions tiles;
  tiles.tile_sizes = {32, 64, 128, 256};
  FitOptions tile_set;
  tile_set.tile_sizes = {16, 32, 64, 128, 256};
  tile_set.tile_set = true;
  tile_set.narrow_max = 16;  // cuBLAS/cuDNN run n <= 16 on other kernels than tiled SGEMM
  FitOptions conv = tile_set;
  conv.fit_winograd = true;
  return {{"gemm", ModelForm::kGemmLike, tile_set},
          {"conv", ModelForm::kGemmLike, conv},
          {"conv_bwd_data", ModelForm::kGemmLike, conv},
          {"conv_bwd_filter", ModelForm::kGemmLike, conv},
          {"rnn", ModelForm::kGemmLike, tiles},
          {"elementwise", ModelForm::kMemoryBound, {}},
          {"reduction", ModelForm::kMemoryBound, {}}};
}

std::vector<Sample> to_samples(const std::vector<Measurement>& rows) {
  std::vector<Sample> out;
  out.reserve(rows.size());
  for (const auto& m : rows) {
    Sample s;
    s.op = to_operator(m);
    s.time_s = m.time_s;
    s.threads = m.shape.count("threads") ? static_cast<int>(m.shape_number("threads")) : 0;
    s.label = m.bench + " " + format_shape(m.shape);
    out.push_back(std::move(s));
  }
  return out;
}

std::string residuals_csv(const std::vector<ClassFit>& fits) {
  std::string out = "entry,split,measurement,measured_us,predicted_us,error\n";
  for (const auto& f : fits)
    for (const auto& r : f.residuals)
      out += fmt::format("{},{},\"{}\",{:.6g},{:.6g},{:.4f}\n", f.op_class,
                         r.held_out ? "held_out" : "train", r.label, r.measured_s * 1e6,
                         r.predicted_s * 1e6, (r.predicted_s - r.measured_s) / r.measured_s);
  return out;
}

Calibration calibrate_device(const MeasurementSet& set, const hw::DeviceSpec& base,
                             const std::vector<ClassPlan>& plan) {
  Calibration result;
  result.device = base;
  const std::vector<bool> held = held_out_rows(set.rows);
  std::map<std::string, std::vector<Measurement>> train_rows, held_rows;
  const auto planned = [&](const std::string& key) {
    for (const auto& p : plan)
      if (p.op_class == key) return true;
    return false;
  };
  // A row goes to its phase entry (conv_bwd_data, ...) when the plan has one, else to its
  // class; the held-out rule is applied per class before the split.
  for (std::size_t i = 0; i < set.rows.size(); ++i) {
    const Measurement& m = set.rows[i];
    std::string key = m.op_class;
    if (planned(m.op_class)) {
      const std::string phase_key = model::phase_efficiency_key(to_operator(m));
      if (planned(phase_key)) key = phase_key;
    }
    (held[i] ? held_rows : train_rows)[key].push_back(m);
    (planned(key) ? result.rows_used : result.rows_ignored) += 1;
  }
  for (const auto& p : plan) {
    if (!train_rows.count(p.op_class) && !held_rows.count(p.op_class)) continue;
    const std::vector<Sample> train = to_samples(train_rows[p.op_class]);
    const std::vector<Sample> held_out = to_samples(held_rows[p.op_class]);
    ClassFit fit = fit_class(p.op_class, p.form, train, held_out, base, p.options);
    result.device.efficiency[p.op_class] = fit.params;
    result.fits.push_back(std::move(fit));
  }
  return result;
}

}  // namespace amdahl::calibrate
