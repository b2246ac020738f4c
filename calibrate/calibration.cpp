#include "calibrate/calibration.h"

#include <map>

#include "calibrate/holdout.h"
#include "calibrate/measured_op.h"

namespace amdahl::calibrate {

std::vector<ClassPlan> gpu_plan() {
  FitOptions tiles;
  tiles.tile_sizes = {32, 64, 128, 256};
  return {{"gemm", ModelForm::kGemmLike, tiles},
          {"conv", ModelForm::kGemmLike, tiles},
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

Calibration calibrate_device(const MeasurementSet& set, const hw::DeviceSpec& base,
                             const std::vector<ClassPlan>& plan) {
  Calibration result;
  result.device = base;
  const std::vector<bool> held = held_out_rows(set.rows);
  std::map<std::string, std::vector<Measurement>> train_rows, held_rows;
  for (std::size_t i = 0; i < set.rows.size(); ++i)
    (held[i] ? held_rows : train_rows)[set.rows[i].op_class].push_back(set.rows[i]);
  for (const auto& m : set.rows) {
    bool planned = false;
    for (const auto& p : plan) planned = planned || p.op_class == m.op_class;
    (planned ? result.rows_used : result.rows_ignored) += 1;
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
