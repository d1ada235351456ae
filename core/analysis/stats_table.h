#pragma once
// HeadStats as a table: column names and values for the desktop table, and CSV / JSON text for
// exports and `headmap-cli stats`. Writes to a stream; the caller owns the file (atomic write).
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/analysis/head_stats.h"
#include "core/tokenize/tokenizer.h"

namespace headmap {

enum class StatsFormat { Csv, Json };

// The table's columns, in order: layer, head, entropy, mean_distance, first_token_mass,
// previous_token, diagonal, induction. The same names are the CSV header and the JSON keys.
const std::vector<std::string>& statsColumnNames();

// Value of column `column` (index into statsColumnNames()); nullopt for NaN or an absent
// induction score. Throws headmap::Error for a column out of range.
std::optional<double> statsValue(const HeadStats& stats, int column);

// "stats.csv" -> Csv, "stats.json" -> Json (case-insensitive). Throws headmap::Error naming the
// path for any other extension.
StatsFormat statsFormatForPath(const std::string& path);

// CSV with a header row, one row per (layer, head); NaN / absent values are empty fields;
// numbers with 10 significant digits. Lines end with '\n'.
void writeStatsCsv(std::ostream& out, const std::vector<HeadStats>& stats);

// {"model": name, "tokens": [{"id", "text"}...], "stats": [{column: value|null}...]}, numbers
// at full double precision.
void writeStatsJson(std::ostream& out, const std::vector<HeadStats>& stats,
                    const std::vector<Token>& tokens, const std::string& modelName);

}  // namespace headmap
