#include "solver/observed.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "io/error.hpp"
#include "solver/config.hpp"
#include "solver/plan.hpp"
#include "solver/text_format.hpp"
#include "solver/wavelet.hpp"

namespace seisfd {

// The readers' errors name the file and trace; they are the key's errors.
template <class F>
auto ObservedData::keyed(F&& f) const -> decltype(f()) {
  try {
    return f();
  } catch (const io::IoError& e) {
    throw ConfigError("migration.data", e.what(), config_);
  }
}

ObservedData::ObservedData(const std::string& path, const std::string& config)
    : path_(path), config_(config) {
  keyed([&] {
    if (io::is_segy_path(path))
      segy_ = std::make_unique<io::SegyGatherReader>(path);
    else
      h5_ = std::make_unique<io::GatherReader>(path);
    return 0;
  });
}

std::vector<int> ObservedData::shots() const {
  return segy_ ? segy_->shots() : h5_->shots();
}

io::ShotData ObservedData::read_shot(int shot) const {
  return keyed([&] { return segy_ ? segy_->read_shot(shot) : h5_->read_shot(shot); });
}

std::string ObservedData::where(int shot, long r) const {
  if (!segy_) return "'" + path_ + "' shot " + std::to_string(shot) + ": ";
  const int first = segy_->first_trace(shot);
  return "'" + path_ + "' trace " + std::to_string(first + std::max(0L, r)) + " (shot " +
         std::to_string(shot) + (r >= 0 ? ", receiver " + std::to_string(r) : std::string()) +
         "): ";
}

std::string ObservedData::missing(int shot, long r) const {
  return segy_ && segy_->coordinates_missing(shot, static_cast<int>(std::max(0L, r)))
             ? " (the trace has no coordinates: source and group x/y, bytes 73-88, are 0)"
             : "";
}

// Checks one shot of the observed data against the survey: source, receivers, sample interval
// (a whole multiple of dt) and sample count.
void check_observed(const io::ShotData& d, const Shot& s, const RunPlan& p,
                    const ObservedData& data) {
  const std::string where = data.where(s.index);
  for (int a = 0; a < 3; ++a)
    if (std::fabs(d.source[a] - s.source[a]) > 1e-3)
      throw ConfigError("migration.data",
                        where + "source at " + point_text(d.source) + " but the survey has it at " +
                            point_text(s.source) + data.missing(s.index, 0),
                        p.config.source_path);
  if (d.receivers.size() != s.receivers.size())
    throw ConfigError("migration.data",
                      where + std::to_string(d.receivers.size()) + " receivers, the config gives " +
                          std::to_string(s.receivers.size()),
                      p.config.source_path);
  for (size_t r = 0; r < d.receivers.size(); ++r)
    for (int a = 0; a < 3; ++a)
      if (std::fabs(d.receivers[r][a] - s.receivers[r][a]) > 1e-3)
        throw ConfigError("migration.data",
                          data.where(s.index, static_cast<long>(r)) + "receiver at " +
                              point_text(d.receivers[r]) + " but the config puts receiver " +
                              std::to_string(r) + " at " + point_text(s.receivers[r]) +
                              data.missing(s.index, static_cast<long>(r)),
                          p.config.source_path);
  const double k = d.dt / p.dt;
  if (!(d.dt > 0) || std::fabs(k - std::round(k)) > 1e-6 * k || std::round(k) < 1)
    throw ConfigError("migration.data",
                      where + "sample interval " + significant(d.dt, 6) +
                          " s is not a whole multiple of dt " + significant(p.dt, 6) + " s",
                      p.config.source_path);
  if (d.t0 != 0)
    throw ConfigError("migration.data",
                      where + "first sample at t = " + significant(d.t0, 6) +
                          " s; seisfd migrates data that start at t = 0",
                      p.config.source_path);
  const int every = static_cast<int>(std::round(k));
  const int want = (p.nt - 1) / every + 1;
  if (d.nt != want)
    throw ConfigError("migration.data",
                      where + std::to_string(d.nt) + " samples of " + significant(d.dt, 6) +
                          " s, the config's duration needs " + std::to_string(want),
                      p.config.source_path);
}

// The observed traces of one shot, checked against the survey and resampled to every step.
std::vector<double> observed_traces(const io::ShotData& d, const Shot& s, const RunPlan& p,
                                    const ObservedData& file) {
  check_observed(d, s, p, file);
  const int nr = static_cast<int>(s.receivers.size());
  std::vector<double> out(static_cast<size_t>(nr) * p.nt);
#pragma omp parallel for schedule(dynamic, 64)
  for (int r = 0; r < nr; ++r) {
    const std::vector<double> in(d.traces.begin() + static_cast<size_t>(r) * d.nt,
                                 d.traces.begin() + static_cast<size_t>(r + 1) * d.nt);
    const auto t = resample(in, d.dt, p.dt, p.nt);
    std::copy(t.begin(), t.end(), out.begin() + static_cast<size_t>(r) * p.nt);
  }
  return out;
}

// Zero the samples before offset / v + t0, with a cosine taper over `taper` seconds after.
void mute(std::vector<double>& data, const Shot& s, const RunPlan& p, double v, double t0,
          double taper) {
  const int nt = p.nt;
  for (size_t r = 0; r < s.receivers.size(); ++r) {
    double off2 = 0;
    for (int a = 0; a < 3; ++a) off2 += std::pow(s.receivers[r][a] - s.source[a], 2);
    const double tm = std::sqrt(off2) / v + t0;
    for (int n = 0; n < nt; ++n) {
      const double t = n * p.dt;
      double w = 1;
      if (t < tm)
        w = 0;
      else if (taper > 0 && t < tm + taper)
        w = 0.5 - 0.5 * std::cos(M_PI * (t - tm) / taper);
      data[r * nt + n] *= w;
    }
  }
}

}  // namespace seisfd
