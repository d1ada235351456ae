#include "core/tokenize/bpe_tokenizer.h"

#include <cstdio>

#include "core/common/error.h"
#include "core/tokenize/unicode_text.h"

namespace headmap {
namespace {

constexpr size_t kMaxCachedWordBytes = 64;
constexpr size_t kMaxCacheEntries = 50000;

}  // namespace

BpeTokenizer::BpeTokenizer(BpeModel model, BpeOptions options)
    : m_model(std::move(model)), m_options(std::move(options)) {
  using tokenize::DisplayStyle;
  m_pieces = tokenize::PieceTable(
      m_model.vocab(), m_options.byteLevel ? DisplayStyle::ByteLevel : DisplayStyle::Metaspace,
      m_options.source);
  for (const tokenize::AddedToken& t : m_options.added) {
    m_pieces.addSpecial(t.content, t.id, t.special);
  }
  for (int b = 0; b < 256; ++b) {
    std::string symbol;
    if (m_options.byteLevel) {
      symbol = unicode::encodeUtf8(tokenize::byteToUnicode(static_cast<unsigned char>(b)));
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "<0x%02X>", b);
      symbol = buf;
    }
    m_byteSymbol[b] = m_model.idOf(symbol);
  }
}

std::vector<std::string> BpeTokenizer::preTokenize(const std::string& text,
                                                   bool firstSection) const {
  std::vector<std::string> words;
  if (m_options.byteLevel) {
    std::string s = text;
    if (m_options.addPrefixSpace && !s.empty() && s[0] != ' ') s.insert(s.begin(), ' ');
    if (!m_options.useRegex && m_options.llama3Digits <= 0) return {s};
    ByteRanges ranges =
        m_options.llama3Digits > 0 ? splitLlama3(s, m_options.llama3Digits) : splitGpt2(s);
    for (const auto& [from, to] : ranges) words.push_back(s.substr(from, to - from));
    return words;
  }
  if (!m_options.metaspace) return {text};
  // Metaspace: spaces become the replacement, which may also be prepended.
  const std::string& rep = m_options.replacement;
  std::string s;
  for (char c : text) {
    if (c == ' ') {
      s += rep;
    } else {
      s += c;
    }
  }
  bool prepend = m_options.prepend == BpeOptions::Prepend::Always ||
                 (m_options.prepend == BpeOptions::Prepend::First && firstSection);
  if (prepend && !s.empty() && s.compare(0, rep.size(), rep) != 0) s = rep + s;
  if (!m_options.metaspaceSplit || rep.empty()) return {s};
  // Split before each replacement, which stays at the start of the next word.
  size_t start = 0;
  for (size_t pos = s.find(rep, rep.size()); pos != std::string::npos;
       pos = s.find(rep, pos + rep.size())) {
    if (pos > start) words.push_back(s.substr(start, pos - start));
    start = pos;
  }
  if (start < s.size()) words.push_back(s.substr(start));
  return words;
}

std::vector<int> BpeTokenizer::symbolsOf(const std::string& word) const {
  std::vector<int> symbols;
  symbols.reserve(word.size());
  auto pushUnknown = [&] {
    if (m_options.unkId < 0) return;  // no unknown token: the symbol is dropped, as in HF
    if (m_options.fuseUnk && !symbols.empty() && symbols.back() == m_options.unkId) return;
    symbols.push_back(m_options.unkId);
  };
  if (m_options.byteLevel) {
    for (unsigned char b : word) {
      if (m_byteSymbol[b] >= 0) {
        symbols.push_back(m_byteSymbol[b]);
      } else {
        pushUnknown();
      }
    }
    return symbols;
  }
  for (const unicode::CodePoint& c : unicode::decodeUtf8(word)) {
    std::string ch = word.substr(c.offset, c.length);
    int id = m_model.idOf(ch);
    if (id >= 0) {
      symbols.push_back(id);
      continue;
    }
    bool allBytes = m_options.byteFallback;
    for (unsigned char b : ch) allBytes = allBytes && m_byteSymbol[b] >= 0;
    if (allBytes) {
      for (unsigned char b : ch) symbols.push_back(m_byteSymbol[b]);
    } else {
      pushUnknown();
    }
  }
  return symbols;
}

std::vector<int> BpeTokenizer::encodeWord(const std::string& word) const {
  const bool cacheable = word.size() <= kMaxCachedWordBytes;
  if (cacheable) {
    std::lock_guard<std::mutex> lock(m_cacheMutex);
    auto it = m_cache.find(word);
    if (it != m_cache.end()) return it->second;
  }
  std::vector<int> ids;
  if (m_options.ignoreMerges) {
    std::string mapped;
    if (m_options.byteLevel) {
      for (unsigned char b : word) unicode::appendUtf8(mapped, tokenize::byteToUnicode(b));
    } else {
      mapped = word;
    }
    int whole = m_model.idOf(mapped);
    if (whole >= 0) ids.push_back(whole);
  }
  if (ids.empty()) ids = m_model.merge(symbolsOf(word));
  if (cacheable) {
    std::lock_guard<std::mutex> lock(m_cacheMutex);
    if (m_cache.size() >= kMaxCacheEntries) m_cache.clear();
    m_cache.emplace(word, ids);
  }
  return ids;
}

std::vector<int> BpeTokenizer::encodeIds(const std::string& text) const {
  std::vector<int> ids = m_options.specials.prefix;
  bool first = true;
  for (const tokenize::Segment& seg : tokenize::splitOnAddedTokens(text, m_options.added)) {
    if (seg.addedIndex >= 0) {
      ids.push_back(m_options.added[seg.addedIndex].id);
    } else {
      std::string normalized = tokenize::applyNormalizer(seg.text, m_options.normalizer);
      for (const std::string& word : preTokenize(normalized, first)) {
        std::vector<int> w = encodeWord(word);
        ids.insert(ids.end(), w.begin(), w.end());
      }
    }
    first = false;
  }
  ids.insert(ids.end(), m_options.specials.suffix.begin(), m_options.specials.suffix.end());
  return ids;
}

std::vector<Token> BpeTokenizer::encode(const std::string& text) const {
  return m_pieces.tokens(encodeIds(text));
}

std::vector<Token> BpeTokenizer::fromIds(const std::vector<int>& ids) const {
  return m_pieces.tokens(ids);
}

}  // namespace headmap
