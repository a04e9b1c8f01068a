#include "kernels/registry.hpp"

#include <algorithm>
#include <stdexcept>

namespace seisfd {

#if SEISFD_HAVE_CUDA
#define SEISFD_VARIANT_FILE(f) void register_##f(std::vector<KernelVariant>&);
#include "kernels/cuda/variants.def"
#undef SEISFD_VARIANT_FILE
#endif

namespace {

std::vector<KernelVariant> make_registry() {
  std::vector<KernelVariant> t;
#if SEISFD_HAVE_CUDA
  const RegisterFn files[] = {
#define SEISFD_VARIANT_FILE(f) &register_##f,
#include "kernels/cuda/variants.def"
#undef SEISFD_VARIANT_FILE
  };
  for (RegisterFn add : files) add(t);
#endif
  // Within a physics and order, preferred first (stable: a file's own order within a rank).
  std::stable_sort(t.begin(), t.end(), [](const KernelVariant& a, const KernelVariant& b) {
    if (a.physics != b.physics) return a.physics < b.physics;
    if (a.order != b.order) return a.order < b.order;
    return a.preference < b.preference;
  });
  return t;
}

}  // namespace

const std::vector<KernelVariant>& kernel_registry() {
  static const std::vector<KernelVariant> table = make_registry();
  return table;
}

const KernelVariant* find_variant(const std::string& name) {
  for (const auto& v : kernel_registry())
    if (v.name == name) return &v;
  return nullptr;
}

const KernelVariant& resolve_variant(const std::string& requested, Physics physics, int order,
                                     const StepSpec& spec, int cc) {
  if (kernel_registry().empty())
    throw std::invalid_argument(
        "kernel.variant: this build has no CUDA kernels (built without CUDA)");
  if (requested != "auto") {
    const KernelVariant* v = find_variant(requested);
    if (!v)
      throw std::invalid_argument("kernel.variant: unknown variant '" + requested +
                                  "' (see `seisfd kernels`)");
    if (v->physics != physics || v->order != order)
      throw std::invalid_argument("kernel.variant: '" + requested + "' is for " +
                                  to_string(v->physics) + " order " + std::to_string(v->order) +
                                  ", the run needs " + to_string(physics) + " order " +
                                  std::to_string(order));
    if (cc < v->min_compute_capability)
      throw std::invalid_argument("kernel.variant: '" + requested + "' needs compute capability " +
                                  std::to_string(v->min_compute_capability) + ", device has " +
                                  std::to_string(cc));
    const std::string why = v->can_implement(spec, cc);
    if (!why.empty()) throw std::invalid_argument("kernel.variant: '" + requested + "': " + why);
    return *v;
  }
  const auto candidates = runnable_variants(physics, order, spec, cc);
  if (candidates.empty())
    throw std::invalid_argument("kernel.variant: no registered variant runs " +
                                std::string(to_string(physics)) + " order " +
                                std::to_string(order) + " on this device");
  return *candidates.front();
}

std::vector<const KernelVariant*> runnable_variants(Physics physics, int order,
                                                    const StepSpec& spec, int cc) {
  std::vector<const KernelVariant*> out;
  for (const auto& v : kernel_registry())
    if (v.physics == physics && v.order == order && cc >= v.min_compute_capability &&
        v.can_implement(spec, cc).empty())
      out.push_back(&v);
  return out;
}

}  // namespace seisfd
