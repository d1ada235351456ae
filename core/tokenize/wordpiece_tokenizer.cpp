#include "core/tokenize/wordpiece_tokenizer.h"

#include "core/common/error.h"
#include "core/tokenize/unicode_text.h"

namespace headmap {
namespace {

// BERT counts all ASCII symbols (e.g. $ + < = > ^ ` |) as punctuation, plus Unicode P*.
bool isBertPunctuation(char32_t cp) {
  if ((cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) ||
      (cp >= 123 && cp <= 126)) {
    return true;
  }
  return unicode::isPunctuation(cp);
}

}  // namespace

std::vector<std::string> bertPreTokenize(const std::u32string& text) {
  std::vector<std::string> words;
  std::string current;
  auto flush = [&] {
    if (!current.empty()) words.push_back(std::move(current));
    current.clear();
  };
  for (char32_t cp : text) {
    if (unicode::isWhitespace(cp)) {
      flush();
    } else if (isBertPunctuation(cp)) {
      flush();
      words.push_back(unicode::encodeUtf8(cp));
    } else {
      unicode::appendUtf8(current, cp);
    }
  }
  flush();
  return words;
}

WordPieceTokenizer::WordPieceTokenizer(std::unordered_map<std::string, int> vocab,
                                       WordPieceOptions options)
    : m_vocab(std::move(vocab)), m_options(std::move(options)) {
  auto it = m_vocab.find(m_options.unkToken);
  if (it == m_vocab.end()) {
    throw Error(m_options.source + ": the unknown token '" + m_options.unkToken +
                "' is not in the WordPiece vocabulary");
  }
  m_unkId = it->second;
  for (const auto& [piece, id] : m_vocab) m_maxPieceBytes = std::max(m_maxPieceBytes, piece.size());
  m_pieces = tokenize::PieceTable(m_vocab, tokenize::DisplayStyle::Plain, m_options.source);
  for (const tokenize::AddedToken& t : m_options.added) {
    m_pieces.addSpecial(t.content, t.id, t.special);
  }
}

void WordPieceTokenizer::encodeWord(const std::string& word, std::vector<int>& out) const {
  std::vector<unicode::CodePoint> cps = unicode::decodeUtf8(word);
  if (static_cast<int>(cps.size()) > m_options.maxCharsPerWord) {
    out.push_back(m_unkId);
    return;
  }
  std::vector<int> pieces;
  size_t start = 0;  // index into cps
  while (start < cps.size()) {
    // Longest match first; candidate ends are code point boundaries.
    int found = -1;
    size_t foundEnd = start;
    size_t from = cps[start].offset;
    for (size_t end = cps.size(); end > start; --end) {
      size_t to = end < cps.size() ? cps[end].offset : word.size();
      if (to - from > m_maxPieceBytes) continue;
      std::string candidate = word.substr(from, to - from);
      if (start > 0) candidate = m_options.prefix + candidate;
      auto it = m_vocab.find(candidate);
      if (it != m_vocab.end()) {
        found = it->second;
        foundEnd = end;
        break;
      }
    }
    if (found < 0) {
      out.push_back(m_unkId);
      return;
    }
    pieces.push_back(found);
    start = foundEnd;
  }
  out.insert(out.end(), pieces.begin(), pieces.end());
}

std::vector<int> WordPieceTokenizer::encodeIds(const std::string& text) const {
  std::vector<int> ids = m_options.specials.prefix;
  for (const tokenize::Segment& seg : tokenize::splitOnAddedTokens(text, m_options.added)) {
    if (seg.addedIndex >= 0) {
      ids.push_back(m_options.added[seg.addedIndex].id);
      continue;
    }
    std::u32string normalized =
        m_options.bertNormalizer
            ? tokenize::bertNormalize(tokenize::toCodePoints(seg.text), m_options.normalizer)
            : tokenize::toCodePoints(tokenize::applyNormalizer(seg.text, m_options.steps));
    for (const std::string& word : bertPreTokenize(normalized)) encodeWord(word, ids);
  }
  ids.insert(ids.end(), m_options.specials.suffix.begin(), m_options.specials.suffix.end());
  return ids;
}

std::vector<Token> WordPieceTokenizer::encode(const std::string& text) const {
  return m_pieces.tokens(encodeIds(text));
}

std::vector<Token> WordPieceTokenizer::fromIds(const std::vector<int>& ids) const {
  return m_pieces.tokens(ids);
}

}  // namespace headmap
