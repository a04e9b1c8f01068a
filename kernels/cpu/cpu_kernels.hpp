// The register-queue CPU kernels, compiled in their own file (cpu_kernels.cpp) with FMA
// contraction on: the rest of the CPU backend, the reference included, keeps the build's
// -ffp-contract=off (CMakeLists.txt), so the reference computes the same values for every
// instruction set, and these kernels differ from it by rounding only.
#pragma once
#include "kernels/cpu/zmarch.hpp"
#include "kernels/reference/anisotropic.hpp"

namespace seisfd::cpu {

// kernels/cpu/acoustic_regqueue.hpp
template <class T>
void acoustic_regqueue(const StepSpec& s, RowDamping<T>& damping, const T* prev, const T* cur,
                       T* next, const T* vdt2);

// kernels/cpu/tti_simd.hpp
template <class T>
void tti_simd(const StepSpec& s, RowDamping<T>& damping, const reference::AnisoWeights<T>& weights,
              const reference::MediumCoefs<T>& c, bool adjoint, const T* X, const T* Y, const T* pc,
              const T* qc, T* pn, T* qn);

// kernels/cpu/vti_simd.hpp
template <class T>
void vti_simd(const StepSpec& s, RowDamping<T>& damping, const reference::AnisoWeights<T>& weights,
              const reference::MediumCoefs<T>& c, bool adjoint, const T* X, const T* Y, const T* pc,
              const T* qc, T* pn, T* qn);

}  // namespace seisfd::cpu
