#pragma once
// The tokenizer of a bare attention layer: words split on whitespace. A bare layer has no
// vocabulary, so ids are positions and the embeddings come from the token text.
#include "core/tokenize/tokenizer.h"

namespace headmap {

class WhitespaceTokenizer : public Tokenizer {
 public:
  std::string kind() const override { return "whitespace"; }
  // "the cat  sat" -> {0 "the"}, {1 "cat"}, {2 "sat"}: split on ASCII whitespace.
  std::vector<Token> encode(const std::string& text) const override;
  // Ids carry no text here: token i is labelled by its position, "#0", "#1", ...
  std::vector<Token> fromIds(const std::vector<int>& ids) const override;
  int vocabSize() const override { return 0; }  // unbounded
};

}  // namespace headmap
