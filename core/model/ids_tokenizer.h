#pragma once
// Stand-in tokenizer for a model found without its tokenizer: ids given directly (--ids) still
// work, text fails with a message saying which tokenizer file to pass.
#include <string>

#include "core/tokenize/tokenizer.h"

namespace headmap {

class IdsOnlyTokenizer : public Tokenizer {
 public:
  // hint: the sentence encode() throws, e.g. "stories260K.bin: no tokenizer found beside ...".
  IdsOnlyTokenizer(int vocab, std::string hint) : m_vocab(vocab), m_hint(std::move(hint)) {}
  std::string kind() const override { return "ids"; }
  std::vector<Token> encode(const std::string& text) const override;
  std::vector<Token> fromIds(const std::vector<int>& ids) const override;
  int vocabSize() const override { return m_vocab; }

 private:
  int m_vocab;
  std::string m_hint;
};

}  // namespace headmap
