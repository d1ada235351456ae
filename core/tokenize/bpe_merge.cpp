#include "core/tokenize/bpe_merge.h"

#include <queue>

#include "core/common/error.h"

namespace headmap {
namespace {

struct Candidate {
  double priority;
  int left;   // position of the left symbol (original index: order is preserved)
  int right;  // position of the right symbol when the candidate was made
  int leftId, rightId, merged;
};

struct Worse {
  bool operator()(const Candidate& a, const Candidate& b) const {
    if (a.priority != b.priority) return a.priority > b.priority;
    return a.left > b.left;
  }
};

}  // namespace

std::vector<int> mergeSymbols(std::vector<int> ids, const MergeLookup& lookup) {
  const int n = static_cast<int>(ids.size());
  if (n < 2) return ids;
  std::vector<int> next(n), prev(n);
  std::vector<char> alive(n, 1);
  for (int i = 0; i < n; ++i) {
    next[i] = i + 1 < n ? i + 1 : -1;
    prev[i] = i - 1;
  }
  std::priority_queue<Candidate, std::vector<Candidate>, Worse> queue;
  auto consider = [&](int left) {
    if (left < 0 || next[left] < 0) return;
    int right = next[left];
    double priority = 0;
    int merged = -1;
    if (lookup(ids[left], ids[right], priority, merged)) {
      queue.push({priority, left, right, ids[left], ids[right], merged});
    }
  };
  for (int i = 0; i + 1 < n; ++i) consider(i);
  while (!queue.empty()) {
    Candidate c = queue.top();
    queue.pop();
    // Skip candidates made stale by an earlier merge of either symbol.
    if (!alive[c.left] || !alive[c.right] || next[c.left] != c.right || ids[c.left] != c.leftId ||
        ids[c.right] != c.rightId) {
      continue;
    }
    ids[c.left] = c.merged;
    alive[c.right] = 0;
    next[c.left] = next[c.right];
    if (next[c.right] >= 0) prev[next[c.right]] = c.left;
    consider(prev[c.left]);
    consider(c.left);
  }
  std::vector<int> out;
  for (int i = 0; i >= 0; i = next[i]) out.push_back(ids[i]);
  return out;
}

BpeModel::BpeModel(std::unordered_map<std::string, int> vocab,
                   const std::vector<std::pair<std::string, std::string>>& merges,
                   const std::string& source)
    : m_vocab(std::move(vocab)) {
  for (const auto& [piece, id] : m_vocab) m_maxId = std::max(m_maxId, id);
  m_merges.reserve(merges.size() * 2);
  for (size_t rank = 0; rank < merges.size(); ++rank) {
    const auto& [a, b] = merges[rank];
    int ia = idOf(a), ib = idOf(b), im = idOf(a + b);
    if (ia < 0 || ib < 0 || im < 0) {
      const std::string& missing = ia < 0 ? a : ib < 0 ? b : a + b;
      throw Error(source + ": merge " + std::to_string(rank + 1) + " ('" + a + "' '" + b +
                  "') needs '" + missing + "' in the vocabulary, which does not have it");
    }
    // The first (best-ranked) occurrence of a pair wins, as in Hugging Face's tokenizers.
    m_merges.emplace(key(ia, ib), std::make_pair(static_cast<int>(rank), im));
  }
}

int BpeModel::idOf(const std::string& piece) const {
  auto it = m_vocab.find(piece);
  return it == m_vocab.end() ? -1 : it->second;
}

std::vector<int> BpeModel::merge(std::vector<int> symbols) const {
  return mergeSymbols(std::move(symbols), [this](int a, int b, double& priority, int& merged) {
    auto it = m_merges.find(key(a, b));
    if (it == m_merges.end()) return false;
    priority = it->second.first;
    merged = it->second.second;
    return true;
  });
}

}  // namespace headmap
