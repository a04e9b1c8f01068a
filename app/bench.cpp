#include "app/bench.hpp"

#include <fnmatch.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>

#include "app/bench_report.hpp"
#include "kernels/cuda_backend.hpp"
#include "bench/harness/cpu_harness.hpp"
#include "bench/harness/harness.hpp"
#include "kernels/cpu/cpu_variants.hpp"
#include "kernels/registry.hpp"
#include "solver/parallel.hpp"

namespace seisfd::app {
std::string slug(const std::string& s) {
  std::string o;
  for (char c : s) o += std::isalnum(static_cast<unsigned char>(c)) ? std::tolower(c) : '-';
  return o;
}

std::string now_stamp() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d_%H%M%S", std::localtime(&t));
  return buf;
}

namespace {

// A variant (its full name and its technique) against --variants: a pattern without '/' is
// matched to the technique.
bool matches(const std::string& name, const std::string& technique,
             const std::vector<std::string>& patterns) {
  for (const auto& p : patterns) {
    const std::string& subject = p.find('/') == std::string::npos ? technique : name;
    if (fnmatch(p.c_str(), subject.c_str(), 0) == 0) return true;
  }
  return false;
}

// Each variant with fp32, and each that reads a compact medium with the other precisions asked.
std::vector<std::pair<const KernelVariant*, ModelPrecision>> with_models(
    const std::vector<const KernelVariant*>& sel, const std::vector<std::string>& names) {
  std::vector<std::pair<const KernelVariant*, ModelPrecision>> out;
  for (const KernelVariant* v : sel)
    for (const std::string& n : names) {
      const ModelPrecision p = *parse_model_precision(n);
      if (p == ModelPrecision::kFp32 || v->reads_compact_medium) out.emplace_back(v, p);
    }
  return out;
}

// TTI rows with --tti-operator nested: their spec and their label.
bool nested_rows(Physics physics, const BenchArgs& a) {
  return physics == Physics::kTti && a.tti_operator == "nested";
}

StepSpec with_operator(StepSpec s, Physics physics, const BenchArgs& a) {
  if (nested_rows(physics, a)) s.tti_operator = TtiOperator::kNested;
  return s;
}

std::string physics_label(Physics physics, const BenchArgs& a) {
  return nested_rows(physics, a) ? "tti/nested" : to_string(physics);
}

// The CPU backend's variants: verified against the reference, then timed against the CPU's
// streaming ceiling of the same pattern (bench/harness/cpu_harness.hpp).
int cmd_bench_cpu(const BenchArgs& a) {
  if (a.imaging) {
    std::fprintf(stderr,
                 "seisfd: error: --imaging: the CPU backend has no fused imaging to time\n");
    return 2;
  }
  try {
    const bench::DeviceSummary dev = bench::current_cpu();
    std::vector<const cpu::CpuVariant*> sel;
    for (const auto& v : cpu::cpu_variants()) {
      if (std::find(a.physics.begin(), a.physics.end(), to_string(v.physics)) != a.physics.end() &&
          matches(v.name, v.technique_name, a.variants) &&
          std::find(a.orders.begin(), a.orders.end(), v.order) != a.orders.end())
        sel.push_back(&v);
    }
    if (sel.empty()) {
      std::fprintf(stderr,
                   "seisfd: error: --variants/--orders select no CPU variant (see `seisfd "
                   "kernels`)\n");
      return 2;
    }
    const std::string stamp = now_stamp();
    std::vector<BenchRow> rows;
    bool any_failed = false;
    for (int n : a.sizes)
      for (int order : a.orders)
        for (const std::string& physics_name : a.physics) {
          const Physics physics = *parse_physics(physics_name);
          const StepSpec spec =
              with_operator(bench::make_cube_spec(n, a.sponge, order / 2), physics, a);
          BenchRow base;
          base.size = n;
          base.order = order;
          base.physics = physics_label(physics, a);
          base.cells = spec.layout.cells();
          const double bytes = traits(physics).min_bytes_per_cell;
          bool have = false;
          for (const cpu::CpuVariant* v : sel) {
            if (v->order != order || v->physics != physics) continue;
            if (!have) {
              const bench::Timing ceil =
                  bench::time_cpu_stream_ceiling(spec, physics, a.steps, a.repeats, a.warmup);
              base.ceiling_gcells = base.cells / (ceil.median_ms * 1e-3) / 1e9;
              std::fprintf(stderr,
                           "seisfd bench: %d^3 + sponge %d, order %d, %s: %lld cells, CPU "
                           "streaming ceiling %.2f Gcells/s (%.1f GB/s at %.0f B/cell)\n",
                           n, a.sponge, order, physics_name.c_str(), base.cells,
                           base.ceiling_gcells, base.ceiling_gcells * bytes, bytes);
              have = true;
            }
            BenchRow r = base;
            r.variant = v->name;
            r.technique = v->technique_name;
            try {  // the variant runs this spec's operator
              cpu::resolve_cpu_variant(v->name, physics, order, spec.tti_operator);
            } catch (const std::invalid_argument& e) {
              r.status = std::string("refused: ") + e.what();
              rows.push_back(r);
              continue;
            }
            const StepSpec vs =
                with_operator(bench::make_cube_spec(a.verify_size, 5, order / 2, 10.0), physics, a);
            const bench::VerifyResult ver =
                bench::verify_cpu_variant(*v, vs, 10 * kVerifySteps, 7, kVerifyTol);
            r.verify_err = ver.rel_l2;
            if (!ver.ok) {
              r.status = "verification failed, not timed: " + ver.message;
              any_failed = true;
              rows.push_back(r);
              continue;
            }
            const bench::Timing t = bench::time_cpu_variant(*v, spec, a.steps, a.repeats, a.warmup);
            r.ms_per_step = t.median_ms;
            r.gcells = r.cells / (t.median_ms * 1e-3) / 1e9;
            r.gbps = r.gcells * bytes;
            r.fraction = r.gcells / r.ceiling_gcells;
            const auto mm = std::minmax_element(t.ms_per_step.begin(), t.ms_per_step.end());
            r.spread = (*mm.second - *mm.first) / t.median_ms;
            std::fprintf(stderr, "seisfd bench:   %-28s %8.3f Gcells/s  %.3f of the ceiling\n",
                         v->name.c_str(), r.gcells, r.fraction);
            rows.push_back(r);
          }
        }
    print_table(rows, dev);
    if (!a.no_files) write_files(rows, dev, a, stamp);
    return any_failed ? 4 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "seisfd: error: %s\n", e.what());
    return 1;
  }
}

}  // namespace

CLI::App* add_bench_command(CLI::App& app, BenchArgs& a) {
  auto* b = app.add_subcommand(
      "bench",
      "Time GPU kernel variants: verify each against the CPU reference, then report Gcells/s, "
      "GB/s and the fraction of the streaming ceiling measured in the same run");
  b->add_option("--variants", a.variants,
                "Variant names or globs, comma-separated; a pattern without '/' matches the "
                "technique (e.g. smem_regqueue,naive or 'acoustic/o8/*')")
      ->delimiter(',');
  b->add_option("--physics", a.physics,
                "Physics, comma-separated: acoustic, vti, tti (each against the streaming "
                "ceiling of its own access pattern)")
      ->delimiter(',')
      ->check(CLI::IsMember({"acoustic", "vti", "tti"}));
  b->add_option("--orders", a.orders, "Space orders, comma-separated (2..16, even)")
      ->delimiter(',')
      ->check(CLI::Range(2, 16));
  b->add_option("--sizes", a.sizes, "Interior cells per axis, comma-separated (e.g. 128,256,512)")
      ->delimiter(',')
      ->check(CLI::Range(8, 4096));
  b->add_option("--sponge", a.sponge, "Sponge cells on each face")->check(CLI::Range(0, 200));
  b->add_option("--steps", a.steps, "Launches per timed repeat")->check(CLI::Range(1, 100000));
  b->add_option("--repeats", a.repeats, "Timed repeats (median reported; at least 5)")
      ->check(CLI::Range(5, 1000));
  b->add_option("--warmup", a.warmup, "Untimed launches before timing")->check(CLI::Range(0, 1000));
  b->add_option("--verify-size", a.verify_size,
                "Interior cells per axis of the grid each variant is verified on first")
      ->check(CLI::Range(8, 256));
  b->add_option("--fields", a.fields,
                "Acoustic wavefields while timing: hash (values everywhere, default) or zero "
                "(ahead of the wavefront, as a run from a point source starts)")
      ->check(CLI::IsMember({"hash", "zero"}));
  b->add_flag("--imaging", a.imaging,
              "Also time each variant's adjoint step with a migration's imaging: fused into the "
              "update (cross-correlation; and illumination and zero-lag) and as separate passes");
  b->add_option("--backend", a.backend,
                "cuda (the GPU registry), cpu (the CPU backend's variants, on the threads "
                "OMP_NUM_THREADS gives), or auto (cuda where a device is found)")
      ->check(CLI::IsMember({"auto", "cuda", "cpu"}));
  b->add_option("--out", a.out, "Directory for the CSV and JSON results");
  b->add_option("--scaling", a.scaling,
                "Under mpirun: whole runs on 1, 2, 4, ... and all the launch's ranks instead of "
                "kernels: weak (--sizes cells a side per rank, side by side in x) or strong "
                "(one grid of size x size x 2 size); --steps steps each; a CSV of Gcells/s, "
                "exchange and decomposition per run")
      ->check(CLI::IsMember({"weak", "strong"}));
  b->add_flag("--peer", a.peer,
              "Instead of kernels: the copy bandwidth of each visible GPU and between each pair "
              "(one way and both ways at once, and whether they reach each other directly)");
  b->add_flag("--no-files", a.no_files, "Print the table only");
  b->add_option("--tti-operator", a.tti_operator,
                "physics.tti_operator of the TTI rows: narrow (the default) or nested (half the "
                "order in nested first derivatives; orders 4, 8, 12, 16; rows say tti/nested)")
      ->check(CLI::IsMember({"narrow", "nested"}));
  b->add_option("--model-precision", a.model_precisions,
                "Medium storage of the VTI/TTI variants that read it compactly, comma-separated "
                "(fp32, fp16, bf16, fixed16): rows <variant>@<precision>, against the fp32 "
                "pattern's ceiling")
      ->delimiter(',')
      ->check(CLI::IsMember({"fp32", "fp16", "bf16", "fixed16"}));
  return b;
}

int cmd_bench(const BenchArgs& a) {
  if (!a.scaling.empty()) return cmd_bench_scaling(a);
  if (a.peer) return cmd_bench_peer(a);
  if (const int ranks = parallel::Comm::world().size(); ranks > 1) {
    if (parallel::Comm::world().root())
      std::fprintf(stderr,
                   "seisfd: error: seisfd bench times kernels on one rank (this launch has %d); "
                   "whole runs over ranks: seisfd bench --scaling weak|strong\n",
                   ranks);
    return 2;
  }
  for (int o : a.orders)
    if (o % 2) {
      std::fprintf(stderr, "seisfd: error: --orders: %d is not even\n", o);
      return 2;
    }
  if (a.backend == "cpu" || (a.backend == "auto" && (!cuda_built() || cuda_devices().empty())))
    return cmd_bench_cpu(a);
  if (!cuda_built()) {
    std::fprintf(stderr,
                 "seisfd: error: bench needs the CUDA backend; this seisfd was built "
                 "without CUDA (SEISFD_CUDA=OFF)\n");
    return 1;
  }
  if (cuda_devices().empty()) {
    std::fprintf(stderr, "seisfd: error: bench needs a CUDA device and none was found\n");
    return 1;
  }
  try {
    const bench::DeviceSummary dev = bench::current_device();
    std::vector<const KernelVariant*> sel;
    for (const auto& v : kernel_registry())
      if (std::find(a.physics.begin(), a.physics.end(), to_string(v.physics)) != a.physics.end() &&
          matches(v.name, v.technique, a.variants) &&
          std::find(a.orders.begin(), a.orders.end(), v.order) != a.orders.end())
        sel.push_back(&v);
    if (sel.empty()) {
      std::fprintf(stderr,
                   "seisfd: error: --variants/--orders select no registered variant "
                   "(see `seisfd kernels`)\n");
      return 2;
    }
    const std::string stamp = now_stamp();
    std::vector<BenchRow> rows;
    std::map<std::string, bench::VerifyResult> verified;
    bool any_failed = false;
    for (int n : a.sizes) {
      for (int order : a.orders) {
        const int R = order / 2;
        const StepSpec cube = bench::make_cube_spec(n, a.sponge, R);
        const long long cells = cube.layout.cells();
        for (const std::string& physics_name : a.physics) {
          const Physics physics = *parse_physics(physics_name);
          const StepSpec spec = with_operator(cube, physics, a);
          if (std::none_of(sel.begin(), sel.end(), [&](const KernelVariant* v) {
                return v->physics == physics && v->order == order;
              }))
            continue;
          // What the largest variant of this physics allocates (TTI naive: 16 arrays).
          const size_t need = cuda_engine_bytes(physics, spec) + cuda_state_bytes(physics, spec);
          const size_t free_now = bench::current_device().free_bytes;
          BenchRow base;
          base.size = n;
          base.order = order;
          base.physics = physics_label(physics, a);
          base.cells = cells;
          if (need > free_now) {
            base.variant = base.technique = "(all)";
            base.status = "skipped: needs " + std::to_string(need >> 20) + " MiB, " +
                          std::to_string(free_now >> 20) + " MiB free";
            rows.push_back(base);
            continue;
          }
          const double bytes = traits(physics).min_bytes_per_cell;
          const bench::Timing ceil =
              bench::time_stream_ceiling(spec, physics, a.steps, a.repeats, a.warmup);
          base.ceiling_gcells = cells / (ceil.median_ms * 1e-3) / 1e9;
          base.copy_gbps = bench::copy_bandwidth_gbps(static_cast<size_t>(cells) * 4, a.repeats);
          std::fprintf(stderr,
                       "seisfd bench: %d^3 + sponge %d, order %d, %s: %lld cells, streaming "
                       "ceiling %.1f Gcells/s (%.0f GB/s at %.0f B/cell), copy %.0f GB/s\n",
                       n, a.sponge, order, physics_name.c_str(), cells, base.ceiling_gcells,
                       base.ceiling_gcells * bytes, bytes, base.copy_gbps);
          for (const auto& [v, model] : with_models(sel, a.model_precisions)) {
            if (v->order != order || v->physics != physics) continue;
            const bool compact = model != ModelPrecision::kFp32;
            const std::string tag = compact ? std::string("@") + to_string(model) : "";
            BenchRow r = base;
            r.variant = v->name + tag;
            r.technique = v->technique + tag;
            if (dev.compute_capability < v->min_compute_capability) {
              r.status =
                  "refused: needs compute capability " + std::to_string(v->min_compute_capability);
              rows.push_back(r);
              continue;
            }
            const std::string why = v->can_implement(spec, dev.compute_capability);
            if (!why.empty()) {
              r.status = "refused: " + why;
              rows.push_back(r);
              continue;
            }
            auto it = verified.find(r.variant);
            if (it == verified.end()) {
              const StepSpec vs =
                  with_operator(bench::make_cube_spec(a.verify_size, 5, R, 10.0), physics, a);
              it = verified
                       .emplace(r.variant,
                                bench::verify_variant(*v, vs, kVerifySteps, 7, kVerifyTol, model))
                       .first;
            }
            r.verify_err = it->second.rel_l2;
            if (!it->second.ok) {
              r.status = "verification failed, not timed: " + it->second.message;
              any_failed = true;
              rows.push_back(r);
              std::fprintf(stderr, "seisfd bench: %s: %s\n", v->name.c_str(), r.status.c_str());
              continue;
            }
            const bench::Timing t = bench::time_variant(*v, spec, a.steps, a.repeats, a.warmup,
                                                        a.fields == "zero", model);
            r.ms_per_step = t.median_ms;
            r.gcells = cells / (t.median_ms * 1e-3) / 1e9;
            // Compact: the fields' bytes as fp32, the medium's 2 B a cell and array.
            const PhysicsTraits& pt = traits(physics);
            r.gbps = r.gcells *
                     (compact ? 12.0 * pt.fields + 2.0 * pt.medium_arrays : v->bytes_per_cell);
            r.fraction = r.gcells / r.ceiling_gcells;
            const auto mm = std::minmax_element(t.ms_per_step.begin(), t.ms_per_step.end());
            r.spread = (*mm.second - *mm.first) / t.median_ms;
            std::fprintf(stderr, "seisfd bench:   %-28s %8.1f Gcells/s  %.3f of the ceiling\n",
                         v->name.c_str(), r.gcells, r.fraction);
            if (a.imaging && v->transposed && !compact) {
              r.imaging = bench::time_imaging(*v, spec, a.steps, a.repeats, a.warmup);
              std::fprintf(stderr,
                           "seisfd bench:   %-28s adjoint %.4f ms, fused cc %+.1f%%, fused "
                           "all %+.1f%%, separate cc %+.1f%%\n",
                           v->name.c_str(), r.imaging.adjoint_ms,
                           100 * imaging_extra(r.imaging.fused_cross_ms, r.imaging.adjoint_ms),
                           100 * imaging_extra(r.imaging.fused_all_ms, r.imaging.adjoint_ms),
                           100 * imaging_extra(r.imaging.separate_cross_ms, r.imaging.adjoint_ms));
            }
            rows.push_back(r);
          }
        }
      }
    }
    print_table(rows, dev);
    if (a.imaging) print_imaging(rows);
    if (!a.no_files) write_files(rows, dev, a, stamp);
    return any_failed ? 4 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "seisfd: error: %s\n", e.what());
    return 1;
  }
}

}  // namespace seisfd::app
