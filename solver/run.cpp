#include "solver/run.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <algorithm>
#include <memory>
#include <optional>
#include <stdexcept>

#include "io/checkpoint.hpp"
#include "io/error.hpp"
#include "io/files.hpp"
#include "io/gathers.hpp"
#include "io/model_file.hpp"
#include "io/snapshots.hpp"
#include "kernels/cuda_backend.hpp"
#include "solver/modeling.hpp"
#include "solver/plan.hpp"
#include "solver/progress.hpp"
#include "solver/report.hpp"
#include "solver/run_ranks.hpp"
#include "solver/survey.hpp"
#include "solver/time_loop.hpp"

namespace seisfd {
std::string seisfd_version() {
  return SEISFD_VERSION;
}

std::vector<std::string> write_model_output(const std::string& dir, const RunPlan& plan) {
  const std::string path = (std::filesystem::path(dir) / "model.h5").string();
  const SimGrid& g = plan.grid;
  const VelocityModel& m = plan.model;
  io::ModelGeometry geo;
  geo.nz = m.nz;
  geo.ny = m.ny;
  geo.nx = m.nx;
  for (int a = 0; a < 3; ++a) {
    geo.spacing[a] = g.spacing(a);
    geo.origin[a] = g.origin(a);
  }
  std::vector<io::ModelField> fields{{"vp", "m/s", m.vp.data()}};
  if (!m.epsilon.empty()) fields.push_back({"epsilon", "", m.epsilon.data()});
  if (!m.delta.empty()) fields.push_back({"delta", "", m.delta.data()});
  const double deg = 180.0 / 3.14159265358979323846;
  std::vector<float> theta(m.theta), phi(m.phi);
  for (float& v : theta) v = float(v * deg);
  for (float& v : phi) v = float(v * deg);
  if (!theta.empty()) fields.push_back({"theta", "degrees", theta.data()});
  if (!phi.empty()) fields.push_back({"phi", "degrees", phi.data()});
  io::write_model_file(path, geo, fields);
  return {path, (std::filesystem::path(dir) / "model.xmf").string()};
}

namespace {

// A checkpoint fits this run's shot: its receivers, samples and step.
void check_checkpoint(const io::Checkpoint& c, const RunPlan& plan, const Shot& shot,
                      const std::string& path) {
  if (c.receivers != static_cast<int>(shot.receivers.size()) || c.nt != plan.nt ||
      c.state.step < 0 || c.state.step >= plan.nt - 1)
    throw io::IoError("checkpoint '" + path + "' does not fit shot " + std::to_string(shot.index) +
                      " of this run (" + std::to_string(c.receivers) + " receivers, " +
                      std::to_string(c.nt) + " samples, step " + std::to_string(c.state.step) +
                      ")");
}

}  // namespace

RunSummary execute_run(const RunConfig& config, const RunOptions& opt) {
  if (const parallel::Comm world = parallel::Comm::world(); world.size() > 1)
    return execute_run_ranks(config, opt, world);
  PhaseClock clock;
  const RunPlan plan = make_plan(config);
  for (const auto& w : plan.warnings) std::fprintf(stderr, "seisfd: warning: %s\n", w.c_str());
  const Survey survey = make_survey(plan);
  const std::string dir = config.output.directory;
  namespace fs = std::filesystem;
  const std::string gathers_path = (fs::path(dir) / "gathers.h5").string();
  const std::string snaps_path = (fs::path(dir) / "snapshots.h5").string();
  const bool gathers = !plan.receivers.empty() && config.output.gathers;
  const bool h5 = config.output.has(OutputFormat::kHdf5),
             segy = config.output.has(OutputFormat::kSegy);
  if (opt.resume && !gathers)
    throw ConfigError("output.gathers", "--resume continues a gathers file; this run writes none",
                      config.source_path);
  const bool checkpoint_asked =
      config.run.checkpoint_steps > 0 || config.run.checkpoint_seconds > 0;
  if (checkpoint_asked && !gathers)
    throw ConfigError("run.checkpoint_interval",
                      "checkpoints continue a gathers file (--resume); this run writes none",
                      config.source_path);
  const std::string checkpoint_path = (fs::path(dir) / "checkpoint.h5").string();
  const std::string digest = config_digest(config);
  // Before the engine and the files: what the run will write must fit where it writes.
  require_disk(plan.disk_need, dir);
  clock.mark("plan");
  Modeling modeling(plan, opt.backend, opt.graphs);
  Engine& engine = modeling.engine();
  clock.mark("engine");
  // --resume: the gathers.h5.partial (and gathers.sgy.partial) of an interrupted run, the
  // shots they hold skipped.
  std::unique_ptr<io::GatherWriter> gw;
  std::unique_ptr<io::SegyGatherWriter> sgw;
  std::vector<int> done;
  io::DirectoryLock lock;
  std::optional<io::Checkpoint> resume_from;
  if (opt.resume) {
    lock = io::lock_output_directory(dir);
    if (h5) {
      gw = std::make_unique<io::GatherWriter>(io::GatherWriter::resume(gathers_path, digest));
      done = gw->shots();
    }
    if (segy) {
      sgw = std::make_unique<io::SegyGatherWriter>(
          io::SegyGatherWriter::resume((fs::path(dir) / "gathers.sgy").string(), plan.nt_out(),
                                       plan.dt * plan.out_every, digest));
      done = resumable_segy_shots(*sgw, survey, h5 ? &done : nullptr);
    }
    // A checkpoint of the first shot not in the gathers continues that shot.
    std::error_code ec;
    if (fs::exists(checkpoint_path, ec)) {
      io::Checkpoint cp = io::read_checkpoint(checkpoint_path);
      if (cp.config_digest != digest)
        throw io::IoError("checkpoint '" + checkpoint_path +
                          "' was written for another config (digest " + cp.config_digest +
                          ", this config's is " + digest + ")");
      if (std::find(done.begin(), done.end(), cp.shot) == done.end()) resume_from = std::move(cp);
    }
  } else {
    lock = io::prepare_output_directory(dir, opt.overwrite, input_files(config));
    if (gathers && h5) gw = std::make_unique<io::GatherWriter>(gathers_path, digest);
    if (gathers && segy) sgw = make_segy_gathers(plan, dir, "run", digest);
  }

  // Snapshots are of the first shot (not rewritten by a resumed run that has it; continued by
  // one that resumes it from a checkpoint).
  std::unique_ptr<io::SnapshotWriter> snaps;
  std::vector<float> buf;
  const bool first_done = std::find(done.begin(), done.end(), survey.shots[0].index) != done.end();
  if (plan.snapshots.enabled && !first_done) {
    if (resume_from && resume_from->shot == survey.shots[0].index)
      snaps = std::make_unique<io::SnapshotWriter>(
          snaps_path, plan.snapshots.geometry, io::SnapshotWriter::Resume{resume_from->snapshots});
    else
      snaps = std::make_unique<io::SnapshotWriter>(snaps_path, plan.snapshots.geometry);
  }

  LoopOptions lo;
  lo.diagnostics_interval = config.kernel.diagnostics_interval;
  // Progress is reported between chunks of steps; chunks of at least 10 steps keep the CUDA
  // graphs long enough to pay (diagnostics are taken inside the chunks).
  lo.progress_every = std::max(10, std::min(100, plan.nt / 100));
  lo.stop = opt.stop;
  lo.checkpoint_on_stop = opt.checkpoint_on_stop;
  lo.checkpoint_every = config.run.checkpoint_steps;
  lo.checkpoint_seconds = config.run.checkpoint_seconds;
  lo.describe_cell = [&](int64_t i) { return cell_text(plan.grid, i); };
  const int steps_per_shot = plan.nt - 1;
  const int nshots = static_cast<int>(survey.shots.size());
  Progress progress(int64_t(steps_per_shot) * nshots, plan.grid.layout().cells(), opt.quiet);

  RunSummary s;
  nlohmann::json shot_reports = nlohmann::json::array();
  LoopResult last;
  int skipped = 0;
  for (int k = 0; k < nshots; ++k) {
    const Shot& shot = survey.shots[k];
    if (std::find(done.begin(), done.end(), shot.index) != done.end()) {
      ++skipped;
      shot_reports.push_back({{"shot", shot.index}, {"resumed", "already in gathers.h5"}});
      continue;
    }
    lo.snapshot_every = snaps && k == 0 ? plan.snapshots.every : 0;
    // A shot resumed from a checkpoint: its state, and the traces recorded before it.
    const io::Checkpoint* from =
        resume_from && resume_from->shot == shot.index ? &*resume_from : nullptr;
    if (from) check_checkpoint(*from, plan, shot, checkpoint_path);
    lo.start_step = from ? from->state.step : 0;
    const auto traces_so_far = [&](std::vector<double> t) {
      if (from)
        for (size_t r = 0; r < shot.receivers.size(); ++r)
          for (int n = 0; n <= from->state.step; ++n)
            t[r * plan.nt + n] = from->traces[r * plan.nt + n];
      return t;
    };
    LoopCallbacks cb;
    if (gw)  // checkpoints continue the gathers file
      cb.on_checkpoint = [&](int field) {
        io::Checkpoint cp;
        cp.config_digest = digest;
        cp.shot = shot.index;
        cp.snapshots = lo.snapshot_every > 0 ? snaps->count() : 0;
        cp.receivers = static_cast<int>(shot.receivers.size());
        cp.nt = plan.nt;
        cp.traces = traces_so_far(modeling.propagation().recorded());
        cp.state = modeling.propagation().state().save();
        cp.state.step = field;
        io::write_checkpoint(checkpoint_path, cp);
      };
    cb.on_progress = [&](int done, int) { progress.update(int64_t(k) * steps_per_shot + done); };
    if (lo.snapshot_every > 0)
      cb.on_snapshot = [&](int field) {
        modeling.propagation().copy_field(plan.snapshots.lo, plan.snapshots.hi, plan.snapshots.dec,
                                          buf);
        check_finite(buf.data(), buf.size(), "snapshot at step " + std::to_string(field));
        snaps->append(field * plan.dt, buf.data());
      };
    ShotResult r;
    try {
      r = modeling.forward(shot, lo, cb, from ? &from->state : nullptr);
      r.traces = traces_so_far(std::move(r.traces));
    } catch (const std::invalid_argument& e) {
      // The state refuses an image of another engine (backend, physics, precision).
      if (!from) throw;
      throw io::IoError("checkpoint '" + checkpoint_path + "': " + e.what() +
                        " (resume on the same backend and precision)");
    } catch (const Interrupted& e) {
      // What the shot recorded so far reaches the .partial file (complete = 0 there too).
      write_partial_gather(gw.get(), plan, shot, traces_so_far(modeling.propagation().recorded()),
                           e.step());
      throw;
    }
    clock.mark("shots");
    write_gathers(gw.get(), sgw.get(), plan, shot,
                  kept_samples(plan, r.traces, static_cast<int>(shot.receivers.size())));
    // The shot is in the gathers: a checkpoint of it is of no further use.
    std::error_code ec;
    fs::remove(checkpoint_path, ec);
    clock.mark("output");
    if (!opt.quiet && nshots > 1)
      std::fprintf(stderr,
                   "\nseisfd: shot %d of %d (index %d, source at %g, %g, %g m) done in %.2f s\n",
                   k + 1, nshots, shot.index, shot.source[0], shot.source[1], shot.source[2],
                   r.loop.seconds);
    s.steps += r.loop.steps;
    s.seconds += r.loop.seconds;
    last = r.loop;
    shot_reports.push_back(shot_report(shot, r.loop));
  }
  progress.finish();

  const std::vector<std::string> outputs = finish_run_files(gw.get(), sgw.get(), snaps.get(), plan);
  fill_summary(s, modeling, nshots, plan);

  nlohmann::json rep = report_base(plan, s.backend, s.device, engine);
  rep["performance"] = {{"steps", s.steps},
                        {"seconds", s.seconds},
                        {"gcells_per_s", s.gcells_per_s},
                        {"cells_definition", "computational grid incl. absorbing layers and halo"}};
  // Of the last shot's last check.
  rep["diagnostics"] = diagnostics_report(last, config.kernel.diagnostics_interval);
  rep["shots"] = shot_reports;
  clock.mark("output");
  rep["wall_seconds"] = clock.json();
  if (opt.resume) rep["resumed"] = {{"shots_already_done", skipped}};
  rep["warnings"] = plan.warnings;
  rep["outputs"] = outputs;
  const std::string report_path = (fs::path(dir) / "report.json").string();
  io::write_text_atomic(report_path, rep.dump(2) + "\n");
  return s;
}

}  // namespace seisfd
