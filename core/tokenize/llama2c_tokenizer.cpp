#include "core/tokenize/llama2c_tokenizer.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "core/common/error.h"
#include "core/tokenize/bpe_merge.h"
#include "core/tokenize/unicode_text.h"

namespace headmap {
namespace {

std::string trimmedSpecial(const std::string& piece) {
  const size_t first = piece.find_first_not_of(" \n\r\t");
  if (first == std::string::npos) return piece;
  const size_t last = piece.find_last_not_of(" \n\r\t");
  return piece.substr(first, last - first + 1);
}

constexpr int kBos = 1;
constexpr int kByteOffset = 3;  // ids 3..258 are the bytes 0x00..0xFF

struct Reader {
  const std::string& data;
  const std::string& source;
  size_t pos = 0;

  size_t left() const { return data.size() - pos; }
  void need(size_t bytes, const std::string& what) const {
    if (bytes > left()) {
      throw Error(source + ": " + what + " needs " + std::to_string(bytes) +
                  " bytes, the file has " + std::to_string(left()) + " left");
    }
  }
  int32_t int32(const std::string& what) {
    need(4, what);
    int32_t v;
    std::memcpy(&v, data.data() + pos, 4);
    pos += 4;
    return v;
  }
  float float32(const std::string& what) {
    need(4, what);
    float v;
    std::memcpy(&v, data.data() + pos, 4);
    pos += 4;
    return v;
  }
};

int32_t readMaxTokenLength(Reader& r) {
  int32_t maxLen = r.int32("the header (max_token_length)");
  if (maxLen < 1 || maxLen > static_cast<int32_t>(tokenize::kMaxPieceBytes)) {
    throw Error(r.source + ": max_token_length must be 1.." +
                std::to_string(tokenize::kMaxPieceBytes) + ", the file says " +
                std::to_string(maxLen) + " (not a llama2.c tokenizer?)");
  }
  return maxLen;
}

// Reads one record; returns false at a clean end of file when `untilEnd`.
bool readRecord(Reader& r, int index, int32_t maxLen, std::string& piece, float& score) {
  std::string what = "record " + std::to_string(index);
  score = r.float32(what + " (score)");
  int32_t len = r.int32(what + " (length)");
  if (len < 0 || len > maxLen) {
    throw Error(r.source + ": " + what + " has length " + std::to_string(len) + ", expected 0.." +
                std::to_string(maxLen) + " (max_token_length)");
  }
  r.need(static_cast<size_t>(len), what + " (" + std::to_string(len) + " bytes of text)");
  piece.assign(r.data, r.pos, static_cast<size_t>(len));
  r.pos += static_cast<size_t>(len);
  if (!std::isfinite(score)) {
    throw Error(r.source + ": " + what + " has a non-finite score");
  }
  return true;
}

}  // namespace

int Llama2cTokenizer::countRecords(const std::string& data, const std::string& source) {
  Reader r{data, source};
  int32_t maxLen = readMaxTokenLength(r);
  int count = 0;
  std::string piece;
  float score;
  while (r.left() > 0) {
    if (count >= tokenize::kMaxVocabSize) {
      throw Error(source + ": more than " + std::to_string(tokenize::kMaxVocabSize) + " records");
    }
    readRecord(r, count, maxLen, piece, score);
    ++count;
  }
  return count;
}

Llama2cTokenizer::Llama2cTokenizer(const std::string& data, const std::string& source,
                                   int vocabSize)
    : m_source(source) {
  if (vocabSize > tokenize::kMaxVocabSize) {
    throw Error(source + ": vocabulary size " + std::to_string(vocabSize) + " is above the " +
                std::to_string(tokenize::kMaxVocabSize) + " supported");
  }
  int count = vocabSize > 0 ? vocabSize : countRecords(data, source);
  Reader r{data, source};
  m_maxTokenLength = readMaxTokenLength(r);
  // Each record takes at least 8 bytes: refuse an impossible count before allocating for it.
  if (static_cast<size_t>(count) > r.left() / 8) {
    throw Error(source + ": " + std::to_string(count) + " records need at least " +
                std::to_string(size_t(count) * 8) + " bytes, the file has " +
                std::to_string(r.left()) + " left");
  }
  if (count < kByteOffset + 256) {
    throw Error(source + ": a llama2.c vocabulary needs at least 259 tokens (<unk>, <s>, </s>, " +
                "256 bytes), this one has " + std::to_string(count));
  }
  m_pieces.resize(count);
  m_scores.resize(count);
  for (int i = 0; i < count; ++i) {
    readRecord(r, i, m_maxTokenLength, m_pieces[i], m_scores[i]);
    m_ids.emplace(m_pieces[i], i);  // the first of duplicated pieces wins
  }
}

Llama2cTokenizer Llama2cTokenizer::fromFile(const std::string& path, int vocabSize) {
  return Llama2cTokenizer(tokenize::readFileLimited(path), path, vocabSize);
}

std::vector<int> Llama2cTokenizer::encodeIds(const std::string& text) const {
  std::vector<int> ids{kBos};
  if (text.empty()) return ids;
  std::vector<int> symbols;
  auto pushPiece = [&](const std::string& piece) {
    auto it = m_ids.find(piece);
    if (it != m_ids.end()) {
      symbols.push_back(it->second);
      return;
    }
    for (unsigned char b : piece) symbols.push_back(b + kByteOffset);
  };
  pushPiece(" ");  // llama2.c's dummy prefix
  for (const unicode::CodePoint& c : unicode::decodeUtf8(text)) {
    pushPiece(text.substr(c.offset, c.length));
  }
  std::vector<int> merged =
      mergeSymbols(std::move(symbols), [this](int a, int b, double& priority, int& merged) {
        auto it = m_ids.find(m_pieces[a] + m_pieces[b]);
        if (it == m_ids.end()) return false;
        priority = -static_cast<double>(m_scores[it->second]);
        merged = it->second;
        return true;
      });
  ids.insert(ids.end(), merged.begin(), merged.end());
  return ids;
}

Token Llama2cTokenizer::makeToken(int id) const {
  if (id < 0 || id >= vocabSize()) {
    throw Error(m_source + ": token id " + std::to_string(id) + " is outside the vocabulary (0.." +
                std::to_string(vocabSize() - 1) + ")");
  }
  Token t;
  t.id = id;
  t.piece = m_pieces[id];
  t.special = id < kByteOffset;
  // llama2.c stores BOS/EOS as "\n<s>\n" and "\n</s>\n": label them without the newlines.
  t.display = t.special ? tokenize::displayBytes(trimmedSpecial(t.piece))
                        : tokenize::displayMetaspace(t.piece);
  return t;
}

std::vector<Token> Llama2cTokenizer::encode(const std::string& text) const {
  return fromIds(encodeIds(text));
}

std::vector<Token> Llama2cTokenizer::fromIds(const std::vector<int>& ids) const {
  std::vector<Token> out;
  out.reserve(ids.size());
  for (int id : ids) out.push_back(makeToken(id));
  return out;
}

}  // namespace headmap
