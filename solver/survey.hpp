// A survey: the shots of a run, each with its source position and its receivers. The modelling
// layer (solver/modeling.hpp) runs them one after another on one engine; gathers.h5 holds one
// group per shot (docs/outputs.md §1).
#pragma once
#include <vector>

#include "solver/config.hpp"

namespace seisfd {

struct RunPlan;

struct Shot {
  int index = 0;  // its number in the survey: /shot_NNNN in gathers.h5
  Vec3 source{0.0, 0.0, 0.0};
  std::vector<Vec3> receivers;
};

struct Survey {
  std::vector<Shot> shots;
};

// The survey of a plan: the config's source with its receivers, one shot.
Survey make_survey(const RunPlan& plan);

}  // namespace seisfd
