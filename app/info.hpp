#pragma once
#include <string>

namespace ondes {
// StarPU version, workers and scheduler policies, and the hwloc topology summary.
std::string system_info();
std::string starpu_version();
}  // namespace ondes
