#pragma once
// WordPiece (BERT): BertNormalizer, BertPreTokenizer (split on whitespace, each punctuation
// character alone), greedy longest-match-first with "##" continuations, [UNK] for words that do
// not split or are longer than the limit, and [CLS] ... [SEP] from the post-processor.
#include <string>
#include <unordered_map>
#include <vector>

#include "core/tokenize/text_normalize.h"
#include "core/tokenize/token_text.h"
#include "core/tokenize/tokenizer.h"

namespace headmap {

struct WordPieceOptions {
  std::string source;
  bool bertNormalizer = true;
  tokenize::BertNormalizerOptions normalizer;
  std::vector<tokenize::NormalizerStep> steps;  // used instead when bertNormalizer is false
  std::string unkToken = "[UNK]";
  std::string prefix = "##";
  int maxCharsPerWord = 100;
  std::vector<tokenize::AddedToken> added;
  tokenize::SpecialTemplate specials;
};

// Whitespace and punctuation split of BERT; words as UTF-8.
std::vector<std::string> bertPreTokenize(const std::u32string& text);

class WordPieceTokenizer : public Tokenizer {
 public:
  WordPieceTokenizer(std::unordered_map<std::string, int> vocab, WordPieceOptions options);
  std::string kind() const override { return "wordpiece"; }
  std::vector<Token> encode(const std::string& text) const override;
  std::vector<Token> fromIds(const std::vector<int>& ids) const override;
  int vocabSize() const override { return m_pieces.size(); }
  std::vector<int> encodeIds(const std::string& text) const;

 private:
  void encodeWord(const std::string& word, std::vector<int>& out) const;

  std::unordered_map<std::string, int> m_vocab;
  WordPieceOptions m_options;
  tokenize::PieceTable m_pieces;
  int m_unkId = -1;
  size_t m_maxPieceBytes = 0;  // longest vocabulary entry: bounds the longest-match search
};

}  // namespace headmap
