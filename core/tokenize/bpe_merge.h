#pragma once
// The merge loop shared by the BPE tokenizers: adjacent symbols merge best-first (lowest
// priority value; ties go to the leftmost pair), as Hugging Face's BPE (priority = merge rank)
// and llama2.c (priority = -score of the merged piece) do. A priority queue over a linked list
// keeps long words O(n log n) instead of the naive O(n^2).
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

namespace headmap {

// Looks up the merge of symbols a and b: returns false when they do not merge, else sets the
// priority (lower merges first) and the merged symbol id.
using MergeLookup = std::function<bool(int a, int b, double& priority, int& merged)>;

std::vector<int> mergeSymbols(std::vector<int> symbols, const MergeLookup& lookup);

// A BPE vocabulary with ranked merges (Hugging Face "model": {"vocab", "merges"}).
class BpeModel {
 public:
  // `source` names the file in messages. Merges are "left right" pairs in rank order; each
  // side and the concatenation must be in the vocabulary.
  BpeModel(std::unordered_map<std::string, int> vocab,
           const std::vector<std::pair<std::string, std::string>>& merges,
           const std::string& source);

  int idOf(const std::string& piece) const;  // -1 when absent
  // Merges the given symbol ids (single characters or bytes of one pre-token).
  std::vector<int> merge(std::vector<int> symbols) const;
  const std::unordered_map<std::string, int>& vocab() const { return m_vocab; }
  int maxId() const { return m_maxId; }

 private:
  static uint64_t key(int a, int b) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) | static_cast<uint32_t>(b);
  }
  std::unordered_map<std::string, int> m_vocab;
  std::unordered_map<uint64_t, std::pair<int, int>> m_merges;  // (a,b) -> (rank, merged id)
  int m_maxId = -1;
};

}  // namespace headmap
