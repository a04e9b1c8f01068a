#include "kernels/cpu/cpu_variants.hpp"

#include <stdexcept>

namespace seisfd::cpu {

const std::vector<CpuVariant>& cpu_variants() {
  static const std::vector<CpuVariant> table = [] {
    std::vector<CpuVariant> t;
    for (Physics p : {Physics::kAcoustic, Physics::kVti, Physics::kTti})
      for (int order = 2; order <= 16; order += 2) {
        const std::string base = std::string(to_string(p)) + "/o" + std::to_string(order) + "/";
        if (p == Physics::kAcoustic)
          t.push_back({base + "regqueue", p, order, Technique::kRegQueue, "regqueue",
                       "explicit vectors, z register queue over 2 planes, x neighbours "
                       "by lane shifts, damping from row tables, prefetched z-march"});
        if (p == Physics::kVti)
          t.push_back({base + "simd", p, order, Technique::kSimd, "simd",
                       "explicit vectors, z register queue of q over 2 planes, x "
                       "neighbours of p by lane shifts, damping from row tables, prefetched "
                       "z-march"});
        if (p == Physics::kTti)
          t.push_back({base + "simd", p, order, Technique::kSimd, "simd",
                       "explicit vectors in both passes, intermediates only where read "
                       "(no bounds checks), H_z of p and q together, y blocks through z"});
        t.push_back({base + "blocked", p, order, Technique::kBlocked, "blocked",
                     p == Physics::kTti
                         ? "cross intermediates, then the update: vectorised rows, y blocks "
                           "marched through z runs, sponge cells apart"
                         : "vectorised rows, y blocks marched through z runs, "
                           "sponge cells apart"});
        t.push_back({base + "reference", p, order, Technique::kReference, "reference",
                     "the readable reference update (what the other kernels are checked against)"});
      }
    return t;
  }();
  return table;
}

const CpuVariant& resolve_cpu_variant(const std::string& requested, Physics physics, int order,
                                      TtiOperator tti_operator) {
  const std::string prefix = std::string(to_string(physics)) + "/o" + std::to_string(order) + "/";
  const bool nested = physics == Physics::kTti && tti_operator == TtiOperator::kNested;
  for (const CpuVariant& v : cpu_variants()) {
    if (v.physics != physics || v.order != order) continue;
    if (requested != "auto" && requested != v.name && requested != v.technique_name) continue;
    if (nested && v.technique == Technique::kBlocked)
      throw std::invalid_argument("variant '" + v.name +
                                  "' does not implement physics.tti_operator = \"nested\" (simd "
                                  "and reference do)");
    return v;
  }
  for (const CpuVariant& v : cpu_variants())
    if (requested == v.name || requested == v.technique_name)
      throw std::invalid_argument("variant '" + requested + "' does not fit this run (" + prefix +
                                  "*)");
  throw std::invalid_argument(
      "unknown CPU variant '" + requested +
      "' (see `seisfd kernels`; on the CPU: auto, reference, blocked, regqueue, simd)");
}

}  // namespace seisfd::cpu
