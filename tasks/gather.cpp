#include "tasks/gather.hpp"

#include <starpu_mpi.h>

#include "partition/handles.hpp"

namespace ondes {

void gather_to_root(int rank, const std::vector<GatherItem>& items,
                    const std::function<void(size_t, const float*)>& take) {
  for (size_t i = 0; i < items.size(); ++i) {
    const GatherItem& it = items[i];
    if (rank != 0) {
      if (it.owner == rank)
        check_starpu(starpu_mpi_send(it.local, 0, it.tag, MPI_COMM_WORLD), "sending a result to rank 0");
      continue;
    }
    HostFloats remote;
    starpu_data_handle_t h = it.local;
    if (it.owner != 0) {
      remote = HostFloats(it.floats);
      register_vector(&h, remote);
      MPI_Status status;
      check_starpu(starpu_mpi_recv(h, it.owner, it.tag, MPI_COMM_WORLD, &status), "receiving a result on rank 0");
    }
    starpu_data_acquire(h, STARPU_R);
    take(i, reinterpret_cast<const float*>(starpu_vector_get_local_ptr(h)));
    starpu_data_release(h);
    if (it.owner != 0) unregister(h);
  }
}

}  // namespace ondes
