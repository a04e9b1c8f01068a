// The observed data of a migration (migration.data): gathers.h5 or a SEG-Y file read shot by
// shot, each shot checked against the survey (source, receivers, sampling) and resampled to
// every time step, and the direct-arrival mute.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "io/gathers.hpp"
#include "io/segy.hpp"
#include "solver/plan.hpp"
#include "solver/survey.hpp"

namespace seisfd {

// The reader of migration.data; its errors are ConfigErrors of that key, naming the file and
// the shot (SEG-Y: the trace).
class ObservedData {
 public:
  ObservedData(const std::string& path, const std::string& config);
  std::vector<int> shots() const;
  io::ShotData read_shot(int shot) const;
  // "'<file>' shot 3: ", or for SEG-Y "'<file>' trace 57 (shot 3, receiver 5): " naming the
  // trace of receiver r (the shot's first trace for r < 0).
  std::string where(int shot, long r = -1) const;
  // For a SEG-Y trace whose source and group x/y are all 0: why, else "".
  std::string missing(int shot, long r) const;
  const std::string& path() const { return path_; }

 private:
  template <class F>
  auto keyed(F&& f) const -> decltype(f());
  std::string path_, config_;
  std::unique_ptr<io::GatherReader> h5_;
  std::unique_ptr<io::SegyGatherReader> segy_;
};

// Checks one shot of the observed data against the survey: source, receivers, sample interval
// (a whole multiple of dt), first sample at t = 0 and sample count. Throws ConfigError.
void check_observed(const io::ShotData& d, const Shot& s, const RunPlan& p,
                    const ObservedData& data);

// The observed traces of one shot, checked against the survey and resampled to every step
// ([receiver][step]).
std::vector<double> observed_traces(const io::ShotData& d, const Shot& s, const RunPlan& p,
                                    const ObservedData& data);

// Zero the samples before offset / v + t0, with a cosine taper over `taper` seconds after.
void mute(std::vector<double>& data, const Shot& s, const RunPlan& p, double v, double t0,
          double taper);

}  // namespace seisfd
