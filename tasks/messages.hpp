// StarPU-MPI messages: those of the task graph, detached, so nothing waits (StarPU orders them with
// the tasks that write and read their handles), and blocking ones of plain memory outside it.
#pragma once
#include "partition/mpi.hpp"

#include <vector>

#include "partition/halo.hpp"
#include "partition/handles.hpp"

namespace ondes {

inline void send(const Transfer& t) {
  check_starpu(starpu_mpi_isend_detached(t.handle, t.peer, t.tag, MPI_COMM_WORLD, nullptr, nullptr), "an MPI send");
}

inline void receive(const Transfer& t) {
  check_starpu(starpu_mpi_irecv_detached(t.handle, t.peer, t.tag, MPI_COMM_WORLD, nullptr, nullptr),
               "an MPI receive");
}

// Blocking messages of plain memory outside the task graph (checkpoint parts, results gathered on
// rank 0, stop votes): the memory is a StarPU handle for the time of the message only.
inline void send_now(const void* data, size_t bytes, int to, int64_t tag, const char* what) {
  starpu_data_handle_t h = nullptr;
  register_bytes(&h, const_cast<void*>(data), bytes);
  check_starpu(starpu_mpi_send(h, to, tag, MPI_COMM_WORLD), what);
  unregister(h);
}
inline void receive_now(void* data, size_t bytes, int from, int64_t tag, const char* what) {
  starpu_data_handle_t h = nullptr;
  register_bytes(&h, data, bytes);
  MPI_Status status;
  check_starpu(starpu_mpi_recv(h, from, tag, MPI_COMM_WORLD, &status), what);
  unregister(h);
}

// Non-blocking sends of plain memory outside the task graph, waited for together, so that two ranks
// sending each other messages at start-up do not wait on each other. The memory must stay until wait().
struct Posted {
  std::vector<starpu_data_handle_t> handles;
  std::vector<starpu_mpi_req> requests;
  void send(const void* data, size_t bytes, int to, int64_t tag) {
    handles.emplace_back();
    register_bytes(&handles.back(), const_cast<void*>(data), bytes);
    requests.emplace_back();
    check_starpu(starpu_mpi_isend(handles.back(), &requests.back(), to, tag, MPI_COMM_WORLD), "a start-up message");
  }
  void wait() {
    for (starpu_mpi_req& r : requests) {
      MPI_Status s;
      check_starpu(starpu_mpi_wait(&r, &s), "a start-up message");
    }
    for (starpu_data_handle_t& h : handles) unregister(h);
    handles.clear();
    requests.clear();
  }
};

// Every rank's `mine` combined on rank 0 (combine(all, other), in rank order) and the result handed
// back to every rank. Blocking; messages of plain memory (T trivially copyable) on tags tag (to rank
// 0) and tag + 1 (back).
template <class T, class Combine>
T combine_on_all(int rank, int ranks, const T& mine, int64_t tag, Combine combine, const char* what) {
  if (ranks <= 1) return mine;
  if (rank != 0) {
    send_now(&mine, sizeof(mine), 0, tag, what);
    T all;
    receive_now(&all, sizeof(all), 0, tag + 1, what);
    return all;
  }
  T all = mine;
  for (int r = 1; r < ranks; ++r) {
    T other;
    receive_now(&other, sizeof(other), r, tag, what);
    all = combine(all, other);
  }
  for (int r = 1; r < ranks; ++r) send_now(&all, sizeof(all), r, tag + 1, what);
  return all;
}

}  // namespace ondes
