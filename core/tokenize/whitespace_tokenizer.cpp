#include "core/tokenize/whitespace_tokenizer.h"

namespace headmap {

namespace {

bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

}  // namespace

std::vector<Token> WhitespaceTokenizer::encode(const std::string& text) const {
  std::vector<Token> tokens;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && isSpace(text[i])) ++i;
    size_t start = i;
    while (i < text.size() && !isSpace(text[i])) ++i;
    if (i > start) {
      Token t;
      t.id = static_cast<int>(tokens.size());
      t.piece = text.substr(start, i - start);
      t.display = t.piece;
      tokens.push_back(std::move(t));
    }
  }
  return tokens;
}

std::vector<Token> WhitespaceTokenizer::fromIds(const std::vector<int>& ids) const {
  std::vector<Token> tokens(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    tokens[i].id = ids[i];
    tokens[i].piece = "#" + std::to_string(i);
    tokens[i].display = tokens[i].piece;
  }
  return tokens;
}

}  // namespace headmap
