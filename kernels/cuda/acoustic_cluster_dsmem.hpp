// acoustic/oN/cluster_dsmem: the z-march of smem_regqueue (64x16 xy tile, z neighbours in a
// register queue, plane loads by cp.async into a 3-stage shared-memory ring two planes ahead),
// run in thread-block clusters of consecutive y tiles. Each block pushes the edge rows of its
// own tile into its cluster neighbours' rings through distributed shared memory, so a y halo
// is loaded from global memory only at cluster edges; one split cluster barrier per plane.
// Needs compute capability 9.0 (plain sm_90: barrier.cluster, mapa, st.shared::cluster).
#pragma once
#include <string>

#include "kernels/registry.hpp"

namespace seisfd {

template <int R>
void launch_acoustic_cluster_dsmem(const StepSpec& spec, const AcousticFields& f, void* stream);

std::string can_implement_acoustic_cluster_dsmem(const StepSpec& spec, int compute_capability);

}  // namespace seisfd
