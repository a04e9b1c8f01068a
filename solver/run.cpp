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
#include "solver/backend.hpp"
#include "solver/plan.hpp"
#include "solver/points.hpp"
#include "solver/progress.hpp"
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

}  // namespace

std::string seisfd_version() {
  return SEISFD_VERSION;
}

RunSummary execute_run(const RunConfig& config, const RunOptions& opt) {
  const RunPlan plan = make_plan(config);
  for (const auto& w : plan.warnings) std::fprintf(stderr, "seisfd: warning: %s\n", w.c_str());
  const std::string dir = config.output.directory;
  EngineChoice ec = make_engine(plan, opt.backend);
  io::prepare_output_directory(dir, opt.overwrite);
  namespace fs = std::filesystem;
  const std::string gathers_path = (fs::path(dir) / "gathers.h5").string();
  const std::string snaps_path = (fs::path(dir) / "snapshots.h5").string();

  WaveEngine& engine = *ec.engine;
  engine.set_graphs(opt.graphs);
  const SparsePoints src = make_points(plan.grid, plan.spec, {config.source.position},
                                       config.source.injection, PointRole::kSource);
  const SparsePoints rec = make_points(plan.grid, plan.spec, plan.receivers,
                                       config.receivers.interpolation, PointRole::kReceiver);
  engine.set_injection(src, plan.wavelet, plan.nt);
  engine.set_recording(rec, plan.nt);

  std::unique_ptr<io::SnapshotWriter> snaps;
  std::vector<float> buf;
  if (plan.snapshots.enabled)
    snaps = std::make_unique<io::SnapshotWriter>(snaps_path, plan.snapshots.geometry);

  LoopOptions lo;
  lo.diagnostics_interval = config.kernel.diagnostics_interval;
  lo.snapshot_every = plan.snapshots.enabled ? plan.snapshots.every : 0;
  // Progress is reported between chunks of steps; chunks of at least 10 steps keep the CUDA
  // graphs long enough to pay (diagnostics are taken inside the chunks).
  lo.progress_every = std::max(10, std::min(100, plan.nt / 100));
  lo.stop = opt.stop;
  lo.describe_cell = [&](int64_t i) { return cell_text(plan.grid, i); };
  Progress progress(plan.nt - 1, plan.grid.layout().cells(), opt.quiet);
  LoopCallbacks cb;
  cb.on_progress = [&](int done, int) { progress.update(done); };
  if (snaps)
    cb.on_snapshot = [&](int field) {
      engine.copy_field(plan.snapshots.lo, plan.snapshots.hi, plan.snapshots.dec, buf);
      snaps->append(field * plan.dt, buf.data());
    };
  const LoopResult lr = run_time_loop(engine, plan.nt, lo, cb);
  progress.finish();

  std::vector<std::string> outputs;
  if (!plan.receivers.empty() && config.output.gathers) {
    const std::vector<double> full = engine.recorded();
    const int nr = rec.count(), nto = plan.nt_out();
    std::vector<float> traces(static_cast<size_t>(nr) * nto);
    for (int r = 0; r < nr; ++r)
      for (int k = 0; k < nto; ++k)
        traces[static_cast<size_t>(r) * nto + k] =
            static_cast<float>(full[static_cast<size_t>(r) * plan.nt + k * plan.out_every]);
    std::vector<double> xyz;
    for (const auto& p : plan.receivers) xyz.insert(xyz.end(), p.begin(), p.end());
    io::GatherWriter gw(gathers_path);
    gw.write_shot(0, traces.data(), nr, nto, xyz.data(), config.source.position,
                  plan.dt * plan.out_every, 0.0);
    gw.finish();
    outputs.push_back(gathers_path);
  }
  if (snaps) {
    snaps->finish();
    outputs.push_back(snaps_path);
    outputs.push_back((fs::path(dir) / "snapshots.xmf").string());
  }

  RunSummary s;
  s.backend = to_string(ec.backend);
  s.device = ec.device;
  s.kernel = engine.name();
  s.steps = lr.steps;
  s.seconds = lr.seconds;
  s.gcells_per_s =
      lr.seconds > 0 ? double(plan.grid.layout().cells()) * lr.steps / lr.seconds / 1e9 : 0;
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
  rep["performance"] = {{"steps", lr.steps},
                        {"seconds", lr.seconds},
                        {"gcells_per_s", s.gcells_per_s},
                        {"cells_definition", "computational grid incl. absorbing layers and halo"}};
  rep["diagnostics"] = {{"sum_sq", lr.last.sum_sq},
                        {"max_abs", lr.last.max_abs},
                        {"nonfinite", lr.last.nonfinite},
                        {"checks", lr.diagnostics_runs},
                        {"interval_steps", config.kernel.diagnostics_interval}};
  rep["warnings"] = plan.warnings;
  rep["outputs"] = outputs;
  const std::string report_path = (fs::path(dir) / "report.json").string();
  io::write_text_atomic(report_path, rep.dump(2) + "\n");
  return s;
}

}  // namespace seisfd
