// StarPU-MPI, or, in the SimGrid build (ONDES_NO_MPI: StarPU simulated without its MPI layer, which
// SimGrid's SMPI would need statically), stand-ins for the few calls the program makes. A simulated
// run is one process: Runtime never starts MPI, ranks() is 1, so no message is ever sent; a call
// reaching a stand-in is a bug and stops the process.
#pragma once
#ifndef ONDES_NO_MPI
#include <mpi.h>
#include <starpu_mpi.h>
#else
#include <starpu.h>

#include <cstdio>
#include <cstdlib>

using MPI_Comm = int;
struct MPI_Status {
  int MPI_SOURCE, MPI_TAG, MPI_ERROR;
};
constexpr MPI_Comm MPI_COMM_WORLD = 0;
namespace ondes::no_mpi {
[[noreturn]] inline int unavailable(const char* call) {
  std::fprintf(stderr, "ondes3d: %s called in a build without MPI (SimGrid)\n", call);
  std::abort();
}
}  // namespace ondes::no_mpi
inline int starpu_mpi_send(starpu_data_handle_t, int, int64_t, MPI_Comm) { return ondes::no_mpi::unavailable("starpu_mpi_send"); }
inline int starpu_mpi_recv(starpu_data_handle_t, int, int64_t, MPI_Comm, MPI_Status*) {
  return ondes::no_mpi::unavailable("starpu_mpi_recv");
}
inline int starpu_mpi_isend_detached(starpu_data_handle_t, int, int64_t, MPI_Comm, void (*)(void*), void*) {
  return ondes::no_mpi::unavailable("starpu_mpi_isend_detached");
}
inline int starpu_mpi_irecv_detached(starpu_data_handle_t, int, int64_t, MPI_Comm, void (*)(void*), void*) {
  return ondes::no_mpi::unavailable("starpu_mpi_irecv_detached");
}
inline int starpu_mpi_init_conf(int*, char***, int, MPI_Comm, starpu_conf*) {
  return ondes::no_mpi::unavailable("starpu_mpi_init_conf");
}
inline int starpu_mpi_shutdown() { return ondes::no_mpi::unavailable("starpu_mpi_shutdown"); }
using starpu_mpi_req = void*;
inline int starpu_mpi_isend(starpu_data_handle_t, starpu_mpi_req*, int, int64_t, MPI_Comm) {
  return ondes::no_mpi::unavailable("starpu_mpi_isend");
}
inline int starpu_mpi_wait(starpu_mpi_req*, MPI_Status*) { return ondes::no_mpi::unavailable("starpu_mpi_wait"); }
inline int starpu_mpi_barrier(MPI_Comm) { return ondes::no_mpi::unavailable("starpu_mpi_barrier"); }
inline int starpu_mpi_world_rank() { return 0; }
inline int starpu_mpi_world_size() { return 1; }
inline int MPI_Initialized(int* flag) { return *flag = 0; }
inline int MPI_Finalized(int* flag) { return *flag = 0; }
inline int MPI_Abort(MPI_Comm, int code) { std::exit(code); }
#endif
