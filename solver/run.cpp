#include "solver/run.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <memory>

#include "io/files.hpp"
#include "io/gathers.hpp"
#include "io/snapshots.hpp"
#include "kernels/cuda_backend.hpp"
#include "solver/modeling.hpp"
#include "solver/plan.hpp"
#include "solver/progress.hpp"
#include "solver/survey.hpp"
#include "solver/time_loop.hpp"

namespace seisfd {
namespace {

std::string cell_text(const SimGrid& g, int64_t i) {
  if (i < 0) return "unknown cell";
  const Layout& l = g.layout();
  int z, y, x;
  l.coords(i, z, y, x);
  return "physical cell (x=" + std::to_string(x - g.offset(2)) +
         ", y=" + std::to_string(y - g.offset(1)) + ", z=" + std::to_string(z - g.offset(0)) + ")";
}

std::string now_iso() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

// The shot's traces, kept every out_every-th sample, as gathers.h5 holds them.
void write_gather(io::GatherWriter& gw, const RunPlan& plan, const Shot& shot,
                  const std::vector<double>& full) {
  const int nr = static_cast<int>(shot.receivers.size()), nto = plan.nt_out();
  std::vector<float> traces(static_cast<size_t>(nr) * nto);
  for (int r = 0; r < nr; ++r)
    for (int k = 0; k < nto; ++k)
      traces[static_cast<size_t>(r) * nto + k] =
          static_cast<float>(full[static_cast<size_t>(r) * plan.nt + k * plan.out_every]);
  std::vector<double> xyz;
  for (const auto& p : shot.receivers) xyz.insert(xyz.end(), p.begin(), p.end());
  gw.write_shot(shot.index, traces.data(), nr, nto, xyz.data(), shot.source,
                plan.dt * plan.out_every, 0.0);
}

}  // namespace

std::string seisfd_version() {
  return SEISFD_VERSION;
}

RunSummary execute_run(const RunConfig& config, const RunOptions& opt) {
  const RunPlan plan = make_plan(config);
  for (const auto& w : plan.warnings) std::fprintf(stderr, "seisfd: warning: %s\n", w.c_str());
  const Survey survey = make_survey(plan);
  const std::string dir = config.output.directory;
  Modeling modeling(plan, opt.backend, opt.graphs);
  Engine& engine = modeling.engine();
  io::prepare_output_directory(dir, opt.overwrite);
  namespace fs = std::filesystem;
  const std::string gathers_path = (fs::path(dir) / "gathers.h5").string();
  const std::string snaps_path = (fs::path(dir) / "snapshots.h5").string();

  // Snapshots are of the first shot.
  std::unique_ptr<io::SnapshotWriter> snaps;
  std::vector<float> buf;
  if (plan.snapshots.enabled)
    snaps = std::make_unique<io::SnapshotWriter>(snaps_path, plan.snapshots.geometry);
  const bool gathers = !plan.receivers.empty() && config.output.gathers;
  std::unique_ptr<io::GatherWriter> gw;
  if (gathers) gw = std::make_unique<io::GatherWriter>(gathers_path);

  LoopOptions lo;
  lo.diagnostics_interval = config.kernel.diagnostics_interval;
  // Progress is reported between chunks of steps; chunks of at least 10 steps keep the CUDA
  // graphs long enough to pay (diagnostics are taken inside the chunks).
  lo.progress_every = std::max(10, std::min(100, plan.nt / 100));
  lo.stop = opt.stop;
  lo.describe_cell = [&](int64_t i) { return cell_text(plan.grid, i); };
  const int steps_per_shot = plan.nt - 1;
  const int nshots = static_cast<int>(survey.shots.size());
  Progress progress(steps_per_shot * nshots, plan.grid.layout().cells(), opt.quiet);

  RunSummary s;
  nlohmann::json shot_reports = nlohmann::json::array();
  LoopResult last;
  for (int k = 0; k < nshots; ++k) {
    const Shot& shot = survey.shots[k];
    lo.snapshot_every = snaps && k == 0 ? plan.snapshots.every : 0;
    LoopCallbacks cb;
    cb.on_progress = [&](int done, int) { progress.update(k * steps_per_shot + done); };
    if (lo.snapshot_every > 0)
      cb.on_snapshot = [&](int field) {
        modeling.propagation().copy_field(plan.snapshots.lo, plan.snapshots.hi, plan.snapshots.dec,
                                          buf);
        snaps->append(field * plan.dt, buf.data());
      };
    const ShotResult r = modeling.forward(shot, lo, cb);
    if (gw) write_gather(*gw, plan, shot, r.traces);
    s.steps += r.loop.steps;
    s.seconds += r.loop.seconds;
    last = r.loop;
    shot_reports.push_back({{"shot", shot.index},
                            {"source", shot.source},
                            {"receivers", shot.receivers.size()},
                            {"steps", r.loop.steps},
                            {"seconds", r.loop.seconds},
                            {"sum_sq", r.loop.last.sum_sq},
                            {"max_abs", r.loop.last.max_abs}});
  }
  progress.finish();

  std::vector<std::string> outputs;
  if (gw) {
    gw->finish();
    outputs.push_back(gathers_path);
  }
  if (snaps) {
    snaps->finish();
    outputs.push_back(snaps_path);
    outputs.push_back((fs::path(dir) / "snapshots.xmf").string());
  }

  s.backend = to_string(modeling.backend());
  s.device = modeling.device();
  s.kernel = engine.name();
  s.shots = nshots;
  s.gcells_per_s =
      s.seconds > 0 ? double(plan.grid.layout().cells()) * s.steps / s.seconds / 1e9 : 0;
  s.directory = dir;

  nlohmann::json rep;
  rep["seisfd_version"] = seisfd_version();
  rep["finished"] = now_iso();
  rep["config"] = nlohmann::json::parse(config_to_json(config));
  rep["backend"] = {{"name", s.backend},
                    {"device", s.device},
                    {"kernel", s.kernel},
                    {"graphs", engine.graphs()},
                    {"cuda_runtime", cuda_runtime_version()}};
  for (const auto& [key, value] : engine.details()) rep["backend"][key] = value;
  rep["grid"] = {
      {"computational_zyx", {plan.grid.layout().nz, plan.grid.layout().ny, plan.grid.layout().nx}},
      {"cells", plan.grid.layout().cells()}};
  rep["time"] = {{"dt", plan.dt},
                 {"dt_limit", plan.dt_limit},
                 {"nt", plan.nt},
                 {"output_dt", plan.dt * plan.out_every}};
  rep["performance"] = {{"steps", s.steps},
                        {"seconds", s.seconds},
                        {"gcells_per_s", s.gcells_per_s},
                        {"cells_definition", "computational grid incl. absorbing layers and halo"}};
  // Of the last shot's last check.
  rep["diagnostics"] = {{"sum_sq", last.last.sum_sq},
                        {"max_abs", last.last.max_abs},
                        {"nonfinite", last.last.nonfinite},
                        {"checks", last.diagnostics_runs},
                        {"interval_steps", config.kernel.diagnostics_interval}};
  rep["shots"] = shot_reports;
  rep["warnings"] = plan.warnings;
  rep["outputs"] = outputs;
  const std::string report_path = (fs::path(dir) / "report.json").string();
  io::write_text_atomic(report_path, rep.dump(2) + "\n");
  return s;
}

}  // namespace seisfd
