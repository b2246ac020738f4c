#include "cli/json_text.h"

namespace amdahl::cli {

std::string json_text(const nlohmann::json& j, int indent) {
  return j.dump(indent, ' ', true, nlohmann::json::error_handler_t::replace);
}

}  // namespace amdahl::cli
