#include "solver/survey.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "solver/grid.hpp"
#include "solver/plan.hpp"

namespace seisfd {

PositionsFile read_positions_file(const std::string& path, const std::string& key,
                                  const std::string& what) {
  std::ifstream in(path);
  if (!in) throw ConfigError::input_file(key, "cannot open " + what + " file '" + path + "'");
  PositionsFile out;
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (const auto h = line.find('#'); h != std::string::npos) line.resize(h);
    if (line.find_first_not_of(" \t\r,") == std::string::npos) continue;
    for (char& ch : line)
      if (ch == ',') ch = ' ';
    std::istringstream ls(line);
    Vec3 p;
    std::string rest;
    if (!(ls >> p[0] >> p[1] >> p[2]) || (ls >> rest))
      throw ConfigError::input_file(key, "expected 'x y z' (three numbers)", path, lineno);
    out.positions.push_back(p);
    out.lines.push_back(lineno);
  }
  if (out.positions.empty())
    throw ConfigError::input_file(key, what + " file '" + path + "' is empty");
  return out;
}

PositionsFile shot_positions(const RunConfig& c) {
  const ShotsConfig& s = c.shots;
  PositionsFile out;
  if (!s.present) {
    out.positions = {c.source.position};
  } else if (s.layout == ShotLayout::kList) {
    out.positions = s.positions;
  } else if (s.layout == ShotLayout::kGrid) {
    for (int j = 0; j < s.count[1]; ++j)
      for (int i = 0; i < s.count[0]; ++i)
        out.positions.push_back(
            {s.start[0] + i * s.spacing[0], s.start[1] + j * s.spacing[1], s.start[2]});
  } else {
    return read_positions_file(s.file, "shots.file", "shot");
  }
  out.lines.assign(out.positions.size(), 0);
  return out;
}

Survey make_survey(const RunConfig& c, const SimGrid& g, const std::vector<Vec3>& receivers,
                   std::vector<std::string>& warnings) {
  const PositionsFile sources = shot_positions(c);
  const bool moving = c.shots.present && c.shots.receivers == ReceiverMode::kMoving;
  Survey survey;
  int shots_dropping = 0;
  for (size_t k = 0; k < sources.positions.size(); ++k) {
    Shot shot;
    shot.index = static_cast<int>(k);
    shot.source = sources.positions[k];
    const std::string where = "shot " + std::to_string(k) + " at " + point_text(shot.source);
    if (!g.inside_physical(shot.source)) {
      const std::string message =
          where + " is outside the physical domain " + physical_domain_text(g);
      if (!c.shots.present)
        throw ConfigError(
            "source.position",
            point_text(shot.source) + " is outside the physical domain " + physical_domain_text(g),
            c.source_path);
      if (c.shots.layout == ShotLayout::kFile)
        throw ConfigError("shots.file", message, c.shots.file, sources.lines[k]);
      throw ConfigError("shots", message, c.source_path);
    }
    if (!moving) {
      shot.receivers = receivers;
    } else {
      for (const Vec3& offset : receivers) {
        const Vec3 r{shot.source[0] + offset[0], shot.source[1] + offset[1],
                     shot.source[2] + offset[2]};
        if (g.inside_physical(r)) shot.receivers.push_back(r);
      }
      const int dropped = static_cast<int>(receivers.size() - shot.receivers.size());
      // A shot that records nothing is a survey mistake, not something to warn about.
      if (shot.receivers.empty())
        throw ConfigError("shots.receivers",
                          where + " keeps none of its " + std::to_string(receivers.size()) +
                              " receivers inside the physical domain " + physical_domain_text(g) +
                              " (receivers = \"moving\": [receivers] gives offsets)",
                          c.source_path);
      survey.dropped_receivers += dropped;
      shots_dropping += dropped > 0;
    }
    survey.shots.push_back(std::move(shot));
  }
  if (survey.dropped_receivers > 0)
    warnings.push_back("receivers: " + std::to_string(survey.dropped_receivers) +
                       " receiver positions of " + std::to_string(shots_dropping) +
                       " shots fall outside the physical domain and were dropped (receivers = "
                       "\"moving\")");
  return survey;
}

Survey make_survey(const RunPlan& plan) {
  return plan.survey;
}

}  // namespace seisfd
