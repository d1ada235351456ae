#pragma once
// llama2.c's tokenizer.bin: int32 max_token_length, then records {float32 score, int32 length,
// bytes}. Encoding as llama2.c's run.c does it: BOS (1), a dummy " " prefix for non-empty text,
// one piece per UTF-8 character (unknown characters as byte tokens id = byte + 3), then merges
// of adjacent pieces, best score first.
#include <string>
#include <unordered_map>
#include <vector>

#include "core/tokenize/token_text.h"
#include "core/tokenize/tokenizer.h"

namespace headmap {

class Llama2cTokenizer : public Tokenizer {
 public:
  // Reads exactly vocabSize records; vocabSize <= 0 reads records until the end of the file.
  // Throws headmap::Error naming the file, the record and the bytes expected vs left.
  Llama2cTokenizer(const std::string& data, const std::string& source, int vocabSize);
  static Llama2cTokenizer fromFile(const std::string& path, int vocabSize = 0);
  // Number of records the file holds when read to its end (throws when they do not fit).
  static int countRecords(const std::string& data, const std::string& source);

  std::string kind() const override { return "llama2c"; }
  std::vector<Token> encode(const std::string& text) const override;
  std::vector<Token> fromIds(const std::vector<int>& ids) const override;
  int vocabSize() const override { return static_cast<int>(m_pieces.size()); }
  std::vector<int> encodeIds(const std::string& text) const;
  int maxTokenLength() const { return m_maxTokenLength; }

 private:
  Token makeToken(int id) const;

  std::string m_source;
  int m_maxTokenLength = 0;
  std::vector<std::string> m_pieces;
  std::vector<float> m_scores;
  std::unordered_map<std::string, int> m_ids;
};

}  // namespace headmap
