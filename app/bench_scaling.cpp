// `mpirun -np N seisfd bench --scaling weak|strong` (docs/parallel.md §7): whole decomposed runs
// of a constant-velocity grid on 1, 2, 4, ... and N ranks of one launch, the ranks beyond each
// count waiting. Weak: `size` cells a side per rank, the ranks' grids side by side in x; strong:
// one grid of size x size x 2 size for every count. Each run is `seisfd run` over the ranks
// (execute_run_ranks with a communicator of that many ranks); rank 0 reads its report.json and
// writes one CSV row per run, the columns scripts/device.sh's scaling step and seisfd-scaling
// read.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "app/bench.hpp"
#include "app/commands.hpp"
#include "solver/config.hpp"
#include "solver/parallel.hpp"
#include "solver/plan.hpp"
#include "solver/run.hpp"
#include "solver/run_ranks.hpp"

namespace seisfd::app {
namespace {

namespace fs = std::filesystem;

constexpr double kSpacing = 10.0, kVp = 3000.0, kEpsilon = 0.2;

// The run of one point: a constant model (VTI, TTI: constant anisotropy, tilted for TTI), a
// sponge, a source in the middle, a line of receivers, `steps` steps at half the stability limit.
std::string point_config(const std::string& physics, int order, int nz, int ny, int nx, int sponge,
                         int steps, const std::string& dir) {
  const double h[3] = {kSpacing, kSpacing, kSpacing};
  const double vmax = physics == "acoustic" ? kVp : kVp * std::sqrt(1 + 2 * kEpsilon);
  const double dt = 0.5 * stability_limit(vmax, order / 2, h);
  std::ostringstream o;
  o.precision(17);
  o << "[grid]\nnx = " << nx << "\nny = " << ny << "\nnz = " << nz << "\nspacing = " << kSpacing
    << "\n\n[model]\ntype = \"constant\"\nvp = " << kVp << "\n";
  if (physics != "acoustic") o << "epsilon = " << kEpsilon << "\ndelta = 0.1\n";
  if (physics == "tti") o << "theta = 30.0\nphi = 20.0\n";
  o << "\n[physics]\nequation = \"" << physics << "\"\norder = " << order
    << "\n\n[time]\ndt = " << dt << "\nduration = " << dt * (steps + 0.5)
    << "\n\n[source]\nposition = [" << 0.5 * (nx - 1) * kSpacing << ", "
    << 0.5 * (ny - 1) * kSpacing << ", " << 0.5 * (nz - 1) * kSpacing
    << "]\nfrequency = 15.0\n\n[receivers]\nlayout = \"line\"\nstart = [0.0, "
    << 0.5 * (ny - 1) * kSpacing << ", " << 10 * kSpacing << "]\nend = [" << (nx - 1) * kSpacing
    << ", " << 0.5 * (ny - 1) * kSpacing << ", " << 10 * kSpacing << "]\ncount = " << nx
    << "\n\n[boundary]\ntype = \"sponge\"\nwidth = " << sponge << "\n\n[output]\ndirectory = \""
    << dir << "\"\n";
  return o.str();
}

std::vector<int> rank_counts(int n) {
  std::vector<int> out;
  for (int k = 1; k < n; k *= 2) out.push_back(k);
  out.push_back(n);
  return out;
}

}  // namespace

int cmd_bench_scaling(const BenchArgs& a) {
  const parallel::Comm world = parallel::Comm::world();
  const bool weak = a.scaling == "weak";
  const fs::path runs = fs::path(a.out) / "scaling_runs";
  const std::string stamp = now_stamp();
  std::ostringstream csv;
  csv << "physics,kind,ranks,nz,ny,nx,steps,seconds,gcells_per_s,exchange,exchange_seconds,"
         "decomposition,overlap,exchange_wait_seconds\n";
  std::string device = "cpu";
  for (const std::string& physics : a.physics)
    for (int order : a.orders)
      for (int k : rank_counts(world.size())) {
        const int n = a.sizes.front();
        const int nz = n, ny = n, nx = weak ? n * k : 2 * n;
        const std::string dir =
            (runs / (physics + "_o" + std::to_string(order) + "_" + std::to_string(k))).string();
        // Ranks 0 .. k - 1 run; the others wait for them at the barrier.
        const parallel::Comm group = world.split(world.rank() < k ? 0 : 1, world.rank());
        if (world.rank() < k) {
          try {
            const RunConfig c = parse_config(
                point_config(physics, order, nz, ny, nx, a.sponge, a.steps, dir), "scaling point");
            RunOptions opt;
            opt.backend = parse_backend(a.backend);
            opt.overwrite = true;
            opt.quiet = true;
            execute_run_ranks(c, opt, group);
          } catch (const std::exception& e) {  // as `run` would: one line, every rank ends
            std::fprintf(stderr, "seisfd: error: bench --scaling, %s on %d rank(s): %s\n",
                         physics.c_str(), k, e.what());
            world.abort(1);
          }
        }
        world.idle_barrier();  // the waiting ranks leave the cores to the running ones
        if (!world.root()) continue;
        nlohmann::json r;
        std::ifstream(fs::path(dir) / "report.json") >> r;
        const auto& p = r["performance"];
        const auto& par = r["parallel"];
        device = r["backend"].value("device", device);
        std::string decomposition;
        for (const auto& d : par["decomposition"])
          decomposition += (decomposition.empty() ? "" : "x") + std::to_string(d.get<int>());
        csv << physics << "," << a.scaling << "," << k << "," << nz << "," << ny << "," << nx << ","
            << p["steps"].get<long long>() << "," << p["seconds"].get<double>() << ","
            << p["gcells_per_s"].get<double>() << "," << par.value("exchange", "none") << ","
            << par.value("exchange_seconds_rank0", 0.0) << "," << decomposition << ","
            << (par.value("overlap", false) ? "true" : "false") << ","
            << par.value("exchange_wait_seconds_rank0", -1.0) << "\n";
        std::printf("%-8s o%-2d %-6s %3d rank(s) %5d x %5d x %5d  %9.3f Gcells/s  exchange %s\n",
                    physics.c_str(), order, a.scaling.c_str(), k, nx, ny, nz,
                    p["gcells_per_s"].get<double>(), par.value("exchange", "none").c_str());
      }
  if (world.root()) {
    fs::remove_all(runs);
    if (!a.no_files) {
      fs::create_directories(a.out);
      const fs::path path =
          fs::path(a.out) / (stamp + "_" + slug(device) + "_scaling-" + a.scaling + ".csv");
      std::ofstream(path) << csv.str();
      std::printf("%s (the model and its plot: seisfd-scaling %s)\n", path.string().c_str(),
                  path.string().c_str());
    }
  }
  return 0;
}

}  // namespace seisfd::app
