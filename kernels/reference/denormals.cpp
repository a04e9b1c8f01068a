#include "kernels/reference/denormals.hpp"

#include <omp.h>

namespace seisfd::reference {

FlushDenormals::FlushDenormals() {
  // One parallel region sets the mode on each thread the engine's loops will use: OpenMP keeps
  // its pool, so the same threads run the next regions of the call.
#pragma omp parallel
  {
    const int t = omp_get_thread_num();
    if (t < kMaxThreads) {
      saved_[t] = fp_mode();
      set_fp_mode(with_flush(saved_[t]));
    }
#pragma omp single
    threads_ = omp_get_num_threads();
  }
}

FlushDenormals::~FlushDenormals() {
#pragma omp parallel num_threads(threads_)
  {
    const int t = omp_get_thread_num();
    if (t < kMaxThreads) set_fp_mode(saved_[t]);
  }
}

}  // namespace seisfd::reference
