#pragma once
// Loads a tests/fixtures/analysis/<case>.json written by scripts/fixtures/make_analysis_fixtures.py
// into a ModelRun (inputs) plus the NumPy expectations.
#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/model/model.h"
#include "tests/test_support.h"

namespace headmap::test {

struct AnalysisCase {
  ModelRun run;
  std::vector<int> ids;
  int n = 0;
  nlohmann::json expected;
};

// null in the fixture stands for NaN (JSON has no NaN).
inline double jsonNumber(const nlohmann::json& v) {
  return v.is_null() ? std::numeric_limits<double>::quiet_NaN() : v.get<double>();
}

inline AnalysisCase loadAnalysisCase(const std::string& name) {
  std::ifstream in(fixture("analysis/" + name + ".json"));
  if (!in) throw std::runtime_error("missing fixture analysis/" + name + ".json");
  nlohmann::json j = nlohmann::json::parse(in);
  AnalysisCase c;
  c.n = j["n"].get<int>();
  const int layers = j["layers"].get<int>(), heads = j["heads"].get<int>();
  c.ids = j["ids"].get<std::vector<int>>();
  c.expected = j["expected"];
  const auto& weights = j["weights"];
  const size_t perLayer = static_cast<size_t>(heads) * c.n * c.n;
  for (int l = 0; l < layers; ++l) {
    LayerAttention layer;
    layer.layer = l;
    HeadMaps& w = layer.result.weights;
    w.heads = heads;
    w.q = w.k = c.n;
    w.values.resize(perLayer);
    for (size_t i = 0; i < perLayer; ++i) {
      w.values[i] = static_cast<float>(jsonNumber(weights[l * perLayer + i]));
    }
    layer.result.keyMask = j["keyMask"].get<std::vector<uint8_t>>();
    layer.result.fullyMasked = j["fullyMasked"].get<std::vector<uint8_t>>();
    c.run.layers.push_back(std::move(layer));
  }
  return c;
}

// Both NaN counts as equal; otherwise |a - b|.
inline double nanAwareDiff(double a, double b) {
  if (std::isnan(a) && std::isnan(b)) return 0;
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::infinity();
  return std::abs(a - b);
}

inline const char* const kAnalysisCases[] = {"causal_repeat", "bidirectional_right_padded",
                                             "causal_left_padded", "causal_no_repeat"};

}  // namespace headmap::test
