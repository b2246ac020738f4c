#pragma once
// JSON as amdahl writes it (stdout, prediction.json, sweep.json, ...): nlohmann's dump, with
// control characters escaped as \u00XX (nlohmann does so always) and each byte of invalid
// UTF-8 in a string (a name from an ONNX file or a CSV can hold any byte) replaced by U+FFFD,
// where a plain dump throws type_error 316 (docs/reliability.md, "output sinks").

#include <nlohmann/json.hpp>
#include <string>

#include "util/breakdown.h"

namespace amdahl::cli {

// `j` as text; `indent` as nlohmann's dump (-1: one line).
std::string json_text(const nlohmann::json& j, int indent = -1);

// A breakdown's present slots as an object by name (util/breakdown.h).
template <typename Slots>
nlohmann::json named_json(const Breakdown<Slots>& b) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, s] : b.named()) j[std::string(k)] = s;
  return j;
}

}  // namespace amdahl::cli
