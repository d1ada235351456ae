#pragma once
// Text -> token ids, as the original tokenizers do it (special tokens included).
#include <memory>
#include <string>
#include <vector>

namespace headmap {

struct Token {
  int id = 0;
  std::string piece;    // the vocabulary entry, e.g. "Ġworld", "##ing", "▁time", "<0x0A>"
  std::string display;  // readable text for chips and axis labels, e.g. " world", "##ing"
  bool special = false; // BOS, [CLS], [SEP], ...
};

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;
  virtual std::string kind() const = 0;  // "whitespace", "bpe", "wordpiece", "llama2c", ...
  virtual std::vector<Token> encode(const std::string& text) const = 0;
  // Tokens for ids given directly (--ids): piece and display text of each id.
  virtual std::vector<Token> fromIds(const std::vector<int>& ids) const = 0;
  virtual int vocabSize() const = 0;
};

}  // namespace headmap
