#include "perfmodels/models.hpp"

#include <cstring>

namespace ondes {

starpu_perfmodel history_model(const char* symbol) {
  starpu_perfmodel m;
  std::memset(&m, 0, sizeof(m));
  m.type = STARPU_HISTORY_BASED;
  m.symbol = symbol;
  return m;
}

starpu_perfmodel regression_model(const char* symbol, uint32_t (*footprint)(starpu_task*),
                                  size_t (*size)(starpu_task*, unsigned)) {
  starpu_perfmodel m;
  std::memset(&m, 0, sizeof(m));
#ifdef STARPU_SIMGRID
  // Simulated (SimGrid) runs take each task's time from its footprint's measured mean: StarPU 1.3's
  // fit, degenerate on PML-heavy layouts (sweep.toml 4x4: a = 0, b = inf; the corner blocks, the
  // smallest, take longest), returns NaN for every size in range, which SimGrid refuses. So a
  // simulated layout's block shapes must have been calibrated on the real machine (any GPU count:
  // a block costs the same whatever the other GPUs do).
  m.type = STARPU_HISTORY_BASED;
#else
  m.type = STARPU_NL_REGRESSION_BASED;
#endif
  m.symbol = symbol;
  m.size_base = size;
  m.footprint = footprint;
  return m;
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
