// StarPU-MPI messages: those of the task graph, detached, so nothing waits (StarPU orders them with
// the tasks that write and read their handles), and blocking ones of plain memory outside it.
#pragma once
#include "partition/mpi.hpp"

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

}  // namespace ondes
