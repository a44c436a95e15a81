#include "tasks/gather.hpp"

#include "tasks/messages.hpp"

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
    if (it.owner != 0) {
      HostFloats remote(it.floats);
      receive_now(remote.data(), it.floats * sizeof(float), it.owner, it.tag, "receiving a result on rank 0");
      take(i, remote.data());
      continue;
    }
    starpu_data_acquire(it.local, STARPU_R);
    take(i, reinterpret_cast<const float*>(starpu_vector_get_local_ptr(it.local)));
    starpu_data_release(it.local);
  }
}

}  // namespace ondes
