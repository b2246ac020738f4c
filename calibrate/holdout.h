#pragma once
// The fixed held-out rule of every fit: within one op class, shapes are numbered in order of
// first appearance in the measurement file, and every fifth shape (index 4, 9, 14, ...) is
// held out of the fit and used only to report the fitted model's error.
//
// A shape is the measurement's shape string without the keys that describe how it ran
// rather than what it computes (`threads`, `framework`, `backend`, and amdahl-cudabench's
// `algo`, `math` and `layout`), so the forward and backward measurements of one convolution
// (whatever algorithm and math mode cuDNN chose for each direction, in whichever layout), or one
// GEMM at several thread counts, fall on the same side of the split. The split depends only on the
// file's order, never on a random seed.

#include <string>
#include <vector>

#include "calibrate/measurement.h"

namespace amdahl::calibrate {

inline constexpr int kHoldOutEvery = 5;

// The shape identity used by the split (op class + shape without run-time keys).
std::string holdout_key(const Measurement& m);

// held_out[i] is true when rows[i] belongs to a held-out shape.
std::vector<bool> held_out_rows(const std::vector<Measurement>& rows);

// Cross-validation folds (calibrate --cross-validate): fold f in [0, kHoldOutEvery) holds out
// the shapes whose index is f modulo kHoldOutEvery, so every shape is held out exactly once;
// fold kHoldOutEvery - 1 is the fixed split above.
std::vector<bool> fold_rows(const std::vector<Measurement>& rows, int fold);

}  // namespace amdahl::calibrate
