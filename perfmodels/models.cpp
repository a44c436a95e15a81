#include "perfmodels/models.hpp"

#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace ondes {

#ifdef STARPU_SIMGRID
// Simulated (SimGrid) runs: each task takes its footprint's measured mean from the calibrated model
// of the same symbol, plus the gap a task costs between kernels on the real machine (StarPU's
// scheduling and the launch: ~15 us a task on one H100 stream), which the measured means do not
// hold. StarPU 1.3's own regression fit degenerates on PML-heavy layouts (sweep.toml 4x4: a = 0,
// b = inf; the corner blocks, the smallest, take longest) and returns NaN in range: so the means,
// which make a simulated layout's block shapes need a real run (any GPU count).
namespace {
double g_task_gap_us = 0;
constexpr const char* kSimulatedSuffix = "_simulated";

double simulated_cost(starpu_task* task, starpu_perfmodel_arch* arch, unsigned nimpl) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<starpu_perfmodel>> calibrated;
  starpu_perfmodel* own = task->cl->model;
  std::string symbol(own->symbol);
  symbol.resize(symbol.size() - std::strlen(kSimulatedSuffix));
  starpu_perfmodel* model = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto& m = calibrated[symbol];
    if (!m) {
      m = std::make_unique<starpu_perfmodel>();
      std::memset(m.get(), 0, sizeof(starpu_perfmodel));
      if (starpu_perfmodel_load_symbol(symbol.c_str(), m.get()) != 0) return NAN;  // SimGrid names the codelet
    }
    model = m.get();
  }
  const double us = starpu_perfmodel_history_based_expected_perf(model, arch, starpu_task_footprint(own, task, arch, nimpl));
  return std::isnan(us) ? us : us + g_task_gap_us;
}

starpu_perfmodel simulated_model(const char* symbol, uint32_t (*footprint)(starpu_task*)) {
  starpu_perfmodel m;
  std::memset(&m, 0, sizeof(m));
  m.type = STARPU_PER_ARCH;
  m.arch_cost_function = simulated_cost;
  m.footprint = footprint;
  m.symbol = (new std::string(std::string(symbol) + kSimulatedSuffix))->c_str();  // as long as the model
  return m;
}
}  // namespace
#endif

void set_simulated_task_gap(double seconds) {
#ifdef STARPU_SIMGRID
  g_task_gap_us = seconds * 1e6;
#else
  (void)seconds;
#endif
}

starpu_perfmodel history_model(const char* symbol) {
#ifdef STARPU_SIMGRID
  return simulated_model(symbol, nullptr);
#else
  starpu_perfmodel m;
  std::memset(&m, 0, sizeof(m));
  m.type = STARPU_HISTORY_BASED;
  m.symbol = symbol;
  return m;
#endif
}

starpu_perfmodel regression_model(const char* symbol, uint32_t (*footprint)(starpu_task*),
                                  size_t (*size)(starpu_task*, unsigned)) {
#ifdef STARPU_SIMGRID
  (void)size;
  return simulated_model(symbol, footprint);
#else
  starpu_perfmodel m;
  std::memset(&m, 0, sizeof(m));
  m.type = STARPU_NL_REGRESSION_BASED;
  m.symbol = symbol;
  m.size_base = size;
  m.footprint = footprint;
  return m;
#endif
}

uint32_t footprint_of(std::initializer_list<int64_t> values) {
  uint32_t h = 0;
  for (int64_t v : values) {
    h = starpu_hash_crc32c_be(static_cast<uint32_t>(v), h);
    h = starpu_hash_crc32c_be(static_cast<uint32_t>(v >> 32), h);
  }
  return h;
}

}  // namespace ondes
