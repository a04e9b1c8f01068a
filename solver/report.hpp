// What the drivers (seisfd run, born, migrate) write alike: the gathers of a shot, the common
// part of report.json, and the texts of their messages.
#pragma once
#include <nlohmann/json.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "io/gathers.hpp"
#include "io/segy.hpp"
#include "kernels/engine.hpp"
#include "kernels/wall_clock.hpp"
#include "solver/plan.hpp"
#include "solver/survey.hpp"

namespace seisfd {

// "physical cell (x=.., y=.., z=..)" of a layout index, for messages; "absorbing-layer cell" or
// "halo cell" with the same (then negative or too large) physical indices outside the domain.
std::string cell_text(const SimGrid& g, int64_t i);
std::string now_iso();  // UTC, ISO 8601

// The samples the gathers keep of a shot's traces [receivers][nt] (every step): every
// out_every-th, as float32, [receivers][samples] (samples < 0: nt_out, the whole shot). A shot
// group sends these to the writer, not the steps' doubles (at 4 steps a sample, an eighth of
// the bytes).
std::vector<float> kept_samples(const RunPlan& plan, const std::vector<double>& traces,
                                int receivers, int samples = -1);
// Floats carried in a message of doubles, two a double (the message's own words first), and
// back: n floats from position `at`.
void append_floats(std::vector<double>& message, const std::vector<float>& values);
std::vector<float> floats_at(const std::vector<double>& message, size_t at, size_t n);
// The kept samples (kept_samples) into whichever of gathers.h5 (gw) and gathers.sgy (sgw,
// output.formats = [..., "segy"]) the run writes (either may be null), checked once;
// gathers.sgy first.
void write_gathers(io::GatherWriter* gw, io::SegyGatherWriter* sgw, const RunPlan& plan,
                   const Shot& shot, const std::vector<float>& kept);
// Finishes both (either may be null); returns the final paths, gathers.h5 (h5_path) first.
std::vector<std::string> finish_gathers(io::GatherWriter* gw, const std::string& h5_path,
                                        io::SegyGatherWriter* sgw);
// A new gathers.sgy(.partial) in dir for the plan's sampling; producer: the command ("run");
// config_digest: what `seisfd run --resume` compares (config_digest()).
std::unique_ptr<io::SegyGatherWriter> make_segy_gathers(const RunPlan& plan, const std::string& dir,
                                                        const std::string& producer,
                                                        const std::string& config_digest = "");
// NumericalError naming `what` and how many of its n values are NaN or Inf (what is written is
// float32: a finite fp64 value beyond its range is one of them).
void check_finite(const float* data, size_t n, const std::string& what);
// The traces of a shot stopped after field `fields` (samples 0 .. fields), as a shot group
// with complete = 0, into gw (null: nothing). A write error is a warning on stderr: the run is
// stopping for another reason, which its error reports.
void write_partial_gather(io::GatherWriter* gw, const RunPlan& plan, const Shot& shot,
                          const std::vector<double>& traces, int fields);

// The shots a resumed gathers.sgy keeps: the leading ones whole (every receiver's trace) and,
// with gathers.h5 resumed beside it (h5_shots), in that file too; the traces after them dropped.
std::vector<int> resumable_segy_shots(io::SegyGatherWriter& w, const Survey& survey,
                                      const std::vector<int>* h5_shots);
// The files the config reads (model, anisotropy, wavelet, positions, observed data, Born
// perturbation): --overwrite never removes them from the output directory.
std::vector<std::string> input_files(const RunConfig& c);

// What must not change for `seisfd run --resume` to continue a gathers file: a hash of the
// resolved config without [output] and [kernel] (where and on what it runs).
std::string config_digest(const RunConfig& config);

struct LoopResult;
struct RunSummary;
class Modeling;
namespace io {
class SnapshotWriter;
}
// report.json's entry of a modelled shot, and its "diagnostics" (of the last check of `last`).
nlohmann::json shot_report(const Shot& shot, const LoopResult& loop);
nlohmann::json diagnostics_report(const LoopResult& last, int interval_steps);
// What `seisfd run` finishes once its shots are done: the gathers (either writer may be null),
// the snapshots (snaps may be null) and output.model; returns the paths written.
std::vector<std::string> finish_run_files(io::GatherWriter* gw, io::SegyGatherWriter* sgw,
                                          io::SnapshotWriter* snaps, const RunPlan& plan);
// The summary's backend, device, kernel, shots, Gcells/s (of s.steps over s.seconds, the layout's
// cells) and directory.
void fill_summary(RunSummary& s, const Modeling& modeling, int shots, const RunPlan& plan);
// report.json's common keys: version, time, the resolved config, backend (with the engine's
// details), grid and time.
nlohmann::json report_base(const RunPlan& plan, const std::string& backend,
                           const std::string& device, const Engine& engine);

// Wall-clock time of a driver's phases for report.json's "wall_seconds": mark(name) closes the
// phase that began at the previous mark (or at construction). Tells where a run's time went
// besides the propagation (model building, smoothing, data checks, tuning, output).
class PhaseClock {
 public:
  PhaseClock() : start_(std::chrono::steady_clock::now()), last_(start_) {}
  void mark(const std::string& phase);
  nlohmann::json json() const;  // {phase: s, ..., "total": s}

 private:
  std::chrono::steady_clock::time_point start_, last_;
  nlohmann::json phases_ = nlohmann::json::object();
};

}  // namespace seisfd
