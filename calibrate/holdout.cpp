#include "calibrate/holdout.h"

#include <map>

namespace amdahl::calibrate {

std::string holdout_key(const Measurement& m) {
  std::map<std::string, std::string> shape = m.shape;
  for (const char* how : {"threads", "algo", "math", "layout", "framework", "backend"})
    shape.erase(how);
  return m.op_class + "|" + format_shape(shape);
}

std::vector<bool> held_out_rows(const std::vector<Measurement>& rows) {
  return fold_rows(rows, kHoldOutEvery - 1);
}

std::vector<bool> fold_rows(const std::vector<Measurement>& rows, int fold) {
  std::map<std::string, int> shapes_seen;  // per op class
  std::map<std::string, int> index_of;     // per shape key
  std::vector<bool> out;
  out.reserve(rows.size());
  for (const auto& m : rows) {
    const std::string key = holdout_key(m);
    auto it = index_of.find(key);
    if (it == index_of.end()) it = index_of.emplace(key, shapes_seen[m.op_class]++).first;
    out.push_back(it->second % kHoldOutEvery == fold);
  }
  return out;
}

}  // namespace amdahl::calibrate
