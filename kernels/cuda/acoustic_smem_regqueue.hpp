// acoustic/oN/smem_regqueue: z-marching (Micikevicius 2009). A block owns an xy tile and walks a
// chunk of z planes; the centre plane with its xy halo sits in shared memory, the 2R+1 z values
// of the thread's own cells sit in a register queue, and one new plane is loaded per z step.
// Default: the loads (halo, own cells of cur at z+R, prev, (v dt)^2) go by 16-byte cp.async into
// a 3-stage shared-memory ring two planes ahead; register-staged configurations remain for
// comparison (SEISFD_SMEM_REGQUEUE_CONFIG, see the .cu and bench/NOTES.md).
#pragma once
#include <string>

#include "kernels/registry.hpp"

namespace seisfd {

template <int R>
void launch_acoustic_smem_regqueue(const StepSpec& spec, const AcousticFields& f, void* stream);

std::string can_implement_acoustic_smem_regqueue(const StepSpec& spec, int compute_capability);

}  // namespace seisfd
