// `seisfd run` over the ranks of an MPI launch (docs/parallel.md): shot groups of
// size / parallel.shot_groups ranks, each decomposing the grid among its ranks and running
// whole shots; shot 0 on group 0, the others handed out one at a time to the group that asks
// first. Rank 0 of the launch writes every file, the same files a run of one rank writes.
#include <nlohmann/json.hpp>

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>

#include "io/checkpoint.hpp"
#include "io/error.hpp"
#include "io/files.hpp"
#include "io/gathers.hpp"
#include "io/snapshots.hpp"
#include "kernels/cuda_backend.hpp"
#include "solver/backend.hpp"
#include "solver/halo.hpp"
#include "solver/modeling.hpp"
#include "solver/parallel.hpp"
#include "solver/plan.hpp"
#include "solver/progress.hpp"
#include "solver/ranks.hpp"
#include "solver/report.hpp"
#include "solver/run.hpp"
#include "solver/run_ranks.hpp"

namespace seisfd {
namespace {

// A finished shot as a group's rank 0 sends it to the writer: index, steps, seconds, sum_sq,
// max_abs, diagnostics checks, then the traces.
struct ShotMessage {
  int index = 0;
  LoopResult loop;
  std::vector<float> kept;  // the samples the gathers keep (kept_samples)

  std::vector<double> pack() const {
    std::vector<double> m{double(index),      double(loop.steps), loop.seconds,
                          loop.last.sum_sq,   loop.last.max_abs,  double(loop.diagnostics_runs),
                          double(kept.size())};
    append_floats(m, kept);
    return m;
  }
  static ShotMessage unpack(const std::vector<double>& m) {
    ShotMessage s;
    s.index = static_cast<int>(m[0]);
    s.loop.steps = static_cast<int>(m[1]);
    s.loop.seconds = m[2];
    s.loop.last.sum_sq = m[3];
    s.loop.last.max_abs = m[4];
    s.loop.diagnostics_runs = static_cast<int>(m[5]);
    s.kept = floats_at(m, 7, static_cast<size_t>(m[6]));
    return s;
  }
};

}  // namespace

RankLayout make_rank_layout(const RunPlan& plan, const parallel::Comm& world, Backend backend) {
  const RunConfig& c = plan.config;
  const int groups = c.parallel.shot_groups;
  if (world.size() % groups != 0)
    throw ConfigError("parallel.shot_groups",
                      std::to_string(groups) + " groups do not divide the " +
                          std::to_string(world.size()) + " ranks of the launch",
                      c.source_path);
  RankLayout r;
  r.group_size = world.size() / groups;
  r.group_index = world.rank() / r.group_size;
  const int halo = halo_width(c.physics.equation, plan.spec.radius);
  const Backend resolved = resolve_backend(c, backend);
  parallel::Comm group = world.split(r.group_index, world.rank());
  r.exchange = resolve_exchange(c.parallel.exchange, resolved, group, c.source_path);
  const bool gpu = resolved == Backend::kCuda;
  Decomposition dec =
      decompose(plan.spec, r.group_size, c.parallel.decomposition, halo, c.source_path,
                gpu ? gpu_x_tiles(c.physics.equation) : std::vector<int>{},
                auto_x_weight(gpu, through_host(r.exchange)));
  r.domain.sub = dec.subdomain(group.rank(), plan.spec);
  r.domain.spec = local_spec(plan.spec, r.domain.sub);
  r.domain.halo = halo;
  // A compact model precision encodes each coefficient array over its range: over the whole
  // grid's (the group's ranks' combined), so that every rank rounds each cell as one rank would.
  if (c.kernel.model_precision != ModelPrecision::kFp32 && group.size() > 1) {
    auto range = coefficient_ranges(
        layout_medium(plan, r.domain.spec.layout, r.domain.sub.layout_lo), r.domain.spec, plan.dt);
    for (auto& [lo, hi] : range) {
      lo = static_cast<float>(-group.max(-static_cast<double>(lo)));
      hi = static_cast<float>(group.max(static_cast<double>(hi)));
    }
    r.domain.coefficient_range = std::move(range);
  }
  const parallel::Comm node = world.node();
  r.domain.device = node.rank();
  r.ranks_on_node = node.size();
  // Ranks sharing a GPU choose their kernel variants in turn: "auto" times the candidates on the
  // device, and a neighbour's kernels running meanwhile would decide for it (a rank of two on
  // one H100 once measured the naive variant fastest while its neighbour waited for it). The
  // engines made later take the choice made here; so does kernel.compressible = "auto", which
  // times the chosen variant with compressible and plain arrays.
  if (resolved == Backend::kCuda &&
      (c.kernel.variant == "auto" || c.kernel.compressible == Compressible::kAuto)) {
    const int devices = cuda_device_count();
    if (devices > 0 && node.size() > devices)
      for (int turn = 0; turn < (node.size() + devices - 1) / devices; ++turn) {
        if (node.rank() / devices == turn)
          cuda_choose_variant_ahead(c.kernel.variant, c.physics.equation, r.domain.spec,
                                    r.domain.device % devices, c.kernel.compressible);
        node.barrier();
      }
  }
  // The node's cores shared among its ranks, unless OMP_NUM_THREADS says otherwise: several
  // ranks each starting one OpenMP thread a core would run cores x ranks threads.
  if (!std::getenv("OMP_NUM_THREADS"))
    omp_set_num_threads(std::max(1, omp_get_num_procs() / r.ranks_on_node));
  r.group = std::make_unique<ShotGroup>(group, std::move(dec), plan.spec, r.domain);
  return r;
}

nlohmann::json parallel_report(const parallel::Comm& world, const RankLayout& ranks,
                               const HaloExchange* exchange) {
  const Decomposition& dec = ranks.group->decomposition();
  return {{"ranks", world.size()},
          {"shot_groups", world.size() / ranks.group_size},
          {"ranks_per_group", ranks.group_size},
          {"decomposition", dec.dims},
          {"cuts", dec.cuts},
          {"halo_cells", dec.halo},
          {"exchange", exchange ? exchange->name() : "none"},
          {"overlap", exchange && exchange->overlaps() && exchange->overlap},
          {"cuda_aware_mpi", parallel::cuda_aware_mpi()},
          {"exchange_seconds_rank0", exchange ? exchange->seconds : 0.0},
          {"exchange_wait_seconds_rank0", exchange ? exchange->wait_seconds() : -1.0}};
}

RunSummary execute_run_ranks(const RunConfig& config, const RunOptions& opt, parallel::Comm world) {
  PhaseClock clock;
  const RunPlan plan = make_plan(config);
  const bool writer = world.root();
  if (writer)
    for (const auto& w : plan.warnings) std::fprintf(stderr, "seisfd: warning: %s\n", w.c_str());
  const bool checkpoint_asked =
      config.run.checkpoint_steps > 0 || config.run.checkpoint_seconds > 0;
  if (checkpoint_asked && config.parallel.shot_groups > 1)
    throw ConfigError("run.checkpoint_interval",
                      "checkpoints within a shot need one shot group (--resume continues shot "
                      "groups from the first shot the gathers do not hold)",
                      config.source_path);
  const Survey survey = make_survey(plan);
  RankLayout ranks = make_rank_layout(plan, world, opt.backend);
  const ShotGroup& group = *ranks.group;

  namespace fs = std::filesystem;
  const std::string dir = config.output.directory;
  const std::string gathers_path = (fs::path(dir) / "gathers.h5").string();
  const std::string snaps_path = (fs::path(dir) / "snapshots.h5").string();
  const bool gathers = !plan.receivers.empty() && config.output.gathers;
  const bool h5 = config.output.has(OutputFormat::kHdf5),
             segy = config.output.has(OutputFormat::kSegy);
  const std::string digest = config_digest(config);
  io::DirectoryLock lock;
  std::unique_ptr<io::GatherWriter> gw;
  std::unique_ptr<io::SegyGatherWriter> sgw;
  std::unique_ptr<io::SnapshotWriter> snaps;
  if (opt.resume && !gathers)
    throw ConfigError("output.gathers", "--resume continues a gathers file; this run writes none",
                      config.source_path);
  // --resume: the shots the gathers of the stopped run hold are skipped (a shot stopped midway
  // runs again from its start).
  std::vector<double> done;
  if (writer) {
    if (opt.resume) {
      lock = io::lock_output_directory(dir);
      std::vector<int> kept;
      if (h5) {
        gw = std::make_unique<io::GatherWriter>(io::GatherWriter::resume(gathers_path, digest));
        kept = gw->shots();
      }
      if (segy) {
        sgw = std::make_unique<io::SegyGatherWriter>(
            io::SegyGatherWriter::resume((fs::path(dir) / "gathers.sgy").string(), plan.nt_out(),
                                         plan.dt * plan.out_every, digest));
        kept = resumable_segy_shots(*sgw, survey, h5 ? &kept : nullptr);
      }
      done.assign(kept.begin(), kept.end());
    } else {
      require_disk(plan.disk_need, dir);
      lock = io::prepare_output_directory(dir, opt.overwrite, input_files(config));
      if (gathers && h5) gw = std::make_unique<io::GatherWriter>(gathers_path, digest);
      if (gathers && segy) sgw = make_segy_gathers(plan, dir, "run", digest);
    }
  }
  if (checkpoint_asked && !gathers)
    throw ConfigError("run.checkpoint_interval",
                      "checkpoints continue a gathers file (--resume); this run writes none",
                      config.source_path);
  world.broadcast(done, 0);
  const auto is_done = [&](int index) {
    return std::find(done.begin(), done.end(), double(index)) != done.end();
  };
  // Checkpoints within a shot (one group): rank 0's checkpoint.h5 holds the merged traces and its
  // own state, rank k's checkpoint.rank<k>.h5 its state; all name the decomposition, and rank 0
  // writes its file last, so a set of files agrees on the step or the shot runs again.
  const bool one_group = ranks.group_size == world.size();
  const std::string checkpoint_path = (fs::path(dir) / "checkpoint.h5").string();
  const std::string my_checkpoint =
      writer
          ? checkpoint_path
          : (fs::path(dir) / ("checkpoint.rank" + std::to_string(world.rank()) + ".h5")).string();
  const std::string ckpt_digest = digest + "/" + group.decomposition().split_text();
  std::optional<io::Checkpoint> resume_from;
  if (opt.resume && one_group) {
    std::vector<double> at{-1, -1};  // shot index, step
    std::error_code ec;
    if (writer && fs::exists(checkpoint_path, ec)) {
      io::Checkpoint cp = io::read_checkpoint(checkpoint_path);
      if (cp.config_digest != ckpt_digest) {
        if (cp.config_digest.rfind(digest + "/", 0) == 0)
          throw io::IoError("checkpoint '" + checkpoint_path + "' was written by a launch split " +
                            cp.config_digest.substr(digest.size() + 1) + "; this one is split " +
                            group.decomposition().split_text() +
                            " (resume with the same ranks and backend)");
        throw io::IoError("checkpoint '" + checkpoint_path +
                          "' was written for another config or launch (" + cp.config_digest +
                          "; this one is " + ckpt_digest + ")");
      }
      if (!is_done(cp.shot)) {
        at = {double(cp.shot), double(cp.state.step)};
        resume_from = std::move(cp);
      }
    }
    world.broadcast(at, 0);
    if (at[0] >= 0 && !writer) {
      if (fs::exists(my_checkpoint, ec)) {
        io::Checkpoint cp = io::read_checkpoint(my_checkpoint);
        if (cp.config_digest == ckpt_digest && cp.shot == int(at[0]) && cp.state.step == int(at[1]))
          resume_from = std::move(cp);
      }
    }
    // Every rank needs its own state of that step; else the shot runs again from its start.
    if (at[0] >= 0 && world.any(!resume_from.has_value())) {
      if (writer)
        std::fprintf(stderr,
                     "seisfd: warning: the ranks' checkpoints of shot %d do not agree on step "
                     "%d; the shot runs again from its start\n",
                     int(at[0]), int(at[1]));
      resume_from.reset();
    }
  }
  // Snapshots are of the survey's first shot, unless the gathers already hold it.
  const bool snapshots = plan.snapshots.enabled && !is_done(survey.shots[0].index);
  if (writer && snapshots) {
    if (resume_from && resume_from->shot == survey.shots[0].index)
      snaps = std::make_unique<io::SnapshotWriter>(
          snaps_path, plan.snapshots.geometry, io::SnapshotWriter::Resume{resume_from->snapshots});
    else
      snaps = std::make_unique<io::SnapshotWriter>(snaps_path, plan.snapshots.geometry);
  }
  clock.mark("plan");
  const bool decomposed = group.comm().size() > 1;
  // A group of one rank computes the whole grid as a run of one rank does, on the device its
  // place on the node gives it (its domain is the whole grid).
  Modeling modeling(plan, opt.backend, opt.graphs, &ranks.domain);
  const std::unique_ptr<HaloExchange> exchange = make_halo_exchange(
      ranks.exchange, group.comm(), ranks.domain, modeling.engine(), config.parallel.overlap);
  modeling.set_exchange(exchange.get());
  Engine& engine = modeling.engine();
  poll_while_computing(engine, world, ranks);
  if (writer && modeling.backend() == Backend::kCuda) {
    const int devices = cuda_device_count();
    if (ranks.ranks_on_node > devices)
      std::fprintf(stderr,
                   "seisfd: warning: %d ranks share %d GPU(s) on this node: fine for testing, "
                   "slower than one rank per GPU (their kernels take turns unless NVIDIA's MPS "
                   "daemon runs: nvidia-cuda-mps-control -d)\n",
                   ranks.ranks_on_node, devices);
  }
  clock.mark("engine");

  LoopOptions lo;
  lo.diagnostics_interval = config.kernel.diagnostics_interval;
  lo.progress_every = std::max(10, std::min(100, plan.nt / 100));
  lo.stop = opt.stop;
  if (one_group && gathers) {
    lo.checkpoint_on_stop = opt.checkpoint_on_stop;
    lo.checkpoint_every = config.run.checkpoint_steps;
    lo.checkpoint_seconds = config.run.checkpoint_seconds;
  }
  lo.describe_cell = [&](int64_t i) { return cell_text(plan.grid, i); };
  if (decomposed) group.attach(lo);
  const int steps_per_shot = plan.nt - 1;
  const int nshots = static_cast<int>(survey.shots.size());
  std::vector<int> todo;  // positions in the survey of the shots to run
  for (int k = 0; k < nshots; ++k)
    if (!is_done(survey.shots[k].index)) todo.push_back(k);
  Progress progress(int64_t(steps_per_shot) * static_cast<int64_t>(todo.size()),
                    plan.grid.layout().cells(), opt.quiet || !writer);

  // The writer keeps shots that arrive out of order until those before them are written.
  std::map<int, ShotMessage> arrived;  // by position in the survey
  std::map<int, int> position;         // shot index -> position
  for (int k = 0; k < nshots; ++k) position[survey.shots[k].index] = k;
  int written = 0, finished = 0;
  nlohmann::json shot_reports = nlohmann::json::array();
  RunSummary s;
  LoopResult last;
  const auto write_ready = [&] {
    for (;;) {
      // Shots the resumed gathers hold are in the files already.
      while (written < nshots && is_done(survey.shots[written].index)) {
        shot_reports.push_back(
            {{"shot", survey.shots[written].index}, {"resumed", "already in the gathers"}});
        ++written;
      }
      const auto it = arrived.find(written);
      if (it == arrived.end()) break;
      const Shot& shot = survey.shots[written];
      const ShotMessage& m = it->second;
      write_gathers(gw.get(), sgw.get(), plan, shot, m.kept);
      std::error_code ec;
      fs::remove(checkpoint_path, ec);
      shot_reports.push_back(shot_report(shot, m.loop));
      s.steps += m.loop.steps;
      last = m.loop;
      arrived.erase(it);
      ++written;
    }
  };
  const auto take = [&](ShotMessage m) {
    arrived[position.at(m.index)] = std::move(m);
    ++finished;
    progress.update(int64_t(finished) * steps_per_shot);
    if (!opt.quiet && nshots > 1)
      std::fprintf(stderr, "\nseisfd: shot %d of %d done (index %d, %.2f s)\n", finished,
                   static_cast<int>(todo.size()), m.index, m.loop.seconds);
    write_ready();
  };

  const auto t0 = std::chrono::steady_clock::now();
  std::vector<float> buf;
  double my_loop_seconds = 0;  // this rank's time loops, every shot it ran
  const auto run_shot = [&](int j) {
    const int k = todo[j];
    const Shot& shot = survey.shots[k];
    // Snapshots are of the survey's first shot, the first to run (j = 0 goes to group 0, the
    // writer's).
    lo.snapshot_every = snapshots && k == 0 ? plan.snapshots.every : 0;
    // A shot resumed from the ranks' checkpoints: each rank's state, and rank 0's traces so far.
    const io::Checkpoint* from =
        resume_from && resume_from->shot == shot.index ? &*resume_from : nullptr;
    lo.start_step = from ? from->state.step : 0;
    const auto merged = [&](std::vector<double> t) {
      if (decomposed)
        t = group.merge(t, modeling.receiver_points(shot).id,
                        static_cast<int>(shot.receivers.size()), plan.nt);
      if (from && writer)
        for (size_t r = 0; r < shot.receivers.size(); ++r)
          for (int n = 0; n <= from->state.step; ++n)
            t[r * plan.nt + n] = from->traces[r * plan.nt + n];
      return t;
    };
    LoopCallbacks cb;
    if (writer)
      cb.on_progress = [&](int done, int) {
        progress.update(int64_t(finished) * steps_per_shot + done);
      };
    if (lo.snapshot_every > 0)
      cb.on_snapshot = [&](int field) {
        if (decomposed)
          group.gather_box(modeling.propagation(), plan.snapshots.lo, plan.snapshots.hi,
                           plan.snapshots.dec, buf);
        else
          modeling.propagation().copy_field(plan.snapshots.lo, plan.snapshots.hi,
                                            plan.snapshots.dec, buf);
        if (!writer) return;
        check_finite(buf.data(), buf.size(), "snapshot at step " + std::to_string(field));
        snaps->append(field * plan.dt, buf.data());
      };
    if (lo.checkpoint_on_stop || lo.checkpoint_every > 0 || lo.checkpoint_seconds > 0)
      cb.on_checkpoint = [&](int field) {
        io::Checkpoint cp;
        cp.config_digest = ckpt_digest;
        cp.shot = shot.index;
        cp.nt = plan.nt;
        const std::vector<double> t = merged(modeling.propagation().recorded());
        if (writer) {
          cp.snapshots = lo.snapshot_every > 0 ? snaps->count() : 0;
          cp.receivers = static_cast<int>(shot.receivers.size());
          cp.traces = t;
        }
        cp.state = modeling.propagation().state().save();
        cp.state.step = field;
        if (!writer) io::write_checkpoint(my_checkpoint, cp);
        world.barrier();  // the ranks' files first, then rank 0's, which names the step
        if (writer) io::write_checkpoint(checkpoint_path, cp);
      };
    ShotResult r;
    try {
      r = modeling.forward(shot, lo, cb, from ? &from->state : nullptr);
    } catch (const Interrupted& e) {
      // Every rank of the group stops at the same step: the traces so far reach the writer's
      // .partial file when its group was the one stopped there (complete = 0).
      const std::vector<double> t = merged(modeling.propagation().recorded());
      write_partial_gather(gw.get(), plan, shot, t, e.step());  // gw: the writer's only
      throw;
    }
    my_loop_seconds += r.loop.seconds;
    ShotMessage m;
    m.index = shot.index;
    m.loop = r.loop;
    // The samples the gathers keep, from the group's rank 0 (the others hold no traces).
    const std::vector<double> traces = merged(std::move(r.traces));
    if (!decomposed || group.comm().root())
      m.kept = kept_samples(plan, traces, static_cast<int>(shot.receivers.size()));
    // The shot is done: this rank's checkpoint of it is of no further use (rank 0 removes its
    // own once the shot is in the gathers).
    std::error_code ec;
    if (!writer) fs::remove(my_checkpoint, ec);
    return m.pack();
  };
  const ShotTimes shot_times =
      run_shots(world, ranks, static_cast<int>(todo.size()), run_shot,
                [&](int, std::vector<double> m) { take(ShotMessage::unpack(m)); });
  s.seconds = seconds_since(t0);
  clock.mark("shots");
  world.barrier();  // every rank has finished its shots before the files are closed
  // Each rank's time in its time loops, its stream's wait for the neighbours' faces (a slow
  // rank shows as its neighbours' wait), its wait to be handed shots, its time in its shots
  // (set-up and traces with the loops) and rank 0's in receiving and writing them.
  constexpr size_t kPerRank = 5;
  std::vector<double> per_rank(kPerRank * static_cast<size_t>(world.size()), 0.0);
  double* mine = &per_rank[kPerRank * world.rank()];
  mine[0] = my_loop_seconds;
  mine[1] = exchange ? exchange->wait_seconds() : -1.0;
  mine[2] = shot_times.waited;
  mine[3] = shot_times.running;
  mine[4] = shot_times.taking;
  world.sum_to(per_rank, 0);
  fill_summary(s, modeling, nshots, plan);
  s.reports = writer;
  if (!writer) return s;
  progress.finish();

  const std::vector<std::string> outputs = finish_run_files(gw.get(), sgw.get(), snaps.get(), plan);
  nlohmann::json rep = report_base(plan, s.backend, s.device, engine);
  rep["performance"] = {{"steps", s.steps},
                        {"seconds", s.seconds},
                        {"gcells_per_s", s.gcells_per_s},
                        {"cells_definition",
                         "computational grid incl. absorbing layers and halo; steps of every shot "
                         "over the wall time of the whole launch"}};
  rep["parallel"] = parallel_report(world, ranks, exchange.get());
  rep["parallel"]["per_rank"] = nlohmann::json::array();
  for (int r = 0; r < world.size(); ++r) {
    const double* t = &per_rank[kPerRank * r];
    rep["parallel"]["per_rank"].push_back({{"loop_seconds", t[0]},
                                           {"exchange_wait_seconds", t[1]},
                                           {"shot_wait_seconds", t[2]},
                                           {"shots_seconds", t[3]},
                                           {"taking_seconds", t[4]}});
  }
  rep["diagnostics"] = diagnostics_report(last, config.kernel.diagnostics_interval);
  rep["shots"] = shot_reports;
  if (opt.resume) {
    rep["resumed"] = {{"shots_already_done", done.size()}};
    if (resume_from)
      rep["resumed"]["from_checkpoint"] = {{"shot", resume_from->shot},
                                           {"step", resume_from->state.step}};
  }
  clock.mark("output");
  rep["wall_seconds"] = clock.json();
  rep["warnings"] = plan.warnings;
  rep["outputs"] = outputs;
  io::write_text_atomic((fs::path(dir) / "report.json").string(), rep.dump(2) + "\n");
  return s;
}

}  // namespace seisfd
