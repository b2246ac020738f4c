#pragma once
// The operator classes and phases of the op graph: the shared vocabulary of util/op_class.h,
// named in this namespace too.

#include "util/op_class.h"

namespace amdahl::graphs {

using amdahl::is_matrix_class;
using amdahl::kOpClassCount;
using amdahl::kPhaseCount;
using amdahl::op_class_name;
using amdahl::op_class_names;
using amdahl::OpClass;
using amdahl::parse_op_class;
using amdahl::Phase;
using amdahl::phase_name;

}  // namespace amdahl::graphs
