#pragma once
// The schemas of the hardware files: each key declared once (hw/schema.h).

#include <string>
#include <vector>

#include "hw/schema.h"

namespace amdahl::hw {

const std::vector<Field>& device_schema();       // hw/catalog/devices/*.yaml
const std::vector<Field>& link_schema();         // hw/catalog/links/*.yaml
const std::vector<Field>& runtime_schema();      // the `runtime:` map of a system
const std::vector<Field>& collectives_schema();  // its `collectives:` map
const std::vector<Field>& system_schema();       // hw/catalog/systems/*.yaml

}  // namespace amdahl::hw
