// seisfd-sweep: times every policy of one technique's kernels (kernels/cuda/tuning.hpp) on the
// bench cube, one line per configuration, so that a default there can be re-measured and
// changed. The acoustic techniques, and tti smem_nested (the nested TTI operator). The production
// library compiles only the defaults; the alternatives are compiled here, each launched through a
// copy of the registry entry whose `forward` is the alternative launch, and timed by the same
// cuda::time_update the registry's "auto" uses.
//   seisfd-sweep --technique smem_regqueue --order 8 --size 512 [--steps 20 --repeats 7]
//   seisfd-sweep --technique smem_nested --order 8
#include <cuda_runtime.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <string>
#include <type_traits>
#include <vector>

#include "bench/harness/harness.hpp"
#include "kernels/cuda/acoustic_cluster_dsmem.cuh"
#include "kernels/cuda/acoustic_shfl_regqueue.cuh"
#include "kernels/cuda/acoustic_smem_regqueue.cuh"
#include "kernels/cuda/acoustic_tma_ring.cuh"
#include "kernels/cuda/check.hpp"
#include "kernels/cuda/register_helpers.hpp"
#include "kernels/cuda/timing.hpp"
#include "kernels/cuda/tti_smem_nested.cuh"
#include "kernels/cuda/tuning.hpp"
#include "kernels/registry.hpp"

namespace seisfd::sweep {
namespace {

namespace tn = cuda::tuning;

// One configuration at the radius being swept: its launch, or null with the reason it is not
// compiled for that radius.
struct Config {
  std::string label;
  LaunchFn launch = nullptr;
  std::string not_compiled;
  bool is_default = false;
};

template <class P, class Default>
Config compiled(const char* label, LaunchFn launch) {
  return {label, launch, "", std::is_same_v<P, Default>};
}

template <int R, class P>
Config smem_regqueue(const char* label) {
  if constexpr (R <= P::kMaxRadius)
    return compiled<P, tn::SmemRegqueueDefault<R>>(label, &cuda::smem_regqueue::launch<R, P>);
  else
    return {label, nullptr, "3 blocks per SM cap the registers at 80: orders <= 8 only"};
}

template <int R, class P>
Config shfl_regqueue(const char* label) {
  return compiled<P, tn::ShflRegqueueDefault<R>>(label, &cuda::shfl_regqueue::launch<R, P>);
}

template <int R, class P>
Config tma_ring(const char* label) {
  if constexpr (cuda::tma_ring::kFits<R, P>) {
    return compiled<P, tn::TmaRingDefault<R>>(label, &cuda::tma_ring::launch<R, P>);
  } else {
    const size_t smem = cuda::tma_ring::ring_smem(R, P::kTileRows, P::kSplit, P::kAhead);
    return {label, nullptr,
            std::to_string(smem) + " B of shared memory x " + std::to_string(P::kMinBlocks) +
                " blocks per SM do not fit, or the queue would spill"};
  }
}

template <int R, class P>
Config cluster_dsmem(const char* label) {
  return compiled<P, tn::ClusterDsmemDefault<R>>(label, &cuda::cluster_dsmem::launch<R, P>);
}

template <int R, class P>
Config tti_nested(const char* label) {
  if constexpr (cuda::tti_nested::kFits<R, P>)
    return compiled<P, tn::TtiNestedDefault<R>>(label, &cuda::tti_nested::launch<R, P, false>);
  else if constexpr (R % 2 != 0)
    return {label, nullptr, "orders 4, 8, 12 and 16 only"};
  else if constexpr (!cuda::tti_nested::kHaloFits<R, P>)
    return {label, nullptr, "the halo tasks need more threads than the tile has"};
  else
    return {label, nullptr, "3 blocks per SM cap the registers at 85: orders <= 8 only"};
}

// The configurations of `technique` at radius R; the labels are those of bench/NOTES.md.
template <int R>
std::vector<Config> configs_at(const std::string& technique) {
  if (technique == "smem_regqueue")
    return {smem_regqueue<R, tn::SmemRegqueueA0B3>("a0b3"),
            smem_regqueue<R, tn::SmemRegqueueA0B2>("a0b2"),
            smem_regqueue<R, tn::SmemRegqueueA1B2>("a1b2"),
            smem_regqueue<R, tn::SmemRegqueueAsync3>("async3"),
            smem_regqueue<R, tn::SmemRegqueueAsync2>("async2")};
  if (technique == "shfl_regqueue")
    return {shfl_regqueue<R, tn::ShflRegqueueY16B1>("y16b1"),
            shfl_regqueue<R, tn::ShflRegqueueY8B2>("y8b2")};
  if (technique == "tma_ring")
    return {tma_ring<R, tn::TmaRingT16B3>("t16b3"),
            tma_ring<R, tn::TmaRingT16B2>("t16b2"),
            tma_ring<R, tn::TmaRingT32B1>("t32b1"),
            tma_ring<R, tn::TmaRingT32B2>("t32b2"),
            tma_ring<R, tn::TmaRingT16B3A3>("t16b3a3"),
            tma_ring<R, tn::TmaRingT16B2A3>("t16b2a3"),
            tma_ring<R, tn::TmaRingT32B1A3>("t32b1a3"),
            tma_ring<R, tn::TmaRingS16B3>("s16b3"),
            tma_ring<R, tn::TmaRingS16B2>("s16b2"),
            tma_ring<R, tn::TmaRingS32B1>("s32b1"),
            tma_ring<R, tn::TmaRingT32B1L2None>("t32b1 l2=none"),
            tma_ring<R, tn::TmaRingT32B1L2x64>("t32b1 l2=64"),
            tma_ring<R, tn::TmaRingT32B1L2x128>("t32b1 l2=128")};
  if (technique == "cluster_dsmem")
    return {cluster_dsmem<R, tn::ClusterDsmemC1>("c1"),
            cluster_dsmem<R, tn::ClusterDsmemC2>("c2"),
            cluster_dsmem<R, tn::ClusterDsmemC4>("c4"),
            cluster_dsmem<R, tn::ClusterDsmemC8>("c8"),
            cluster_dsmem<R, tn::ClusterDsmemC2St>("c2 st"),
            cluster_dsmem<R, tn::ClusterDsmemC4St>("c4 st")};
  if (technique == "smem_nested")
    return {tti_nested<R, tn::TtiNestedY8B2P1>("y8b2p1"),
            tti_nested<R, tn::TtiNestedY8B2P2>("y8b2p2"),
            tti_nested<R, tn::TtiNestedY8B3P2>("y8b3p2"),
            tti_nested<R, tn::TtiNestedY16B1P1>("y16b1p1"),
            tti_nested<R, tn::TtiNestedY16B1P2>("y16b1p2"),
            tti_nested<R, tn::TtiNestedY8B2P2Q>("y8b2p2q"),
            tti_nested<R, tn::TtiNestedY16B1P2Q>("y16b1p2q")};
  throw CLI::ValidationError("--technique", "'" + technique +
                                                "' has no policies to sweep (smem_regqueue, "
                                                "shfl_regqueue, tma_ring, cluster_dsmem, "
                                                "smem_nested)");
}

std::vector<Config> configs(const std::string& technique, int order) {
  std::vector<Config> out;
  bool found = false;
  cuda::for_each_radius([&](auto r) {
    constexpr int R = decltype(r)::value;
    if (2 * R != order) return;
    out = configs_at<R>(technique);
    found = true;
  });
  if (!found)
    throw CLI::ValidationError("--order", "must be even, 2.." + std::to_string(2 * kMaxRadius));
  return out;
}

// As `seisfd bench` (app/bench.cpp): fp32 against the fp32 reference after 3 launches.
constexpr double kVerifyTolerance = 1e-5;

struct Options {
  std::string technique;
  int order = 8;
  int size = 512;
  int sponge = 20;
  int steps = 20;
  int repeats = 7;
  int warmup = 3;
  int device = 0;
  bool zero_fields = false;
};

int run(const Options& o) {
  const std::vector<Config> list = configs(o.technique, o.order);
  // smem_nested: the nested TTI operator's kernels; the others acoustic.
  const bool tti = o.technique == "smem_nested";
  const auto cube = [&](int size, int sponge) {
    StepSpec s = bench::make_cube_spec(size, sponge, o.order / 2);
    if (tti) s.tti_operator = TtiOperator::kNested;
    return s;
  };
  const StepSpec spec = cube(o.size, o.sponge);
  const std::string name =
      std::string(tti ? "tti" : "acoustic") + "/o" + std::to_string(o.order) + "/" + o.technique;
  const KernelVariant* base = find_variant(name);
  if (!base) {
    std::fprintf(stderr, "seisfd-sweep: %s is not in this build's registry\n", name.c_str());
    return 1;
  }
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, o.device));
  const int cc = 10 * prop.major + prop.minor;
  std::string why = cc < base->min_compute_capability
                        ? "needs compute capability " + std::to_string(base->min_compute_capability)
                        : base->can_implement(spec, cc);
  if (!why.empty()) {
    std::fprintf(stderr, "seisfd-sweep: %s cannot run here: %s\n", name.c_str(), why.c_str());
    return 1;
  }
  const double cells = static_cast<double>(spec.layout.cells());
  std::printf(
      "# %s on %s (device %d): %d^3 + sponge %d = %d^3 cells, %s fields, median of %d x "
      "%d launches after %d; * = the library's policy\n",
      name.c_str(), prop.name, o.device, o.size, o.sponge, spec.layout.nz,
      o.zero_fields ? "zero" : "hashed", o.repeats, o.steps, o.warmup);
  const ExecContext ctx{o.device, nullptr};
  for (const Config& c : list) {
    const std::string label = c.label + (c.is_default ? " *" : "");
    if (!c.launch) {
      std::printf("%-16s not compiled for order %d: %s\n", label.c_str(), o.order,
                  c.not_compiled.c_str());
      continue;
    }
    KernelVariant v = *base;
    v.forward = c.launch;
    try {
      // Verified against the CPU reference first, as `seisfd bench` does with the registry's.
      const bench::VerifyResult ok = bench::verify_variant(v, cube(37, 5), 3, 7, kVerifyTolerance);
      if (!ok.ok) {
        std::printf("%-16s verification failed, not timed: %s\n", label.c_str(),
                    ok.message.c_str());
        continue;
      }
      const cuda::Timing t =
          cuda::time_update(v, spec, o.steps, o.repeats, o.warmup, o.zero_fields, ctx);
      std::printf("%-16s %8.1f Gcells/s  %8.4f ms/step  verify %.1e\n", label.c_str(),
                  cells / (t.median_ms * 1e-3) * 1e-9, t.median_ms, ok.rel_l2);
    } catch (const std::exception& e) {
      // A configuration the device refuses (a cluster that does not fit) is a result too.
      std::printf("%-16s failed: %s\n", label.c_str(), e.what());
    }
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace
}  // namespace seisfd::sweep

int main(int argc, char** argv) {
  seisfd::sweep::Options o;
  CLI::App app{"Times every tuning policy of one kernel technique (kernels/cuda/tuning.hpp)"};
  app.add_option("--technique", o.technique,
                 "smem_regqueue, shfl_regqueue, tma_ring, cluster_dsmem (acoustic) or "
                 "smem_nested (TTI, nested operator)")
      ->required();
  app.add_option("--order", o.order, "space order 2..16 (even)")->capture_default_str();
  app.add_option("--size", o.size, "interior cells per axis")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--sponge", o.sponge, "sponge cells on each face")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--steps", o.steps, "launches per timed repeat")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--repeats", o.repeats, "timed repeats (the median is reported)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--warmup", o.warmup, "untimed launches first")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--device", o.device, "CUDA device")->capture_default_str();
  app.add_flag("--zero-fields", o.zero_fields,
               "all-zero wavefields (ahead of a wavefront; some variants run at another speed)");
  CLI11_PARSE(app, argc, argv);
  try {
    return seisfd::sweep::run(o);
  } catch (const CLI::Error& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "seisfd-sweep: %s\n", e.what());
    return 1;
  }
}
