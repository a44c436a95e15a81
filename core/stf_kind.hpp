// The source time functions the solver knows (physics/stf.hpp evaluates them, on host and device).
#pragma once
#include <cstdint>

namespace ondes {

// Sampled: a series of samples at a fixed step, linearly interpolated (a TOML case's `sampled`).
// Held: Ondes3D's moment-rate histories, each sample held for a step and taken when Ondes3D takes
// it (physics/stf.hpp).
enum class StfKind : int32_t { Gaussian = 0, Ricker = 1, Triangle = 2, SmoothRamp = 3, Sampled = 4, Held = 5 };

}  // namespace ondes
