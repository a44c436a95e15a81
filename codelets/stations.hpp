// Seismograms: the velocity at each station, interpolated trilinearly from the corners of its
// cell (record), and the corners of the stations of a block that another rank records (sample).
#pragma once
#include "codelets/kernel_support.hpp"

namespace ondes {

// Trilinear interpolation of the corner values f[dx + 2 dy + 4 dz].
ONDES_HD inline float trilinear(const float* f, float fx, float fy, float fz) {
  const float c00 = f[0] + fx * (f[1] - f[0]), c10 = f[2] + fx * (f[3] - f[2]);
  const float c01 = f[4] + fx * (f[5] - f[4]), c11 = f[6] + fx * (f[7] - f[6]);
  const float c0 = c00 + fy * (c10 - c00), c1 = c01 + fy * (c11 - c01);
  return c0 + fz * (c1 - c0);
}

// The velocity component c at a station, from the record task's velocity buffers.
ONDES_HD inline float station_velocity(const StationPoint& st, int c, const StationBlocks& b) {
  float f[8];
  for (int q = 0; q < 8; ++q) {
    const int s = st.slot[c][q];
    f[q] = s < 0 ? 0.0f : b.v[s][c * b.cells[s] + st.idx[c][q]];
  }
  return trilinear(f, st.fx[c], st.fy[c], st.fz[c]);
}

// Corner q of component c of a station, copied from the velocity of the block in `slot` into the
// station's samples [3][8] (corners of other slots are left alone): what a record task on another
// rank interpolates instead of the block's array.
ONDES_HD inline void sample_corner(const StationPoint& st, int c, int q, int slot, const float* v, int64_t cells,
                                   float* samples) {
  if (st.slot[c][q] == slot) samples[c * 8 + q] = v[c * cells + st.idx[c][q]];
}

}  // namespace ondes

namespace ondes::cpu {
// traces[station][component][step] from the velocity buffers of the stations' blocks.
void record(const StationBlocks& blocks, const StationPoint* st, int64_t count, int step, int nsteps,
            float* traces);
// samples[station][3][8] = the corners of the stations that lie in the block of `slot`.
void sample_stations(const float* v, int64_t cells, const StationPoint* st, int64_t count, int slot, float* samples);
}  // namespace ondes::cpu

namespace ondes::cuda {
void record(const StationBlocks& blocks, const StationPoint* st, int64_t count, int step, int nsteps, float* traces,
            cudaStream_t stream);
void sample_stations(const float* v, int64_t cells, const StationPoint* st, int64_t count, int slot, float* samples,
                     cudaStream_t stream);
}  // namespace ondes::cuda

#ifdef ONDES_DEFINE_CPU_KERNELS
namespace ondes::cpu {

void record(const StationBlocks& blocks, const StationPoint* st, int64_t count, int step, int nsteps,
            float* traces) {
  for (int64_t q = 0; q < count; ++q)
    for (int c = 0; c < 3; ++c) traces[(q * 3 + c) * nsteps + step] = station_velocity(st[q], c, blocks);
}

void sample_stations(const float* v, int64_t cells, const StationPoint* st, int64_t count, int slot, float* samples) {
  for (int64_t p = 0; p < count; ++p)
    for (int c = 0; c < 3; ++c)
      for (int q = 0; q < 8; ++q) sample_corner(st[p], c, q, slot, v, cells, samples + p * kSampleFloats);
}

}  // namespace ondes::cpu
#endif

#ifdef ONDES_DEFINE_CUDA_KERNELS
namespace ondes::cuda {
namespace {

__global__ void record_kernel(StationBlocks blocks, const StationPoint* st, int64_t count, int step, int nsteps,
                              float* traces) {
  const int64_t t = thread_index();
  if (t >= count * 3) return;
  const int64_t q = t / 3;
  const int c = static_cast<int>(t % 3);
  traces[(q * 3 + c) * nsteps + step] = station_velocity(st[q], c, blocks);
}

__global__ void sample_kernel(const float* v, int64_t cells, const StationPoint* st, int64_t count, int slot,
                              float* samples) {
  const int64_t t = thread_index();
  if (t >= count * kSampleFloats) return;
  const int64_t p = t / kSampleFloats;
  const int cq = static_cast<int>(t % kSampleFloats);
  sample_corner(st[p], cq / 8, cq % 8, slot, v, cells, samples + p * kSampleFloats);
}

}  // namespace

void record(const StationBlocks& blocks, const StationPoint* st, int64_t count, int step, int nsteps, float* traces,
            cudaStream_t stream) {
  if (count <= 0) return;
  record_kernel<<<blocks_for(count * 3, 64), 64, 0, stream>>>(blocks, st, count, step, nsteps, traces);
  check_launch("record_kernel");
}

void sample_stations(const float* v, int64_t cells, const StationPoint* st, int64_t count, int slot, float* samples,
                     cudaStream_t stream) {
  if (count <= 0) return;
  sample_kernel<<<blocks_for(count * kSampleFloats, 96), 96, 0, stream>>>(v, cells, st, count, slot, samples);
  check_launch("sample_kernel");
}

}  // namespace ondes::cuda
#endif
