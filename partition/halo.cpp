#include "partition/halo.hpp"

namespace ondes {

size_t Halo::bytes_sent_per_iteration() const {
  size_t bytes = 0;
  for (const auto& list : send)
    for (const Transfer& t : list) bytes += t.bytes;
  return bytes;
}

Halo build_halo(const std::vector<BlockData>& blocks, const RankMap& map, int rank) {
  Halo h;
  for (const BlockData& b : blocks)
    for (int dir = 0; dir < kDirections; ++dir) {
      const int nb = b.info.neighbour[dir];
      if (nb < 0 || map.owner(nb) == map.owner(b.info.id)) continue;
      const bool sending = b.local, receiving = !b.local && map.owner(nb) == rank;
      if (!sending && !receiving) continue;
      const int peer = sending ? map.owner(nb) : map.owner(b.info.id);
      auto add = [&](int kind, starpu_data_handle_t handle, size_t floats) {
        (sending ? h.send : h.recv)[kind].push_back({handle, peer, boundary_tag(b.info.id, dir, kind),
                                                     floats * sizeof(float), b.info.id, dir, kind});
      };
      add(kVelocityKind, b.h_velocity_out[dir], b.velocity_out[dir].size());
      add(kStressKind, b.h_stress_out[dir], b.stress_out[dir].size());
    }
  return h;
}

}  // namespace ondes
