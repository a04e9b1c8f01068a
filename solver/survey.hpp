// A survey: the shots of a run, each with its source position and its receivers
// (docs/migration.md §1). The plan owns it (RunPlan::survey); the modelling layer
// (solver/modeling.hpp) runs the shots one after another on one engine; gathers.h5 holds one
// group per shot (docs/outputs.md §1).
#pragma once
#include <string>
#include <vector>

#include "solver/config.hpp"

namespace seisfd {

struct RunPlan;
class SimGrid;

struct Shot {
  int index = 0;  // its number in the survey: /shot_NNNN in gathers.h5
  Vec3 source{0.0, 0.0, 0.0};
  std::vector<Vec3> receivers;
};

struct Survey {
  std::vector<Shot> shots;
  int dropped_receivers = 0;  // moving receivers outside the domain, over all shots
};

// The positions of a "x y z" per line file ('#' comments, commas allowed as separators) and the
// line each came from. Errors are ConfigErrors naming key and the file's line; what names one
// position in them ("receiver", "shot").
struct PositionsFile {
  std::vector<Vec3> positions;
  std::vector<int> lines;
};
PositionsFile read_positions_file(const std::string& path, const std::string& key,
                                  const std::string& what);

// The source positions of [shots] in survey order (grid: index j * count[0] + i, i along x);
// lines holds the file line of each for layout = "file", else zeros. Without [shots]:
// source.position.
PositionsFile shot_positions(const RunConfig& c);

// The survey of a config: one shot per source position, each inside the physical domain of g
// (else a ConfigError naming the shot). receivers: the plan's [receivers] positions, which every
// shot gets (receivers = "fixed") or which are offsets from each shot's source (= "moving";
// those that fall outside the domain are dropped, with one warning appended to warnings).
Survey make_survey(const RunConfig& c, const SimGrid& g, const std::vector<Vec3>& receivers,
                   std::vector<std::string>& warnings);

// The survey of a plan (plan.survey).
Survey make_survey(const RunPlan& plan);

}  // namespace seisfd
