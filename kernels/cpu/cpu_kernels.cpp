#include "kernels/cpu/cpu_kernels.hpp"

#include "kernels/cpu/acoustic_regqueue.hpp"
#include "kernels/cpu/tti_simd.hpp"
#include "kernels/cpu/vti_simd.hpp"

namespace seisfd::cpu {

template void acoustic_regqueue<float>(const StepSpec&, RowDamping<float>&, const float*,
                                       const float*, float*, const float*);
template void acoustic_regqueue<double>(const StepSpec&, RowDamping<double>&, const double*,
                                        const double*, double*, const double*);

template void tti_simd<float>(const StepSpec&, RowDamping<float>&,
                              const reference::AnisoWeights<float>&,
                              const reference::MediumCoefs<float>&, bool, const float*,
                              const float*, const float*, const float*, float*, float*);
template void tti_simd<double>(const StepSpec&, RowDamping<double>&,
                               const reference::AnisoWeights<double>&,
                               const reference::MediumCoefs<double>&, bool, const double*,
                               const double*, const double*, const double*, double*, double*);

template void vti_simd<float>(const StepSpec&, RowDamping<float>&,
                              const reference::AnisoWeights<float>&,
                              const reference::MediumCoefs<float>&, bool, const float*,
                              const float*, const float*, const float*, float*, float*);
template void vti_simd<double>(const StepSpec&, RowDamping<double>&,
                               const reference::AnisoWeights<double>&,
                               const reference::MediumCoefs<double>&, bool, const double*,
                               const double*, const double*, const double*, double*, double*);

}  // namespace seisfd::cpu
