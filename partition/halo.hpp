// The boundary buffers that cross ranks, as StarPU-MPI messages. Every rank derives the same lists
// from the same decomposition and mapping, so sends and receives pair up without negotiation.
//
// Message tags (StarPU-MPI data tags, 64 bits), one per message stream, reused every iteration
// (StarPU-MPI delivers messages of one tag and source in order):
//   boundary buffer of block b, direction d (XM XP YM YP = 0..3), kind k (0 velocity, 1 stress):
//                                          (b * 4 + d) * 2 + k
//   station corner samples, group g, slot s:  kSampleTagBase + g * 4 + s
//   finished traces of group g (once, at the end): kTraceTagBase + g
//   snapshot plane part p (engine/snapshots, to rank 0): kSnapshotTagBase + p
//   peak ground velocity of block b (once, at the end, to rank 0): kPgvTagBase + b
//   a displacement snapshot plane's part p at a checkpoint (to rank 0): kSnapshotGatherTagBase + p
//   a checkpoint's part p (0 velocity, 1 stress, 2 PML, 3 anelastic memory) of block b (to rank 0):
//                                          kCheckpointTagBase + 4 b + p
//   a stop vote to rank 0 and its verdict back (tasks/stop_vote): kStopVoteTag, kStopVoteTag + 1
//   the IPC offer of a boundary buffer and its answer (tasks/ipc_halos, once, at start-up):
//                                          kIpcOfferTagBase + its tag, kIpcAnswerTagBase + its tag
//   chained steps (tasks/chain, once, at start-up): the ranks' agreement kChainTagBase, + 1; the IPC
//   handle of block b's channel from direction d: kChainTagBase + 2 + 4 b + d
#pragma once
#include <starpu.h>

#include <array>
#include <cstdint>
#include <vector>

#include "partition/block_data.hpp"
#include "partition/mapping.hpp"

namespace ondes {

constexpr int64_t kSampleTagBase = int64_t(1) << 40;
constexpr int64_t kTraceTagBase = int64_t(1) << 41;
constexpr int64_t kSnapshotTagBase = int64_t(1) << 42;
constexpr int64_t kPgvTagBase = int64_t(1) << 43;
constexpr int64_t kCheckpointTagBase = int64_t(1) << 44;
constexpr int64_t kStopVoteTag = int64_t(1) << 45;
constexpr int64_t kIpcOfferTagBase = int64_t(1) << 46;
constexpr int64_t kIpcAnswerTagBase = int64_t(1) << 47;
constexpr int64_t kChainTagBase = int64_t(1) << 48;
constexpr int64_t kSnapshotGatherTagBase = int64_t(1) << 49;

inline int64_t boundary_tag(int block, int dir, int kind) { return (int64_t(block) * kDirections + dir) * 2 + kind; }
inline int64_t sample_tag(int group, int slot) { return kSampleTagBase + int64_t(group) * kMaxStationBlocks + slot; }
inline int64_t trace_tag(int group) { return kTraceTagBase + group; }
inline int64_t checkpoint_tag(int block, int part) { return kCheckpointTagBase + 4 * int64_t(block) + part; }

struct Transfer {
  starpu_data_handle_t handle = nullptr;
  int peer = 0;  // destination of a send, source of a receive
  int64_t tag = 0;
  size_t bytes = 0;
  int block = 0, dir = 0, kind = 0;  // the boundary buffer: block b's towards direction dir, FieldKind kind
};


struct Halo {
  std::array<std::vector<Transfer>, 2> send, recv;  // by FieldKind
  size_t bytes_sent_per_iteration() const;
};

// Needs the blocks' handles registered.
Halo build_halo(const std::vector<BlockData>& blocks, const RankMap& map, int rank);

}  // namespace ondes
