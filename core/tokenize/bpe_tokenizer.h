#pragma once
// BPE tokenizers from Hugging Face files: byte-level (GPT-2: regex pre-tokenizer, bytes mapped to
// printable code points, no BOS) and SentencePiece-style (Llama: "▁" for spaces, byte fallback
// <0xNN>, BOS from the post-processor).
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/tokenize/bpe_merge.h"
#include "core/tokenize/pre_tokenize.h"
#include "core/tokenize/text_normalize.h"
#include "core/tokenize/token_text.h"
#include "core/tokenize/tokenizer.h"

namespace headmap {

struct BpeOptions {
  std::string source;  // file name for messages
  bool byteLevel = true;
  bool addPrefixSpace = false;    // ByteLevel pre-tokenizer: a leading space unless one is there
  bool useRegex = true;           // ByteLevel pre-tokenizer: split with the GPT-2 regex
  int llama3Digits = 0;           // > 0: a Split pre-tokenizer with the Llama 3 / Qwen2 regex
  bool splitFromPattern = false;  // a Split pre-tokenizer chose the regex (ByteLevel keeps it)
  std::vector<tokenize::NormalizerStep> normalizer;
  // Metaspace pre-tokenizer (SentencePiece style without a normalizer doing the work).
  bool metaspace = false;
  std::string replacement = "\u2581";
  enum class Prepend { Always, First, Never } prepend = Prepend::Always;
  bool metaspaceSplit = false;
  int unkId = -1;
  bool fuseUnk = false;
  bool byteFallback = false;
  bool ignoreMerges = false;  // a pre-token that is itself in the vocabulary skips merging
  std::vector<tokenize::AddedToken> added;
  tokenize::SpecialTemplate specials;
};

class BpeTokenizer : public Tokenizer {
 public:
  BpeTokenizer(BpeModel model, BpeOptions options);
  std::string kind() const override { return m_options.byteLevel ? "bpe" : "sentencepiece-bpe"; }
  std::vector<Token> encode(const std::string& text) const override;
  std::vector<Token> fromIds(const std::vector<int>& ids) const override;
  int vocabSize() const override { return m_pieces.size(); }
  std::vector<int> encodeIds(const std::string& text) const;

 private:
  std::vector<std::string> preTokenize(const std::string& text, bool firstSection) const;
  std::vector<int> encodeWord(const std::string& word) const;
  std::vector<int> symbolsOf(const std::string& word) const;

  BpeModel m_model;
  BpeOptions m_options;
  tokenize::PieceTable m_pieces;
  int m_byteSymbol[256];  // id of each byte's symbol (byte-level) or <0xNN> token; -1 if none
  mutable std::mutex m_cacheMutex;
  mutable std::unordered_map<std::string, std::vector<int>> m_cache;
};

}  // namespace headmap
