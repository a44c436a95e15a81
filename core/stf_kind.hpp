// The source time functions the solver knows (physics/stf.hpp evaluates them, on host and device).
#pragma once
#include <cstdint>

namespace ondes {

// Sampled: a series of samples at a fixed step, linearly interpolated (Ondes3D's moment-rate histories).
enum class StfKind : int32_t { Gaussian = 0, Ricker = 1, Triangle = 2, SmoothRamp = 3, Sampled = 4 };

}  // namespace ondes
