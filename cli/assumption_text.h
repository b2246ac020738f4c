#pragma once
// The assumptions a prediction lists (util/assumption.h), in words: one sentence per kind.

#include <string>
#include <vector>

#include "util/assumption.h"

namespace amdahl::cli {

std::string assumption_text(const Assumption& a);
// Each in words, sorted, each once: the list predict, whatif and the reports print.
std::vector<std::string> assumption_lines(const std::vector<Assumption>& assumptions);

}  // namespace amdahl::cli
