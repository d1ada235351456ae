#include "core/analysis/stats_table.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/common/error.h"

namespace headmap {
namespace {

std::vector<HeadStats> sample() {
  HeadStats a;
  a.layer = 1;
  a.head = 2;
  a.entropy = 0.5;
  a.meanDistance = 1.25;
  a.firstTokenMass = NAN;
  a.previousToken = 0.125;
  a.diagonal = 1.0 / 3;
  HeadStats b = a;
  b.head = 3;
  b.induction = 0.75;
  return {a, b};
}

TEST(StatsTable, CsvHasHeaderAndEmptyFieldsForAbsentValues) {
  std::ostringstream out;
  writeStatsCsv(out, sample());
  EXPECT_EQ(out.str(),
            "layer,head,entropy,mean_distance,first_token_mass,previous_token,diagonal,induction\n"
            "1,2,0.5,1.25,,0.125,0.3333333333,\n"
            "1,3,0.5,1.25,,0.125,0.3333333333,0.75\n");
}

TEST(StatsTable, JsonUsesNullForAbsentValues) {
  std::ostringstream out;
  Token t;
  t.id = 7;
  t.display = " hi";
  writeStatsJson(out, sample(), {t}, "m");
  const auto doc = nlohmann::json::parse(out.str());
  EXPECT_EQ(doc["model"], "m");
  EXPECT_EQ(doc["tokens"][0]["id"], 7);
  EXPECT_EQ(doc["tokens"][0]["text"], " hi");
  ASSERT_EQ(doc["stats"].size(), 2u);
  EXPECT_TRUE(doc["stats"][0]["first_token_mass"].is_null());
  EXPECT_TRUE(doc["stats"][0]["induction"].is_null());
  EXPECT_DOUBLE_EQ(doc["stats"][1]["induction"].get<double>(), 0.75);
  EXPECT_DOUBLE_EQ(doc["stats"][1]["diagonal"].get<double>(), 1.0 / 3);
  EXPECT_EQ(doc["stats"][1]["head"], 3);
}

TEST(StatsTable, FormatFromExtension) {
  EXPECT_EQ(statsFormatForPath("a/b.CSV"), StatsFormat::Csv);
  EXPECT_EQ(statsFormatForPath("stats.json"), StatsFormat::Json);
  EXPECT_THROW(statsFormatForPath("stats.txt"), Error);
  EXPECT_THROW(statsValue(sample()[0], 8), Error);
}

}  // namespace
}  // namespace headmap
