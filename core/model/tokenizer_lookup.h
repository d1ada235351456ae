#pragma once
// The model loaders' access to the tokenizer readers in core/tokenize.
#include <memory>
#include <string>

#include "core/common/error.h"
#include "core/tokenize/load_tokenizer.h"
#include "core/tokenize/tokenizer.h"

namespace headmap {

// A tokenizer file (tokenizer.json, vocab.txt, llama2.c tokenizer.bin, ...). Throws
// headmap::Error when the file cannot be read as a tokenizer.
inline std::shared_ptr<const Tokenizer> tokenizerFromFile(const std::string& path, int vocab) {
  std::shared_ptr<const Tokenizer> t = loadTokenizerFile(path, vocab);
  if (t) return t;
  throw Error(path + ": not a tokenizer headmap can read");
}

// The tokenizer files of a model folder; nullptr when there are none.
inline std::shared_ptr<const Tokenizer> tokenizerFromFolder(const std::string& dir, int vocab) {
  return loadTokenizerFromFolder(dir, vocab);
}

}  // namespace headmap
