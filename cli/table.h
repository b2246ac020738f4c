#pragma once
// The aligned text table is util/table.h (calibrate/'s reports print it too).

#include "util/table.h"
