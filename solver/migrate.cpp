#include "solver/migrate.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <utility>

#include "io/error.hpp"
#include "io/files.hpp"
#include "io/gathers.hpp"
#include "io/image.hpp"
#include "io/model_file.hpp"
#include "io/segy.hpp"
#include "kernels/cuda_backend.hpp"
#include "kernels/huge_pages.hpp"
#include "solver/backend.hpp"
#include "solver/halo.hpp"
#include "solver/linearized.hpp"
#include "solver/model_ops.hpp"
#include "solver/observed.hpp"
#include "solver/placement.hpp"
#include "solver/plan.hpp"
#include "solver/points.hpp"
#include "solver/report.hpp"
#include "solver/run.hpp"
#include "solver/run_ranks.hpp"
#include "solver/survey.hpp"
#include "solver/text_format.hpp"
#include "solver/time_loop.hpp"
#include "solver/wavelet.hpp"

namespace seisfd {
namespace {

namespace fs = std::filesystem;

std::vector<float> to_float(const std::vector<double>& v) {
  std::vector<float> f = huge_vector<float>(v.size());
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < v.size(); ++i) f[i] = static_cast<float>(v[i]);
  return f;
}

// Imaging every k steps: the product u psi has frequencies up to 2 f_max, sampled at its
// Nyquist rate (docs/migration.md §3).
int imaging_interval(const RunPlan& p) {
  if (p.config.migration.imaging_interval > 0) return p.config.migration.imaging_interval;
  return std::max(1, static_cast<int>(std::floor(1.0 / (4.0 * p.fmax * p.dt))));
}

// The physical box: no absorbing layer damps there (the boundary strategy's region).
Box physical_box(const RunPlan& p) {
  Box b;
  for (int a = 0; a < 3; ++a) {
    b.lo[a] = p.spec.sponge.phys_lo[a];
    b.hi[a] = p.spec.sponge.phys_hi[a] + 1;
  }
  return b;
}

double host_available_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  double kb = 0;
  while (in >> key >> kb) {
    if (key == "MemAvailable:") return kb * 1024.0;
    in.ignore(1 << 10, '\n');
  }
  return 8.0 * (1ull << 30);  // not Linux: assume 8 GiB
}

struct Budgets {
  double device = 0, host = 0;
};

// The source-wavefield budget: migration.memory_budget, else what the device (the host for
// the cpu backend) has free less 10%. Per rank: `sharing` ranks share the host's memory;
// `device`: the CUDA device the run computes on.
Budgets budgets(const RunPlan& p, Backend b, int sharing = 1, int device = 0) {
  Budgets out;
  out.host = 0.9 * host_available_bytes() / sharing;
  if (p.config.migration.memory_budget > 0) {
    out.device = p.config.migration.memory_budget * (1ull << 30);
    // On the CPU the device is the host: the budget bounds every strategy.
    if (b != Backend::kCuda) out.host = std::min(out.host, out.device);
  } else if (b == Backend::kCuda) {
    out.device =
        cuda_device_count() == 0 ? 0 : 0.9 * static_cast<double>(cuda_device(device).free_bytes);
  } else {
    out.device = out.host;
  }
  return out;
}

// The estimates for an engine of step description `spec` (the plan's, or the largest rank's
// part of it in a decomposed run).
std::vector<StorageEstimate> estimates(const RunPlan& p, double device_budget,
                                       const StepSpec* spec = nullptr) {
  const Physics ph = p.config.physics.equation;
  const StepSpec& sp = spec ? *spec : p.spec;
  const ImagingSteps steps{p.nt, imaging_interval(p)};
  const Box region = physical_box(p);
  double strip = 0;
  for (const Box& b : edge_strips(region, p.grid.radius())) strip += b.cells();
  return estimate_storage(steps, traits(ph).fields, static_cast<double>(sp.layout.size()),
                          static_cast<double>(cuda_state_bytes(ph, sp)), strip,
                          p.config.migration.store_precision, device_budget);
}

std::string mib(double bytes) {
  return significant(bytes / 1048576.0, 5) + " MiB";
}

// The image geometry of the physical grid (as snapshots.h5's).
io::ImageGeometry image_geometry(const RunPlan& p) {
  io::ImageGeometry g;
  g.nz = p.grid.physical_size(0);
  g.ny = p.grid.physical_size(1);
  g.nx = p.grid.physical_size(2);
  for (int a = 0; a < 3; ++a) {
    g.spacing[a] = p.grid.spacing(a);
    g.origin[a] = p.grid.origin(a);
  }
  return g;
}

}  // namespace

std::string describe_migration(const RunPlan& p, Backend backend) {
  const Budgets b = budgets(p, backend);
  std::ostringstream os;
  const int k = imaging_interval(p);
  os << "migration   imaging every " << k << " steps (" << ImagingSteps{p.nt, k}.count()
     << " imaging steps), source-wavefield budget " << mib(b.device) << " ("
     << (backend == Backend::kCuda ? "device" : "host") << "), host " << mib(b.host) << "\n";
  const auto opts = estimates(p, b.device);
  std::string chosen;
  try {
    chosen = to_string(choose_storage(opts, b.device, b.host).kind);
  } catch (const std::runtime_error&) {
    chosen = "none fits";
  }
  for (const auto& o : opts)
    os << "            storage " << to_string(o.kind) << ": " << mib(o.device_bytes) << " device, "
       << mib(o.host_bytes) << " host, " << significant(o.propagations, 3)
       << " propagations per shot"
       << (o.kind == StorageKind::kCheckpoint ? " (" + std::to_string(o.checkpoints) + " states)"
                                              : std::string())
       << "\n";
  os << "            storage auto would take: " << chosen
     << " (a run whose engine measured its kernel weighs the propagations against pinning host "
        "memory)\n";
  return os.str();
}

RunSummary execute_migrate(const RunConfig& given, const RunOptions& opt) {
  const MigrationConfig& mc = given.migration;
  if (mc.data.empty())
    throw ConfigError("migration.data",
                      "required by seisfd migrate (the observed gathers.h5 or gathers.sgy)",
                      given.source_path);
  PhaseClock clock;
  const ObservedData reader(mc.data, given.source_path);
  RunConfig config = given;
  // migrate writes no gathers (nor their SEG-Y sampling rules); without a time step or a
  // sampling of its own it samples as the data do, so that a dt rounded for SEG-Y gathers by
  // the run that wrote them is found again.
  config.output.gathers = false;
  if (!config.time.dt && !config.output.sample_interval) {
    const std::vector<int> shots = reader.shots();
    if (!shots.empty()) config.output.sample_interval = reader.read_shot(shots[0]).dt;
  }
  RunPlan plan = make_plan(config);
  Placement at = place(plan, opt.backend, "migrate", true);
  const bool lead = at.writer();
  if (lead)
    for (const auto& w : plan.warnings) std::fprintf(stderr, "seisfd: warning: %s\n", w.c_str());
  // The GPU's anisotropic adjoint forms E p + D q and D p + q over the updated cells only (the
  // CPU's over the whole layout, halo included): over ranks it would read zeros next to a cut.
  if (at.decomposed() && config.physics.equation != Physics::kAcoustic &&
      resolve_backend(config, opt.backend) == Backend::kCuda)
    throw ConfigError("physics.equation",
                      "seisfd migrate of \"" + std::string(to_string(config.physics.equation)) +
                          "\" over several ranks runs on the cpu backend only for now (the GPU's "
                          "anisotropic adjoint does not yet read the halo); use --backend cpu or "
                          "one rank",
                      config.source_path);
  const bool h5 = config.output.has(OutputFormat::kHdf5),
             segy = config.output.has(OutputFormat::kSegy);
  // What SEG-Y cannot hold is said now, not after the migration.
  if (segy) {
    const std::string problem = io::segy_cube_problem(image_geometry(plan));
    if (!problem.empty())
      throw ConfigError("output.formats", "\"segy\" images: " + problem, config.source_path);
  }
  if (mc.shot_images && !h5)
    throw ConfigError("migration.shot_images",
                      "per-shot images are written into image.h5: add \"hdf5\" to output.formats",
                      config.source_path);
  clock.mark("plan");
  smooth_velocity(plan.model, config.grid, mc.smoothing);
  clock.mark("smoothing");
  const Survey& survey = plan.survey;

  // The data first: every shot there and consistent, before anything is allocated or written.
  const std::vector<int> have = reader.shots();
  for (const Shot& s : survey.shots)
    if (!std::binary_search(have.begin(), have.end(), s.index))
      throw ConfigError("migration.data", "'" + mc.data + "' has no shot " +
                                              std::to_string(s.index) + " (the survey has " +
                                              std::to_string(survey.shots.size()) + " shots)");
  for (const Shot& s : survey.shots) check_observed(reader.read_shot(s.index), s, plan, reader);
  clock.mark("data_check");

  EngineChoice ec = make_engine(plan, opt.backend, opt.graphs, at.engine_domain());
  Engine& e = *ec.engine;
  at.connect(e);
  clock.mark("engine");
  const ImagingSteps steps{plan.nt, imaging_interval(plan)};
  // The ranks of a node share its host memory, whether they decompose a grid or run shots.
  const Budgets b = budgets(plan, ec.backend, at.launch() ? at.ranks.ranks_on_node : 1,
                            ec.backend == Backend::kCuda ? e.context().device : 0);
  // A decomposed run: every rank keeps what the largest part needs (migration.memory_budget
  // is each rank's; boundary: as if it kept every strip); rank 0 chooses for all.
  StepSpec largest = plan.spec;
  if (at.decomposed()) {
    const Decomposition& dec = at.group().decomposition();
    largest = at.ranks.domain.spec;
    for (int r = 0; r < dec.ranks(); ++r) {
      const StepSpec l = local_spec(plan.spec, dec.subdomain(r, plan.spec));
      if (l.layout.size() > largest.layout.size()) largest = l;
    }
  }
  const std::vector<StorageEstimate> opts = estimates(plan, b.device, &largest);
  StorageEstimate storage = opts[0];
  StorageCosts costs;
  if (lead) {
    if (mc.storage == StorageKind::kAuto) {
      const int groups = at.launch() ? at.world.size() / at.ranks.group_size : 1;
      const int shots = static_cast<int>((survey.shots.size() + groups - 1) / groups);
      costs = storage_costs(e, plan.nt, shots, opts, b.device, b.host);
      storage = choose_storage(opts, b.device, b.host, &costs);
    } else {
      for (const auto& o : opts)
        if (o.kind == mc.storage) storage = o;
      if (storage.device_bytes > b.device || storage.host_bytes > b.host)
        throw std::runtime_error(std::string("migration.storage = \"") + to_string(mc.storage) +
                                 "\" needs " + mib(storage.device_bytes) + " of device and " +
                                 mib(storage.host_bytes) + " of host memory, the budget is " +
                                 mib(b.device) + " and " + mib(b.host));
    }
  }
  if (at.launch()) {  // rank 0's choice for every rank (every group's too)
    int choice[3] = {static_cast<int>(storage.kind), storage.checkpoints,
                     static_cast<int>(storage.strips)};
    for (int& v : choice) at.world.broadcast(v, 0);
    for (const auto& o : opts)
      if (static_cast<int>(o.kind) == choice[0]) storage = o;
    storage.checkpoints = choice[1];
    storage.strips = static_cast<ArrayKind>(choice[2]);
  }

  const std::string dir = config.output.directory;
  io::DirectoryLock lock;
  const std::string image_path = (fs::path(dir) / "image.h5").string();
  std::unique_ptr<io::ImageWriter> writer;
  if (lead) {
    lock = io::prepare_output_directory(dir, opt.overwrite, input_files(config));
    if (h5) writer = std::make_unique<io::ImageWriter>(image_path, image_geometry(plan));
  }
  std::vector<std::string> outputs;
  const std::string producer = "seisfd " + seisfd_version() + " migrate";
  // image_<name>.sgy per condition and for the illumination (docs/outputs.md §8).
  const auto write_segy = [&](const std::string& name, const float* data, const char* units) {
    const std::string path = (fs::path(dir) / ("image_" + name + ".sgy")).string();
    io::write_segy_cube(path, image_geometry(plan), data, "RTM " + name, units, producer);
    outputs.push_back(path);
  };

  // The images the output needs, no more (each costs an imaging step a read and a write of
  // every cell): the illumination always (image.h5 holds it), the cross-correlation for
  // crosscorrelation, normalized and the shots' own images, the zero-lag correlation for
  // inverse_scattering.
  const auto wanted = [&](ImagingCondition c) {
    return std::find(mc.conditions.begin(), mc.conditions.end(), c) != mc.conditions.end();
  };
  const auto image_if = [&](bool needed) {
    return needed ? e.make_array(ArrayKind::kDevice) : std::unique_ptr<CellArray>();
  };
  auto cc = image_if(wanted(ImagingCondition::kCrossCorrelation) ||
                     wanted(ImagingCondition::kNormalized) || mc.shot_images),
       il = image_if(true), zl = image_if(wanted(ImagingCondition::kInverseScattering));
  const size_t nphys = static_cast<size_t>(plan.grid.physical_size(0)) *
                       plan.grid.physical_size(1) * plan.grid.physical_size(2);
  // The shots stack in the engine's arrays (no per-shot download); a shot's own image is the
  // difference of the stack before and after it (downloaded only for migration.shot_images).
  for (auto* a : {cc.get(), il.get(), zl.get()})
    if (a) a->zero();
  std::vector<float> before(mc.shot_images ? nphys : 0, 0.0f);
  // A stack's physical cells on its group's rank 0 (empty elsewhere, and for an image not
  // computed), in float: one rank a group takes the engine's array as it is, without the double
  // copies a gather over ranks works in.
  const auto physical_stack = [&](const std::unique_ptr<CellArray>& a) {
    if (!a) return std::vector<float>{};
    if (!at.decomposed()) return layout_to_physical(plan.grid, a->download_float());
    const std::vector<double> v = global_cells(at, a->download());
    return v.empty() ? std::vector<float>{} : to_float(layout_to_physical(plan.grid, v));
  };
  // One storage for every shot: what it allocates at the first it reuses.
  StorageRanks storage_ranks;
  if (at.decomposed()) storage_ranks = {at.ranks.domain.sub, at.exchange.get()};
  auto store = make_storage(choice_of(storage, mc.store_precision), e, steps, physical_box(plan),
                            plan.grid.radius(), at.decomposed() ? &storage_ranks : nullptr);
  clock.mark("storage");
  const double v_mute = mc.mute_velocity > 0 ? mc.mute_velocity : plan.model.vmin;
  RunSummary s;
  std::map<int, nlohmann::json> shot_reports;  // by position in the survey
  const int n = static_cast<int>(survey.shots.size());
  // A shot on the ranks of its group, stacked into the group's images. What the group's rank 0
  // reports: seconds, forward and backward seconds, source forward steps, then (with
  // migration.shot_images) the shot's own cross-correlation image.
  const auto migrate_shot = [&](int k) {
    if (at.stop(opt)) throw Interrupted(k);
    const Shot& shot = survey.shots[k];
    const auto t0 = std::chrono::steady_clock::now();
    const ShotOperator op = shot_operator(plan, shot, at);
    std::vector<double> data = observed_traces(reader.read_shot(shot.index), shot, plan, reader);
    if (mc.direct_arrival == DirectArrival::kMute)
      mute(data, shot, plan, v_mute, mc.mute_time, mc.mute_taper);
    clock.mark("data");
    if (mc.direct_arrival == DirectArrival::kModel) {
      std::vector<double> model = merged_traces(
          at, op, shot, apply_forward(e, op.sources, op.wavelet, op.receivers, op.nt, op.exchange));
      if (at.decomposed()) at.group().comm().broadcast(model, 0);
      for (size_t i = 0; i < data.size(); ++i) data[i] -= model[i];
    }
    if (at.decomposed()) {  // the rows of the rank's own receivers, in their order
      const size_t nt = static_cast<size_t>(op.nt);
      std::vector<double> mine(op.receivers.id.size() * nt);
      for (size_t r = 0; r < op.receivers.id.size(); ++r)
        std::copy_n(data.begin() + op.receivers.id[r] * nt, nt, mine.begin() + r * nt);
      data = std::move(mine);
    }
    ShotImages im{cc.get(), il.get(), zl.get()};
    MigrationTimes times;
    migrate(e, op, data, *store, steps, im, &times);
    clock.mark("shots");
    std::vector<double> m{seconds_since(t0), times.forward, times.backward,
                          double(store->forward_steps())};
    if (mc.shot_images) {
      std::vector<float> c = physical_stack(cc);
      if (!c.empty()) {  // the group's rank 0
        for (size_t j = 0; j < nphys; ++j)
          m.push_back(static_cast<float>(double(c[j]) - double(before[j])));
        before = std::move(c);
      }
    }
    return m;
  };
  int taken = 0;
  const auto take = [&](int k, std::vector<double> m) {
    const Shot& shot = survey.shots[k];
    if (mc.shot_images) {
      const std::vector<float> cf(m.begin() + 4, m.end());
      writer->write_shot(shot.index, "crosscorrelation", cf.data());
    }
    s.seconds += m[0];
    s.steps += static_cast<long long>(m[3]) + (plan.nt - 1);
    shot_reports[k] = {{"shot", shot.index},
                       {"seconds", m[0]},
                       {"forward_seconds", m[1]},
                       {"backward_seconds", m[2]},
                       {"source_forward_steps", static_cast<long long>(m[3])}};
    clock.mark("stack");
    ++taken;
    if (!opt.quiet)
      std::fprintf(stderr, "seisfd: migrated shot %d/%d (index %d): %.2f s, storage %s\n", taken, n,
                   shot.index, m[0], to_string(storage.kind));
  };
  const auto t_shots = std::chrono::steady_clock::now();
  at.shots(n, migrate_shot, take);
  // Several groups: the launch's wall time (the shots' own seconds overlap).
  const bool groups = at.launch() && at.ranks.group_size < at.world.size();
  if (groups) s.seconds = seconds_since(t_shots);
  nlohmann::json shots = nlohmann::json::array();
  for (auto& [k, r] : shot_reports) shots.push_back(std::move(r));

  // The imaging conditions (docs/migration.md §5).
  const int nz = plan.grid.physical_size(0), ny = plan.grid.physical_size(1),
            nx = plan.grid.physical_size(2);
  const double h[3] = {plan.grid.spacing(0), plan.grid.spacing(1), plan.grid.spacing(2)};
  // Each group's stacks on its rank 0 (physical cells), then the groups' summed on the writer
  // (in double, rounded once at the end).
  std::vector<float> cc_f = physical_stack(cc), il_f = physical_stack(il),
                     zl_f = physical_stack(zl);
  if (groups) {
    const std::pair<std::vector<float>*, const CellArray*> stacks[] = {
        {&cc_f, cc.get()}, {&il_f, il.get()}, {&zl_f, zl.get()}};
    for (const auto& [f, a] : stacks)
      if (a) *f = sum_groups(at, std::move(*f));
  }
  clock.mark("image_assembly");  // the stacks downloaded, assembled and summed
  s.backend = to_string(ec.backend);
  s.device = ec.device;
  s.kernel = e.name();
  s.shots = n;
  s.directory = dir;
  s.reports = lead;
  if (!lead) return s;
  std::vector<std::string> written;
  for (ImagingCondition cond : mc.conditions) {
    std::vector<float> img = imaging_condition(cond, cc_f, il_f, zl_f, nz, ny, nx, h);
    if (mc.laplacian) img = negative_laplacian(img, nz, ny, nx, h);
    if (writer) writer->write(to_string(cond), img.data());
    if (segy) write_segy(to_string(cond), img.data(), "ARBITRARY (IMAGE.H5 UNITS)");
    written.push_back(to_string(cond));
  }
  if (segy) write_segy("illumination", il_f.data(), "SUM OF SQUARED SOURCE FIELD");
  if (writer) {
    writer->write_illumination(il_f.data());
    writer->set_shots(n);
    writer->finish();
    outputs.insert(outputs.begin(), {image_path, (fs::path(dir) / "image.xmf").string()});
  }
  clock.mark("image_files");  // the imaging conditions computed and written
  if (config.output.model)
    for (const std::string& p : write_model_output(dir, plan)) outputs.push_back(p);

  s.gcells_per_s =
      s.seconds > 0 ? double(plan.grid.layout().cells()) * s.steps / s.seconds / 1e9 : 0;
  nlohmann::json rep = report_base(plan, s.backend, s.device, e);
  report_ranks(rep, at);
  nlohmann::json est = nlohmann::json::array();
  for (const auto& o : opts) {
    est.push_back({{"storage", to_string(o.kind)},
                   {"device_bytes", o.device_bytes},
                   {"host_bytes", o.host_bytes},
                   {"propagations_per_shot", o.propagations}});
    if (costs.seconds_per_propagation > 0) est.back()["estimated_seconds"] = costs.seconds(o);
  }
  rep["migration"] = {{"storage", to_string(storage.kind)},
                      {"storage_requested", to_string(mc.storage)},
                      {"store_precision", to_string(mc.store_precision)},
                      {"checkpoints", storage.checkpoints},
                      {"imaging_interval", steps.interval},
                      {"imaging_steps", steps.count()},
                      {"device_budget_bytes", b.device},
                      {"host_budget_bytes", b.host},
                      {"estimates", est},
                      {"auto_costs",
                       {{"seconds_per_propagation", costs.seconds_per_propagation},
                        {"pin_seconds_per_gib", costs.pin_seconds_per_byte * (1ull << 30)},
                        {"shots_per_group", costs.shots}}},
                      {"conditions", written},
                      {"laplacian", mc.laplacian},
                      {"smoothing_m", mc.smoothing},
                      {"direct_arrival", to_string(mc.direct_arrival)},
                      {"shots", shots}};
  if (storage.kind == StorageKind::kBoundary)
    rep["migration"]["boundary_strips"] = storage.strips == ArrayKind::kHost ? "host" : "device";
  rep["performance"] = {{"steps", s.steps},
                        {"seconds", s.seconds},
                        {"gcells_per_s", s.gcells_per_s},
                        {"cells_definition",
                         "computational grid incl. absorbing layers and halo; every forward "
                         "(source) and adjoint step counts"}};
  rep["warnings"] = plan.warnings;
  rep["outputs"] = outputs;
  clock.mark("output");
  rep["wall_seconds"] = clock.json();
  io::write_text_atomic((fs::path(dir) / "report.json").string(), rep.dump(2) + "\n");
  return s;
}

}  // namespace seisfd
