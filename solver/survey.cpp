#include "solver/survey.hpp"

#include "solver/plan.hpp"

namespace seisfd {

Survey make_survey(const RunPlan& plan) {
  Survey s;
  Shot shot;
  shot.index = 0;
  shot.source = plan.config.source.position;
  shot.receivers = plan.receivers;
  s.shots.push_back(shot);
  return s;
}

}  // namespace seisfd
