#include "core/model/ids_tokenizer.h"

#include "core/common/error.h"

namespace headmap {

std::vector<Token> IdsOnlyTokenizer::encode(const std::string&) const { throw Error(m_hint); }

std::vector<Token> IdsOnlyTokenizer::fromIds(const std::vector<int>& ids) const {
  std::vector<Token> tokens;
  for (int id : ids) {
    if (id < 0 || id >= m_vocab) {
      throw Error("token id " + std::to_string(id) + " is outside the vocabulary of " +
                  std::to_string(m_vocab) + " ids");
    }
    Token t;
    t.id = id;
    t.piece = "<" + std::to_string(id) + ">";
    t.display = "#" + std::to_string(id);
    tokens.push_back(std::move(t));
  }
  return tokens;
}

}  // namespace headmap
