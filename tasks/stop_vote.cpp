#include "tasks/stop_vote.hpp"

#include <starpu_mpi.h>

#include "partition/halo.hpp"
#include "partition/handles.hpp"

namespace ondes {

StopVote StopVote::combined(const StopVote& other) const {
  StopVote v = *this;
  if (other.signal > v.signal) v.signal = other.signal;
  if (other.alarm_iteration >= 0 && (v.alarm_iteration < 0 || other.alarm_iteration < v.alarm_iteration)) {
    v.alarm_iteration = other.alarm_iteration;
    v.alarm_block = other.alarm_block;
    v.alarm_peak = other.alarm_peak;
  }
  return v;
}

namespace {

// A vote as a StarPU variable, for one blocking message.
struct VoteHandle {
  StopVote value;
  starpu_data_handle_t handle = nullptr;
  explicit VoteHandle(const StopVote& v) : value(v) {
    starpu_variable_data_register(&handle, STARPU_MAIN_RAM, reinterpret_cast<uintptr_t>(&value), sizeof(value));
  }
  ~VoteHandle() { starpu_data_unregister(handle); }
  VoteHandle(const VoteHandle&) = delete;
  VoteHandle& operator=(const VoteHandle&) = delete;
};

}  // namespace

StopVote agree_on_stop(int rank, int ranks, const StopVote& mine) {
  if (ranks <= 1) return mine;
  if (rank != 0) {
    {
      VoteHandle up(mine);
      check_starpu(starpu_mpi_send(up.handle, 0, kStopVoteTag, MPI_COMM_WORLD), "sending a stop vote");
    }
    VoteHandle verdict(StopVote{});
    MPI_Status status;
    check_starpu(starpu_mpi_recv(verdict.handle, 0, kStopVoteTag + 1, MPI_COMM_WORLD, &status),
                 "receiving the stop verdict");
    return verdict.value;
  }
  StopVote all = mine;
  for (int r = 1; r < ranks; ++r) {
    VoteHandle other(StopVote{});
    MPI_Status status;
    check_starpu(starpu_mpi_recv(other.handle, r, kStopVoteTag, MPI_COMM_WORLD, &status), "receiving a stop vote");
    all = all.combined(other.value);
  }
  for (int r = 1; r < ranks; ++r) {
    VoteHandle down(all);
    check_starpu(starpu_mpi_send(down.handle, r, kStopVoteTag + 1, MPI_COMM_WORLD), "sending the stop verdict");
  }
  return all;
}

}  // namespace ondes
