#pragma once
// The model loaders' access to the tokenizer readers (core/tokenize, written separately). Until
// those readers are in the tree, a folder has no tokenizer and an explicit file is refused, so
// this branch builds on its own either way.
#include <memory>
#include <string>

#include "core/common/error.h"
#include "core/tokenize/tokenizer.h"

#if __has_include("core/tokenize/load_tokenizer.h")
#include "core/tokenize/load_tokenizer.h"
#define HEADMAP_HAVE_TOKENIZER_LOADERS 1
#endif

namespace headmap {

constexpr bool tokenizerLoadersAvailable() {
#ifdef HEADMAP_HAVE_TOKENIZER_LOADERS
  return true;
#else
  return false;
#endif
}

// A tokenizer file (tokenizer.json, vocab.txt, llama2.c tokenizer.bin, ...). Throws
// headmap::Error when the file cannot be read as a tokenizer.
inline std::shared_ptr<const Tokenizer> tokenizerFromFile(const std::string& path, int vocab) {
#ifdef HEADMAP_HAVE_TOKENIZER_LOADERS
  std::shared_ptr<const Tokenizer> t = loadTokenizerFile(path, vocab);
  if (t) return t;
  throw Error(path + ": not a tokenizer headmap can read");
#else
  (void)vocab;
  throw Error(path + ": tokenizer files are not supported in this build");
#endif
}

// The tokenizer files of a model folder; nullptr when there are none.
inline std::shared_ptr<const Tokenizer> tokenizerFromFolder(const std::string& dir, int vocab) {
#ifdef HEADMAP_HAVE_TOKENIZER_LOADERS
  return loadTokenizerFromFolder(dir, vocab);
#else
  (void)dir;
  (void)vocab;
  return nullptr;
#endif
}

}  // namespace headmap
