// Division by a divisor known before a kernel's launch, as a multiply and a shift: the GPU kernels'
// index decoding, where an integer division costs ~20 instructions per warp.
#pragma once
#include <cstdint>

#include "core/host_device.hpp"

namespace ondes {

// n / d for 0 <= n < 2^31 and 1 <= d < 2^31 (Granlund and Montgomery's round-up method for 31-bit
// numerators: m = ceil(2^(31+s) / d), s = ceil(log2 d), so that m fits 32 bits).
struct FastDiv {
  unsigned m = 1u << 31;
  int s = 0;
  FastDiv() = default;  // d = 1
  explicit FastDiv(unsigned d) {
    while ((1u << s) < d) ++s;
    m = unsigned(((uint64_t(1) << (31 + s)) + d - 1) / d);
  }
  ONDES_HD unsigned operator()(unsigned n) const { return unsigned((uint64_t(n) * m) >> (31 + s)); }
};

}  // namespace ondes
