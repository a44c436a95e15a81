// The buffers a window of iterations (tasks/chain.hpp) takes first, as its task describes them and
// its entry finds them.
#pragma once
#include "tasks/compute.hpp"

namespace ondes {

// The buffers a window takes first: velocity (RW), stress (RW), material (R), PML memory (RW) if
// any, the anelastic buffer (RW) if any, the force sources (compute.hpp source_buffers) if any,
// the moment ones if any.
struct IterationBuffers {
  float* v = nullptr;
  float* s = nullptr;
  const float* mat = nullptr;
  char* pml = nullptr;
  char* anelastic = nullptr;
  compute_task::SourceBuffers force, moment;
  int next = 3;  // the index of the task's next buffer
  static constexpr int kMax = 5 + 2 * compute_task::SourceBuffers::kCount;  // describe's most

  IterationBuffers(void* buffers[], const ComputeArgs& velocity, const ComputeArgs& stress)
      : v(vector_data<float>(buffers[0])), s(vector_data<float>(buffers[1])), mat(vector_data<float>(buffers[2])) {
    if (velocity.has_pml) pml = vector_data<char>(buffers[next++]);
    if (stress.anelastic.mechanisms) anelastic = vector_data<char>(buffers[next++]);
    using compute_task::SourceBuffers;
    if (velocity.has_source) force = SourceBuffers::at(buffers, next), next += SourceBuffers::kCount;
    if (stress.has_source) moment = SourceBuffers::at(buffers, next), next += SourceBuffers::kCount;
  }
  // The descriptors of those buffers of block b into d; returns their count.
  static int describe(const BlockData& b, const ComputeArgs& velocity, const ComputeArgs& stress,
                      starpu_data_descr* d) {
    int k = 0;
    d[k++] = {b.h_velocity, STARPU_RW};
    d[k++] = {b.h_stress, STARPU_RW};
    d[k++] = {b.h_material, STARPU_R};
    if (velocity.has_pml) d[k++] = {b.h_pml, STARPU_RW};
    if (stress.anelastic.mechanisms) d[k++] = {b.h_anelastic, STARPU_RW};
    if (velocity.has_source) k += source_buffers(b, true, d + k);
    if (stress.has_source) k += source_buffers(b, false, d + k);
    return k;
  }
};

}  // namespace ondes
