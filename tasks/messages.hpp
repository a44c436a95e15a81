// StarPU-MPI messages of the task graph: detached, so nothing waits; StarPU orders them with the
// tasks that write and read their handles.
#pragma once
#include <starpu_mpi.h>

#include "partition/halo.hpp"

namespace ondes {

inline void send(const Transfer& t) {
  check_starpu(starpu_mpi_isend_detached(t.handle, t.peer, t.tag, MPI_COMM_WORLD, nullptr, nullptr), "an MPI send");
}

inline void receive(const Transfer& t) {
  check_starpu(starpu_mpi_irecv_detached(t.handle, t.peer, t.tag, MPI_COMM_WORLD, nullptr, nullptr),
               "an MPI receive");
}

}  // namespace ondes
