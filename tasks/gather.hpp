// Results that end on rank 0 (seismogram traces, peak ground velocity maps): one piece per item,
// in the same order on every rank, so that the blocking sends and receives pair up.
#pragma once
#include <starpu.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace ondes {

struct GatherItem {
  int owner = 0;                            // rank that holds the piece
  starpu_data_handle_t local = nullptr;     // its float vector handle, on the owner
  size_t floats = 0;
  int64_t tag = 0;                          // of its message to rank 0
};

// Every rank calls it with the same items. Rank 0 calls take(i, data) for each item in order,
// with its own piece or one received from the owner; the owners send theirs.
void gather_to_root(int rank, const std::vector<GatherItem>& items,
                    const std::function<void(size_t item, const float* data)>& take);

}  // namespace ondes
