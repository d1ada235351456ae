#pragma once
// Shared by the model tests: token lists from ids, fixture cases, max |diff| of attention maps.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/model/model.h"

namespace headmap::test {

inline std::vector<Token> tokensFromIds(const std::vector<int>& ids) {
  std::vector<Token> tokens;
  for (int id : ids) {
    Token t;
    t.id = id;
    tokens.push_back(t);
  }
  return tokens;
}

inline ModelInput inputFromIds(const std::vector<int>& ids) {
  ModelInput in;
  in.tokens = tokensFromIds(ids);
  return in;
}

inline std::vector<int> parseIntList(const std::string& s) {
  std::vector<int> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (!item.empty()) out.push_back(std::stoi(item));
  }
  return out;
}

// One line of a fixture's cases.txt: "<index> ids=1,2,3 padded=5,6".
struct FixtureCase {
  int index = 0;
  std::vector<int> ids;
  std::vector<int> padded;
};

inline std::vector<FixtureCase> readCases(const std::string& path) {
  std::ifstream in(path);
  std::vector<FixtureCase> cases;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::stringstream ss(line);
    FixtureCase c;
    std::string ids, padded;
    ss >> c.index >> ids >> padded;
    c.ids = parseIntList(ids.substr(ids.find('=') + 1));
    c.padded = parseIntList(padded.substr(padded.find('=') + 1));
    cases.push_back(c);
  }
  return cases;
}

// Largest |a - b| over two float arrays of equal length (infinity when the lengths differ).
inline double maxAbsDiff(const float* a, const float* b, size_t n) {
  double m = 0;
  for (size_t i = 0; i < n; ++i) m = std::max(m, std::fabs(double(a[i]) - double(b[i])));
  return m;
}

inline int argmaxRow(const std::vector<float>& logits, int row, int vocab) {
  const float* r = logits.data() + size_t(row) * vocab;
  int best = 0;
  for (int i = 1; i < vocab; ++i) {
    if (r[i] > r[best]) best = i;
  }
  return best;
}

}  // namespace headmap::test
