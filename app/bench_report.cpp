#include "app/bench_report.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "kernels/registry.hpp"

namespace seisfd::app {
namespace fs = std::filesystem;

void print_imaging(const std::vector<BenchRow>& rows) {
  std::printf(
      "\nimaging at every adjoint step (docs/migration.md §3), ms/step and the cost over the "
      "adjoint step alone;\nat an imaging interval of k steps the cost per backward step is "
      "1/k of it\n");
  std::printf("%5s %5s %-10s %-16s %9s %16s %16s %16s\n", "size", "order", "physics", "technique",
              "adjoint", "fused cc", "fused cc+il+zl", "separate cc");
  for (const BenchRow& r : rows) {
    if (r.status != "ok" || !std::isfinite(r.imaging.adjoint_ms)) continue;
    const auto& t = r.imaging;
    std::printf("%5d %5d %-10s %-16s %9.4f %8.4f (%+4.0f%%) %8.4f (%+4.0f%%) %8.4f (%+4.0f%%)\n",
                r.size, r.order, r.physics.c_str(), r.technique.c_str(), t.adjoint_ms,
                t.fused_cross_ms, 100 * imaging_extra(t.fused_cross_ms, t.adjoint_ms),
                t.fused_all_ms, 100 * imaging_extra(t.fused_all_ms, t.adjoint_ms),
                t.separate_cross_ms, 100 * imaging_extra(t.separate_cross_ms, t.adjoint_ms));
  }
}

void print_table(const std::vector<BenchRow>& rows, const bench::DeviceSummary& d) {
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
  for (const BenchRow& r : rows) {
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

void write_files(const std::vector<BenchRow>& rows, const bench::DeviceSummary& d,
                 const BenchArgs& a, const std::string& stamp) {
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
      << "; Gcells/s = computational cells x steps / s; GB/s = minimal bytes per cell (";
  for (Physics p : kAllPhysics)
    csv << (p == kAllPhysics[0] ? "" : ", ") << to_string(p) << " " << traits(p).min_bytes_per_cell;
  csv << ") x Gcells/s; fraction = Gcells/s / streaming ceiling of the physics' access pattern "
         "measured in the same run\n";
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
                   {"bytes_per_cell", nlohmann::json::object()},
                   {"verify_steps", kVerifySteps},
                   {"verify_tolerance", kVerifyTol}};
  for (Physics p : kAllPhysics)
    j["settings"]["bytes_per_cell"][to_string(p)] = traits(p).min_bytes_per_cell;
  j["timestamp"] = stamp;
  auto num = [](double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(); };
  for (const BenchRow& r : rows) {
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

}  // namespace seisfd::app
