// The survey the plan builds from [shots] and [receivers] (docs/migration.md §1): shot order for
// grids, lists and files, a shot outside the domain named, receivers fixed or moving with the
// shot and dropped where they fall outside.
#include <gtest/gtest.h>

#include "solver/grid.hpp"
#include "tests/config_rtm_support.hpp"

// ---- The survey -----------------------------------------------------------------------------

TEST_F(ConfigRtm, NoShotsIsOneShotAtTheSource) {
  const RunPlan p =
      make_plan(parse(kMinimal + "[receivers]\nlayout = \"line\"\nstart = [0, 0, 5]\nend = "
                                 "[40, 0, 5]\ncount = 3\n"));
  ASSERT_EQ(p.survey.shots.size(), 1u);
  EXPECT_EQ(p.survey.shots[0].index, 0);
  EXPECT_EQ(p.survey.shots[0].source, (Vec3{20, 25, 30}));
  EXPECT_EQ(p.survey.shots[0].receivers, p.receivers);
  EXPECT_EQ(p.receivers.size(), 3u);
  // make_survey(plan) is the plan's survey.
  const Survey s = make_survey(p);
  ASSERT_EQ(s.shots.size(), 1u);
  EXPECT_EQ(s.shots[0].source, p.survey.shots[0].source);
  const std::string text = describe_plan(p);
  EXPECT_TRUE(has(text,
                  "shots       1 (layout source.position, receivers fixed), 3 receivers "
                  "per shot (3..3)"))
      << text;
}

TEST_F(ConfigRtm, GridShotsInOrderWithFixedReceivers) {
  const RunPlan p =
      make_plan(parse(with_shots("layout = \"grid\"\nstart = [5, 10, 15]\nspacing = [20, "
                                 "30]\ncount = [3, 2]\n") +
                      "[receivers]\nlayout = \"line\"\nstart = [0, 0, 5]\nend = [40, 0, 5]\n"
                      "count = 3\n"));
  const Survey& s = p.survey;
  ASSERT_EQ(s.shots.size(), 6u);
  // index = j * count[0] + i, i along x fastest.
  EXPECT_EQ(sources(s),
            (std::vector<Vec3>{
                {5, 10, 15}, {25, 10, 15}, {45, 10, 15}, {5, 40, 15}, {25, 40, 15}, {45, 40, 15}}));
  for (size_t k = 0; k < s.shots.size(); ++k) {
    EXPECT_EQ(s.shots[k].index, static_cast<int>(k));
    EXPECT_EQ(s.shots[k].receivers, p.receivers);  // fixed: the same for every shot
  }
  EXPECT_EQ(s.dropped_receivers, 0);
  EXPECT_TRUE(p.warnings.empty());
  const std::string text = describe_plan(p);
  EXPECT_TRUE(
      has(text, "shots       6 (layout grid, receivers fixed), 3 receivers per shot (3..3)"))
      << text;
  EXPECT_TRUE(has(text, "source      at each shot")) << text;
}

TEST_F(ConfigRtm, ListShots) {
  const RunConfig c =
      parse(with_shots("layout = \"list\"\npositions = [[40, 5, 5], [0, 55, 65], [1, 2, 3]]\n"));
  const RunPlan p = make_plan(c);
  EXPECT_EQ(sources(p.survey), (std::vector<Vec3>{{40, 5, 5}, {0, 55, 65}, {1, 2, 3}}));
  EXPECT_EQ(p.survey.shots[2].index, 2);
  EXPECT_TRUE(p.survey.shots[0].receivers.empty());  // no [receivers]
}

TEST_F(ConfigRtm, FileShots) {
  write_file("shots_ok.txt", "# x y z\n5 5 5\n\n  10, 20, 30  # commas too\n45 55 65\n");
  const RunPlan p = make_plan(parse(with_shots("layout = \"file\"\nfile = \"shots_ok.txt\"\n")));
  EXPECT_EQ(sources(p.survey), (std::vector<Vec3>{{5, 5, 5}, {10, 20, 30}, {45, 55, 65}}));
  const PositionsFile f = read_positions_file(in_dir("shots_ok.txt"), "shots.file", "shot");
  EXPECT_EQ(f.lines, (std::vector<int>{2, 4, 5}));

  // Errors name shots.file, the shot file and its line.
  const std::string bad = write_file("shots_bad.txt", "5 5 5\n5 5\n");
  ConfigError e = plan_error(with_shots("layout = \"file\"\nfile = \"shots_bad.txt\"\n"));
  EXPECT_EQ(e.key(), "shots.file");
  EXPECT_EQ(e.source(), bad);
  EXPECT_EQ(e.line(), 2);
  EXPECT_TRUE(has(e.what(), "expected 'x y z' (three numbers)")) << e.what();
  const std::string outside = write_file("shots_out.txt", "# first\n5 5 5\n\n50 5 5\n");
  e = plan_error(with_shots("layout = \"file\"\nfile = \"shots_out.txt\"\n"));
  EXPECT_EQ(e.key(), "shots.file");
  EXPECT_EQ(e.source(), outside);
  EXPECT_EQ(e.line(), 4);
  EXPECT_TRUE(has(e.what(), "shot 1 at (50, 5, 5) is outside the physical domain x [0, 45]"))
      << e.what();
  write_file("shots_empty.txt", "# nothing\n");
  e = plan_error(with_shots("layout = \"file\"\nfile = \"shots_empty.txt\"\n"));
  EXPECT_EQ(e.key(), "shots.file");
  EXPECT_TRUE(has(e.what(), "is empty")) << e.what();
}

TEST_F(ConfigRtm, ShotOutsideTheDomainIsNamed) {
  ConfigError e =
      plan_error(with_shots("layout = \"list\"\npositions = [[5, 5, 5], [5, 5, -1]]\n"));
  EXPECT_EQ(e.key(), "shots");
  EXPECT_EQ(e.source(), src());
  EXPECT_TRUE(has(e.what(),
                  "shot 1 at (5, 5, -1) is outside the physical domain x [0, 45], y "
                  "[0, 55], z [0, 65] m"))
      << e.what();
  e = plan_error(
      with_shots("layout = \"grid\"\nstart = [5, 10, 15]\nspacing = [20, 0]\ncount = [4, 1]\n"));
  EXPECT_EQ(e.key(), "shots");
  EXPECT_TRUE(has(e.what(), "shot 3 at (65, 10, 15) is outside")) << e.what();
  // Without [shots] the check stays on source.position.
  e = plan_error(replace_line(kMinimal, 12, "position = [20, 25, 70]"));
  EXPECT_EQ(e.key(), "source.position");
}

TEST_F(ConfigRtm, MovingReceiversFollowTheShotAndAreDroppedOutside) {
  // Sources at x = 5, 25, 45; offsets -20 .. 20 m along x (some are outside the domain as
  // positions: make_plan must not reject offsets).
  const RunPlan p = make_plan(parse(with_shots("layout = \"grid\"\nstart = [5, 10, 15]\nspacing "
                                               "= [20, 0]\ncount = [3, 1]\nreceivers = "
                                               "\"moving\"\n") +
                                    kReceiverLine));
  const Survey& s = p.survey;
  ASSERT_EQ(s.shots.size(), 3u);
  EXPECT_EQ(p.receivers.size(), 5u);  // the offsets
  EXPECT_EQ(s.shots[0].receivers, (std::vector<Vec3>{{5, 10, 15}, {15, 10, 15}, {25, 10, 15}}));
  EXPECT_EQ(
      s.shots[1].receivers,
      (std::vector<Vec3>{{5, 10, 15}, {15, 10, 15}, {25, 10, 15}, {35, 10, 15}, {45, 10, 15}}));
  EXPECT_EQ(s.shots[2].receivers, (std::vector<Vec3>{{25, 10, 15}, {35, 10, 15}, {45, 10, 15}}));
  EXPECT_EQ(s.dropped_receivers, 4);
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_EQ(p.warnings[0],
            "receivers: 4 receiver positions of 2 shots fall outside the physical domain and were "
            "dropped (receivers = \"moving\")");
  const std::string text = describe_plan(p);
  EXPECT_TRUE(
      has(text, "shots       3 (layout grid, receivers moving), 5 receivers per shot (3..5)"))
      << text;
  EXPECT_TRUE(has(text, "receivers   5 offsets from each shot")) << text;
}

TEST_F(ConfigRtm, MovingReceiversNoneDroppedNoWarning) {
  const RunConfig c = parse(with_shots("layout = \"list\"\npositions = [[20, 10, 15]]\nreceivers "
                                       "= \"moving\"\n") +
                            kReceiverLine);
  const SimGrid g(c.grid, c.boundary, c.physics.order);
  std::vector<std::string> warnings;
  const std::vector<Vec3> offsets{{-20, 0, 0}, {0, 0, 0}, {20, 0, 5}};
  const Survey s = make_survey(c, g, offsets, warnings);
  ASSERT_EQ(s.shots.size(), 1u);
  EXPECT_EQ(s.shots[0].receivers, (std::vector<Vec3>{{0, 10, 15}, {20, 10, 15}, {40, 10, 20}}));
  EXPECT_TRUE(warnings.empty());
  // A shot that keeps no receiver is an error, not a warning.
  warnings.clear();
  try {
    make_survey(c, g, {{100, 0, 0}}, warnings);
    ADD_FAILURE() << "no error for a shot without receivers";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.key(), "shots.receivers");
    EXPECT_TRUE(has(e.what(), "shot 0 at (20, 10, 15) keeps none of its 1 receivers")) << e.what();
  }
}

TEST_F(ConfigRtm, FixedReceiversOutsideAreStillErrors) {
  const ConfigError e =
      plan_error(with_shots("layout = \"list\"\npositions = [[20, 10, 15]]\n") + kReceiverLine);
  EXPECT_EQ(e.key(), "receivers");
  EXPECT_TRUE(has(e.what(), "receiver 0 at (-20, 0, 0) is outside the physical domain"))
      << e.what();
}
