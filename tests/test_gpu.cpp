// The CUDA codelets against the CPU ones: CUDA-only workers give the CPU-only seismograms within
// float32 rounding, for several block layouts, and mixed CPU+CUDA runs under dmda/dmdas too.
// Skips, with a message, where no CUDA worker exists (CI, or StarPU built without CUDA).
#include <gtest/gtest.h>

#include <cmath>

#include "helpers.hpp"

using namespace ondes;

namespace {

Case gpu_case() {
  Case c = test::cube(48, 100, 4000, 2300, 2500, 0.008, 150, 8, true);
  c.grid.nz = 32;
  test::add_force_and_moment(c, {2400, 2350, 900}, {1530, 3010, 1250});
  c.stations = {test::station("A", 1200, 1200, 0), test::station("B", 2400, 2400, 0),
                test::station("C", 3550, 1330, 350), test::station("D", 1210, 3590, 1200)};
  return c;
}

double relative_l2(const std::vector<float>& a, const std::vector<float>& b) {
  double num = 0, den = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    num += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
    den += double(b[i]) * b[i];
  }
  return std::sqrt(num / den);
}

}  // namespace

TEST(Gpu, CudaOnlyMatchesCpuOnly) {
  if (!test::have_cuda_worker()) GTEST_SKIP() << "no CUDA worker (no GPU, or StarPU without CUDA)";
  Case c = gpu_case();
  for (auto [nbx, nby] : {std::pair{1, 1}, std::pair{2, 2}, std::pair{4, 3}}) {
    c.run.nbx = nbx;
    c.run.nby = nby;
    const auto cpu = test::run(c, "", -1, 0);
    const auto gpu = test::run(c, "", 0, -1);
    const double d = relative_l2(gpu, cpu);
    std::printf("blocks %dx%d: CUDA-only vs CPU-only relative L2 difference %.3g\n", nbx, nby, d);
    EXPECT_LT(d, 1e-5);
  }
}

TEST(Gpu, MixedWorkersMatchCpuOnly) {
  if (!test::have_cuda_worker()) GTEST_SKIP() << "no CUDA worker (no GPU, or StarPU without CUDA)";
  Case c = gpu_case();
  c.run.nbx = 4;
  c.run.nby = 4;
  const auto cpu = test::run(c, "", -1, 0);
  for (const char* sched : {"dmda", "dmdas", "eager"}) {
    const auto mixed = test::run(c, sched, -1, -1);
    const double d = relative_l2(mixed, cpu);
    std::printf("%s with CPU and CUDA workers vs CPU-only: relative L2 difference %.3g\n", sched, d);
    EXPECT_LT(d, 1e-5) << sched;
  }
}
