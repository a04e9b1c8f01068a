#include "solver/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>

#include "kernels/cuda_backend.hpp"
#include "io/error.hpp"
#include "io/snapshots.hpp"
#include "solver/modeling.hpp"
#include "solver/run.hpp"
#include "solver/time_loop.hpp"

namespace seisfd {

std::string cell_text(const SimGrid& g, int64_t i) {
  if (i < 0) return "unknown cell";
  const Layout& l = g.layout();
  int c[3];
  l.coords(i, c[0], c[1], c[2]);
  // Physical indices (negative or past the end outside the physical domain), and where the cell
  // lies: the physical domain, an absorbing layer, or the ghost halo around them.
  bool physical = true, halo = false;
  int rel[3];
  for (int a = 0; a < 3; ++a) {
    rel[a] = c[a] - g.offset(a);
    if (rel[a] < 0 || rel[a] >= g.physical_size(a)) physical = false;
    if (rel[a] < -g.width_lo(a) || rel[a] >= g.physical_size(a) + g.width_hi(a)) halo = true;
  }
  const char* where = physical ? "physical cell" : halo ? "halo cell" : "absorbing-layer cell";
  return std::string(where) + " (x=" + std::to_string(rel[2]) + ", y=" + std::to_string(rel[1]) +
         ", z=" + std::to_string(rel[0]) + (physical ? ")" : " from the physical corner)");
}

std::string now_iso() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::vector<float> kept_samples(const RunPlan& plan, const std::vector<double>& full, int receivers,
                                int samples) {
  const int nto = samples < 0 ? plan.nt_out() : samples;
  std::vector<float> kept(static_cast<size_t>(receivers) * nto);
#pragma omp parallel for schedule(static)
  for (int r = 0; r < receivers; ++r)
    for (int k = 0; k < nto; ++k)
      kept[static_cast<size_t>(r) * nto + k] =
          static_cast<float>(full[static_cast<size_t>(r) * plan.nt + k * plan.out_every]);
  return kept;
}

void append_floats(std::vector<double>& message, const std::vector<float>& values) {
  const size_t at = message.size();
  message.resize(at + (values.size() + 1) / 2, 0.0);
  if (!values.empty()) std::memcpy(&message[at], values.data(), values.size() * sizeof(float));
}

std::vector<float> floats_at(const std::vector<double>& message, size_t at, size_t n) {
  if (at + (n + 1) / 2 > message.size())
    throw std::logic_error("floats_at: the message holds fewer floats than asked for");
  std::vector<float> out(n);
  if (n > 0) std::memcpy(out.data(), &message[at], n * sizeof(float));
  return out;
}

namespace {
// The receivers' positions, (x, y, z) each, as the gathers hold them.
std::vector<double> receiver_xyz(const Shot& shot) {
  std::vector<double> xyz;
  for (const auto& p : shot.receivers) xyz.insert(xyz.end(), p.begin(), p.end());
  return xyz;
}
}  // namespace

void write_gathers(io::GatherWriter* gw, io::SegyGatherWriter* sgw, const RunPlan& plan,
                   const Shot& shot, const std::vector<float>& kept) {
  if (!gw && !sgw) return;
  const int nr = static_cast<int>(shot.receivers.size());
  if (kept.size() != static_cast<size_t>(nr) * plan.nt_out())
    throw std::logic_error("write_gathers: traces of another shape than the shot's");
  check_finite(kept.data(), kept.size(), "shot " + std::to_string(shot.index) + "'s traces");
  const std::vector<double> xyz = receiver_xyz(shot);
  if (sgw) sgw->write_shot(shot.index, kept.data(), nr, xyz.data(), shot.source);
  if (gw)
    gw->write_shot(shot.index, kept.data(), nr, plan.nt_out(), xyz.data(), shot.source,
                   plan.dt * plan.out_every, 0.0);
}

std::vector<std::string> finish_gathers(io::GatherWriter* gw, const std::string& h5_path,
                                        io::SegyGatherWriter* sgw) {
  std::vector<std::string> out;
  if (gw) {
    gw->finish();
    out.push_back(h5_path);
  }
  if (sgw) {
    sgw->finish();
    out.push_back(sgw->final_path());
  }
  return out;
}

std::unique_ptr<io::SegyGatherWriter> make_segy_gathers(const RunPlan& plan, const std::string& dir,
                                                        const std::string& producer,
                                                        const std::string& config_digest) {
  return std::make_unique<io::SegyGatherWriter>(
      (std::filesystem::path(dir) / "gathers.sgy").string(), plan.nt_out(),
      plan.dt * plan.out_every, "seisfd " + seisfd_version() + " " + producer, config_digest);
}

void check_finite(const float* data, size_t n, const std::string& what) {
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < n; ++i)
    if (!std::isfinite(data[i]) && bad++ == 0) first = i;
  if (bad == 0) return;
  throw NumericalError(what + ": " + std::to_string(bad) + " of " + std::to_string(n) +
                       " samples are not finite as the float32 that is written (first at sample " +
                       std::to_string(first) +
                       "; values beyond 3.4e38 overflow float32; is the source amplitude sane?)");
}

void write_partial_gather(io::GatherWriter* gw, const RunPlan& plan, const Shot& shot,
                          const std::vector<double>& full, int fields) {
  const int nr = static_cast<int>(shot.receivers.size());
  if (!gw) return;
  const int nto = std::min(plan.nt_out(), fields / plan.out_every + 1);
  if (nr == 0 || full.size() < static_cast<size_t>(nr) * plan.nt) return;
  const std::vector<float> traces = kept_samples(plan, full, nr, nto);
  const std::vector<double> xyz = receiver_xyz(shot);
  try {
    gw->write_shot(shot.index, traces.data(), nr, nto, xyz.data(), shot.source,
                   plan.dt * plan.out_every, 0.0, "Pa", false);
  } catch (const io::IoError& e) {
    std::fprintf(stderr, "seisfd: warning: the traces recorded so far were not kept: %s\n",
                 e.what());
  }
}

std::vector<std::string> input_files(const RunConfig& c) {
  std::vector<std::string> out{
      c.model.path,  c.model.epsilon.path, c.model.delta.path, c.model.theta.path, c.model.phi.path,
      c.source.file, c.receivers.file,     c.shots.file,       c.migration.data,   c.born.path};
  out.erase(std::remove(out.begin(), out.end(), std::string()), out.end());
  return out;
}

std::string config_digest(const RunConfig& config) {
  nlohmann::json j = nlohmann::json::parse(config_to_json(config));
  j.erase("output");
  j.erase("kernel");
  j.erase("run");
  j.erase("parallel");
  j.erase("source_path");
  const std::string text = j.dump();
  uint64_t h = 1469598103934665603ull;  // FNV-1a, 64 bits
  for (const unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[20];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

nlohmann::json report_base(const RunPlan& plan, const std::string& backend,
                           const std::string& device, const Engine& engine) {
  nlohmann::json rep;
  rep["seisfd_version"] = seisfd_version();
  rep["finished"] = now_iso();
  rep["config"] = nlohmann::json::parse(config_to_json(plan.config));
  rep["backend"] = {{"name", backend},
                    {"device", device},
                    {"kernel", engine.name()},
                    {"graphs", engine.graphs()},
                    {"cuda_runtime", cuda_runtime_version()}};
  for (const auto& [key, value] : engine.details()) rep["backend"][key] = value;
  const Layout& l = plan.grid.layout();
  rep["grid"] = {{"computational_zyx", {l.nz, l.ny, l.nx}}, {"cells", l.cells()}};
  rep["time"] = {{"dt", plan.dt},
                 {"dt_limit", plan.dt_limit},
                 {"nt", plan.nt},
                 {"output_dt", plan.dt * plan.out_every}};
  return rep;
}

void PhaseClock::mark(const std::string& phase) {
  const auto now = std::chrono::steady_clock::now();
  const double sec = std::chrono::duration<double>(now - last_).count();
  phases_[phase] = phases_.value(phase, 0.0) + sec;
  last_ = now;
}

nlohmann::json PhaseClock::json() const {
  nlohmann::json j = phases_;
  j["total"] = seconds_since(start_);
  return j;
}

// The shots a resumed gathers.sgy keeps: the leading ones whole (every receiver's trace) and,
// with gathers.h5 resumed beside it, in that file too (gathers.sgy is written first, so at most
// its last shot is missing there). The traces after them are dropped.
std::vector<int> resumable_segy_shots(io::SegyGatherWriter& w, const Survey& survey,
                                      const std::vector<int>* h5_shots) {
  std::vector<int> keep;
  for (const auto& [shot, traces] : w.traces_per_shot()) {
    const int index = shot;  // a structured binding cannot be captured before C++20 (clang)
    const auto s = std::find_if(survey.shots.begin(), survey.shots.end(),
                                [&](const Shot& x) { return x.index == index; });
    const bool whole = s != survey.shots.end() && traces == static_cast<int>(s->receivers.size());
    const bool in_h5 =
        !h5_shots || std::find(h5_shots->begin(), h5_shots->end(), shot) != h5_shots->end();
    if (!whole || !in_h5) break;
    keep.push_back(shot);
  }
  w.keep_first(keep.size());
  return keep;
}

nlohmann::json shot_report(const Shot& shot, const LoopResult& loop) {
  return {{"shot", shot.index},
          {"source", shot.source},
          {"receivers", shot.receivers.size()},
          {"steps", loop.steps},
          {"seconds", loop.seconds},
          {"sum_sq", loop.last.sum_sq},
          {"max_abs", loop.last.max_abs}};
}

nlohmann::json diagnostics_report(const LoopResult& last, int interval_steps) {
  return {{"sum_sq", last.last.sum_sq},
          {"max_abs", last.last.max_abs},
          {"nonfinite", last.last.nonfinite},
          {"checks", last.diagnostics_runs},
          {"interval_steps", interval_steps}};
}

std::vector<std::string> finish_run_files(io::GatherWriter* gw, io::SegyGatherWriter* sgw,
                                          io::SnapshotWriter* snaps, const RunPlan& plan) {
  namespace fs = std::filesystem;
  const std::string dir = plan.config.output.directory;
  std::vector<std::string> outputs =
      finish_gathers(gw, (fs::path(dir) / "gathers.h5").string(), sgw);
  if (snaps) {
    snaps->finish();
    outputs.push_back((fs::path(dir) / "snapshots.h5").string());
    outputs.push_back((fs::path(dir) / "snapshots.xmf").string());
  }
  if (plan.config.output.model)
    for (const std::string& p : write_model_output(dir, plan)) outputs.push_back(p);
  return outputs;
}

void fill_summary(RunSummary& s, const Modeling& modeling, int shots, const RunPlan& plan) {
  s.backend = to_string(modeling.backend());
  s.device = modeling.device();
  s.kernel = modeling.engine().name();
  s.shots = shots;
  s.gcells_per_s =
      s.seconds > 0 ? double(plan.grid.layout().cells()) * s.steps / s.seconds / 1e9 : 0;
  s.directory = plan.config.output.directory;
}

}  // namespace seisfd
