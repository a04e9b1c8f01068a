#include "app/bench.hpp"

#include <fnmatch.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

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

namespace fs = std::filesystem;

constexpr double kVerifyTol = 1e-5;
constexpr int kVerifySteps = 3;

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

struct Row {
  int size = 0, order = 0;
  std::string physics, variant, technique, status = "ok";
  long long cells = 0;
  double ms_per_step = NAN, gcells = NAN, gbps = NAN, ceiling_gcells = NAN, fraction = NAN;
  double copy_gbps = NAN, verify_err = NAN, spread = NAN;
  bench::ImagingTiming imaging{NAN, NAN, NAN, NAN};  // with --imaging
};

// The adjoint step's imaging relative to the adjoint step alone.
double extra(double with, double without) {
  return with / without - 1.0;
}

void print_imaging(const std::vector<Row>& rows) {
  std::printf(
      "\nimaging at every adjoint step (docs/migration.md §3), ms/step and the cost over the "
      "adjoint step alone;\nat an imaging interval of k steps the cost per backward step is "
      "1/k of it\n");
  std::printf("%5s %5s %-10s %-16s %9s %16s %16s %16s\n", "size", "order", "physics", "technique",
              "adjoint", "fused cc", "fused cc+il+zl", "separate cc");
  for (const Row& r : rows) {
    if (r.status != "ok" || !std::isfinite(r.imaging.adjoint_ms)) continue;
    const auto& t = r.imaging;
    std::printf("%5d %5d %-10s %-16s %9.4f %8.4f (%+4.0f%%) %8.4f (%+4.0f%%) %8.4f (%+4.0f%%)\n",
                r.size, r.order, r.physics.c_str(), r.technique.c_str(), t.adjoint_ms,
                t.fused_cross_ms, 100 * extra(t.fused_cross_ms, t.adjoint_ms), t.fused_all_ms,
                100 * extra(t.fused_all_ms, t.adjoint_ms), t.separate_cross_ms,
                100 * extra(t.separate_cross_ms, t.adjoint_ms));
  }
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

void print_table(const std::vector<Row>& rows, const bench::DeviceSummary& d) {
  if (d.compute_capability > 0)
    std::printf(
        "\nseisfd bench on %s (cc %d, %d SMs); Gcells/s over the whole computational "
        "grid\n",
        d.name.c_str(), d.compute_capability, d.multiprocessors);
  else
    std::printf("\nseisfd bench on %s; Gcells/s over the whole computational grid\n",
                d.name.c_str());
  std::printf("%5s %5s %-10s %-16s %11s %9s %9s %8s %9s %8s %9s %9s\n", "size", "order", "physics",
              "technique", "cells", "ms/step", "Gcells/s", "GB/s", "ceil Gc/s", "fraction",
              "copy GB/s", "verify");
  for (const Row& r : rows) {
    if (r.status != "ok") {
      std::printf("%5d %5d %-10s %-16s %11lld  %s\n", r.size, r.order, r.physics.c_str(),
                  r.technique.c_str(), r.cells, r.status.c_str());
      continue;
    }
    std::printf("%5d %5d %-10s %-16s %11lld %9.4f %9.2f %8.0f %9.2f %8.3f %9.0f %9.1e\n", r.size,
                r.order, r.physics.c_str(), r.technique.c_str(), r.cells, r.ms_per_step, r.gcells,
                r.gbps, r.ceiling_gcells, r.fraction, r.copy_gbps, r.verify_err);
  }
}

void write_files(const std::vector<Row>& rows, const bench::DeviceSummary& d, const BenchArgs& a,
                 const std::string& stamp) {
  fs::create_directories(a.out);
  // bench/results names: <date>_<time>_<device>_<what>.<ext>; here what = bench-<physics>
  // (-zero for all-zero wavefields).
  std::string what = "bench";
  for (const auto& p : a.physics) what += "-" + p;
  if (a.fields == "zero") what += "-zero";
  if (a.imaging) what += "-imaging";
  if (a.tti_operator != "narrow") what += "-" + a.tti_operator;
  const fs::path base = fs::path(a.out) / (stamp + "_" + slug(d.name) + "_" + what);
  std::ofstream csv(base.string() + ".csv");
  csv << "# seisfd bench, " << d.name << ", cc " << d.compute_capability << ", steps " << a.steps
      << ", repeats " << a.repeats << " (median), sponge " << a.sponge << ", fields " << a.fields
      << ", tti_operator " << a.tti_operator
      << "; Gcells/s = computational cells x steps / s; GB/s = minimal bytes per cell (acoustic "
         "16, vti 36, tti 44) x Gcells/s; fraction = Gcells/s / streaming ceiling of the "
         "physics' access pattern measured in the same run\n";
  csv << "size,order,variant,status,cells,ms_per_step,gcells_per_s,gb_per_s,ceiling_gcells_per_s,"
         "fraction,copy_gb_per_s,spread,verify_rel_l2"
      << (a.imaging ? ",adjoint_ms,fused_cross_ms,fused_all_ms,separate_cross_ms" : "") << "\n";
  nlohmann::json j;
  j["device"] = {{"name", d.name},
                 {"compute_capability", d.compute_capability},
                 {"multiprocessors", d.multiprocessors}};
  j["settings"] = {{"steps", a.steps},
                   {"repeats", a.repeats},
                   {"warmup", a.warmup},
                   {"sponge", a.sponge},
                   {"fields", a.fields},
                   {"tti_operator", a.tti_operator},
                   {"bytes_per_cell",
                    {{"acoustic", traits(Physics::kAcoustic).min_bytes_per_cell},
                     {"vti", traits(Physics::kVti).min_bytes_per_cell},
                     {"tti", traits(Physics::kTti).min_bytes_per_cell}}},
                   {"verify_steps", kVerifySteps},
                   {"verify_tolerance", kVerifyTol}};
  j["timestamp"] = stamp;
  auto num = [](double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(); };
  for (const Row& r : rows) {
    char line[512];
    std::snprintf(line, sizeof line,
                  "%d,%d,%s,\"%s\",%lld,%.6f,%.3f,%.1f,%.3f,%.4f,%.1f,%.4f,%.3e\n", r.size, r.order,
                  r.variant.c_str(), r.status.c_str(), r.cells, r.ms_per_step, r.gcells, r.gbps,
                  r.ceiling_gcells, r.fraction, r.copy_gbps, r.spread, r.verify_err);
    std::string l = line;
    if (a.imaging) {
      char more[160];
      std::snprintf(more, sizeof more, ",%.6f,%.6f,%.6f,%.6f", r.imaging.adjoint_ms,
                    r.imaging.fused_cross_ms, r.imaging.fused_all_ms, r.imaging.separate_cross_ms);
      l.insert(l.size() - 1, more);
    }
    csv << l;
    j["results"].push_back({{"size", r.size},
                            {"order", r.order},
                            {"physics", r.physics},
                            {"variant", r.variant},
                            {"status", r.status},
                            {"cells", r.cells},
                            {"ms_per_step", num(r.ms_per_step)},
                            {"gcells_per_s", num(r.gcells)},
                            {"gb_per_s", num(r.gbps)},
                            {"ceiling_gcells_per_s", num(r.ceiling_gcells)},
                            {"fraction", num(r.fraction)},
                            {"copy_gb_per_s", num(r.copy_gbps)},
                            {"spread", num(r.spread)},
                            {"verify_rel_l2", num(r.verify_err)}});
    if (a.imaging)
      j["results"].back()["imaging_ms_per_step"] = {
          {"adjoint", num(r.imaging.adjoint_ms)},
          {"fused_crosscorrelation", num(r.imaging.fused_cross_ms)},
          {"fused_all", num(r.imaging.fused_all_ms)},
          {"separate_crosscorrelation", num(r.imaging.separate_cross_ms)}};
  }
  std::ofstream(base.string() + ".json") << j.dump(2) << "\n";
  std::fprintf(stderr, "seisfd bench: results in %s.csv and .json\n", base.string().c_str());
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
    std::vector<Row> rows;
    bool any_failed = false;
    for (int n : a.sizes)
      for (int order : a.orders)
        for (const std::string& physics_name : a.physics) {
          const Physics physics = *parse_physics(physics_name);
          const StepSpec spec =
              with_operator(bench::make_cube_spec(n, a.sponge, order / 2), physics, a);
          Row base;
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
            Row r = base;
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
    std::vector<Row> rows;
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
          Row base;
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
            Row r = base;
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
                           100 * extra(r.imaging.fused_cross_ms, r.imaging.adjoint_ms),
                           100 * extra(r.imaging.fused_all_ms, r.imaging.adjoint_ms),
                           100 * extra(r.imaging.separate_cross_ms, r.imaging.adjoint_ms));
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
