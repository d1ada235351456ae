#include "core/analysis/stats_table.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "core/common/error.h"

namespace headmap {
namespace {

std::optional<double> present(double v) {
  if (std::isnan(v)) return std::nullopt;
  return v;
}

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

const std::vector<std::string>& statsColumnNames() {
  static const std::vector<std::string> names = {
      "layer",          "head",     "entropy",  "mean_distance", "first_token_mass",
      "previous_token", "diagonal", "induction"};
  return names;
}

std::optional<double> statsValue(const HeadStats& s, int column) {
  switch (column) {
    case 0:
      return s.layer;
    case 1:
      return s.head;
    case 2:
      return present(s.entropy);
    case 3:
      return present(s.meanDistance);
    case 4:
      return present(s.firstTokenMass);
    case 5:
      return present(s.previousToken);
    case 6:
      return present(s.diagonal);
    case 7:
      return s.induction ? present(*s.induction) : std::nullopt;
  }
  throw Error("head statistics: column " + std::to_string(column) + " does not exist (there are " +
              std::to_string(statsColumnNames().size()) + ")");
}

StatsFormat statsFormatForPath(const std::string& path) {
  std::string lower = path;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (endsWith(lower, ".csv")) return StatsFormat::Csv;
  if (endsWith(lower, ".json")) return StatsFormat::Json;
  throw Error(path + ": head statistics are written as .csv or .json, not this extension");
}

void writeStatsCsv(std::ostream& out, const std::vector<HeadStats>& stats) {
  const auto& names = statsColumnNames();
  for (size_t c = 0; c < names.size(); ++c) out << (c ? "," : "") << names[c];
  out << '\n';
  char buffer[40];
  for (const HeadStats& s : stats) {
    out << s.layer << ',' << s.head;
    for (int c = 2; c < static_cast<int>(names.size()); ++c) {
      out << ',';
      if (auto v = statsValue(s, c)) {
        std::snprintf(buffer, sizeof buffer, "%.10g", *v);
        out << buffer;
      }
    }
    out << '\n';
  }
}

void writeStatsJson(std::ostream& out, const std::vector<HeadStats>& stats,
                    const std::vector<Token>& tokens, const std::string& modelName) {
  nlohmann::ordered_json doc;
  doc["model"] = modelName;
  doc["tokens"] = nlohmann::ordered_json::array();
  for (const Token& t : tokens) {
    doc["tokens"].push_back({{"id", t.id}, {"text", t.display}});
  }
  doc["stats"] = nlohmann::ordered_json::array();
  const auto& names = statsColumnNames();
  for (const HeadStats& s : stats) {
    nlohmann::ordered_json row = {{"layer", s.layer}, {"head", s.head}};
    for (int c = 2; c < static_cast<int>(names.size()); ++c) {
      auto v = statsValue(s, c);
      row[names[c]] = v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
    }
    doc["stats"].push_back(std::move(row));
  }
  // Keys keep the table's column order (ordered_json); invalid UTF-8 in a token's display text
  // (a byte token) is replaced rather than thrown on.
  out << doc.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
}

}  // namespace headmap
