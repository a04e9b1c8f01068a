// `seisfd born` (docs/migration.md §2): Born modelling of a survey into gathers.h5, shot after
// shot on one engine (or on the shot groups of a launch).
#include "solver/migrate.hpp"

#include <chrono>
#include <filesystem>
#include <map>

#include "io/error.hpp"
#include "io/files.hpp"
#include "io/model_file.hpp"
#include "solver/backend.hpp"
#include "solver/linearized.hpp"
#include "solver/model_ops.hpp"
#include "solver/placement.hpp"
#include "solver/report.hpp"
#include "solver/run.hpp"
#include "solver/time_loop.hpp"

namespace seisfd {

namespace fs = std::filesystem;

RunSummary execute_born(const RunConfig& config, const RunOptions& opt) {
  RunPlan plan = make_plan(config);
  Placement at = place(plan, opt.backend, "born", true);
  const bool writer = at.writer();
  if (writer)
    for (const auto& w : plan.warnings) std::fprintf(stderr, "seisfd: warning: %s\n", w.c_str());
  const BornConfig& bc = config.born;
  // The perturbation, of the model as given; then the background.
  std::vector<float> dm;
  if (bc.perturbation == PerturbationType::kFile) {
    try {
      dm = io::read_volume(bc.path, bc.dataset, {config.grid.nz, config.grid.ny, config.grid.nx});
    } catch (const io::IoError& e) {
      throw ConfigError::input_file("born.path", e.what(), config.source_path);
    }
  } else {
    dm = reflector_perturbation(plan.model, config.grid, bc.contrast);
  }
  if (bc.background == BackgroundType::kSmooth)
    smooth_velocity(plan.model, config.grid, config.migration.smoothing);
  const Survey& survey = plan.survey;
  EngineChoice ec = make_engine(plan, opt.backend, opt.graphs, at.engine_domain());
  Engine& e = *ec.engine;
  at.connect(e);
  auto dm_array = e.make_array(ArrayKind::kDevice);
  dm_array->upload(local_cells(plan, at, physical_to_layout(plan.grid, dm)));
  const std::string dir = config.output.directory;
  io::DirectoryLock lock;
  std::unique_ptr<io::GatherWriter> gw;
  std::unique_ptr<io::SegyGatherWriter> sgw;
  const std::string gathers_path = (fs::path(dir) / "gathers.h5").string();
  if (writer) {
    lock = io::prepare_output_directory(dir, opt.overwrite, input_files(config));
    if (config.output.has(OutputFormat::kHdf5))
      gw = std::make_unique<io::GatherWriter>(gathers_path);
    if (config.output.has(OutputFormat::kSegy)) sgw = make_segy_gathers(plan, dir, "born");
  }
  RunSummary s;
  s.reports = writer;
  nlohmann::json shots = nlohmann::json::array();
  const int n = static_cast<int>(survey.shots.size());
  // A shot on the ranks of its group: its seconds, then its traces (on the group's rank 0).
  const auto born_shot = [&](int k) {
    if (at.stop(opt)) throw Interrupted(k);
    const Shot& shot = survey.shots[k];
    const auto t0 = std::chrono::steady_clock::now();
    const ShotOperator op = shot_operator(plan, shot, at);
    const std::vector<double> traces = merged_traces(at, op, shot, born(e, op, *dm_array));
    e.synchronize();
    std::vector<double> m{seconds_since(t0)};
    // The kept samples only (the group's rank 0 holds the merged traces; the others none).
    if (!traces.empty())
      append_floats(m, kept_samples(plan, traces, static_cast<int>(shot.receivers.size())));
    return m;
  };
  // The writer writes the shots in the survey's order.
  std::map<int, std::vector<double>> arrived;
  int written = 0;
  const auto take = [&](int k, std::vector<double> m) {
    arrived[k] = std::move(m);
    for (auto it = arrived.find(written); it != arrived.end(); it = arrived.find(written)) {
      const Shot& shot = survey.shots[written];
      const double sec = it->second[0];
      write_gathers(gw.get(), sgw.get(), plan, shot,
                    floats_at(it->second, 1, shot.receivers.size() * size_t(plan.nt_out())));
      s.seconds += sec;
      s.steps += 2 * (plan.nt - 1);
      shots.push_back({{"shot", shot.index}, {"seconds", sec}});
      if (!opt.quiet)
        std::fprintf(stderr, "seisfd: born shot %d/%d (index %d): %.2f s\n", written + 1, n,
                     shot.index, sec);
      arrived.erase(it);
      ++written;
    }
  };
  const auto t_shots = std::chrono::steady_clock::now();
  at.shots(n, born_shot, take);
  // Several groups: the launch's wall time (the shots' own seconds overlap).
  if (at.launch() && at.ranks.group_size < at.world.size()) s.seconds = seconds_since(t_shots);
  s.backend = to_string(ec.backend);
  s.device = ec.device;
  s.kernel = e.name();
  s.shots = n;
  s.directory = dir;
  if (!writer) return s;
  std::vector<std::string> outputs = finish_gathers(gw.get(), gathers_path, sgw.get());
  if (config.output.model)
    for (const std::string& p : write_model_output(dir, plan)) outputs.push_back(p);
  s.gcells_per_s =
      s.seconds > 0 ? double(plan.grid.layout().cells()) * s.steps / s.seconds / 1e9 : 0;
  nlohmann::json rep = report_base(plan, s.backend, s.device, e);
  report_ranks(rep, at);
  rep["born"] = {{"perturbation", to_string(bc.perturbation)},
                 {"background", to_string(bc.background)},
                 {"shots", shots}};
  rep["performance"] = {{"steps", s.steps},
                        {"seconds", s.seconds},
                        {"gcells_per_s", s.gcells_per_s},
                        {"cells_definition",
                         "computational grid incl. absorbing layers and halo; "
                         "the background and the scattered field count"}};
  rep["warnings"] = plan.warnings;
  rep["outputs"] = outputs;
  io::write_text_atomic((fs::path(dir) / "report.json").string(), rep.dump(2) + "\n");
  return s;
}

}  // namespace seisfd
