// libFuzzer target: GPT-2 vocab.json + merges.txt from one input split at its first NUL byte
// (vocab.json before, merges.txt after), then encoding a few texts with whatever parsed.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/common/error.h"
#include "core/tokenize/tokenizer_formats.h"
#include "fuzz/fuzz_tokenizer_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const size_t split = input.find('\0');
  const std::string vocab = input.substr(0, split);
  const std::string merges = split == std::string::npos ? "" : input.substr(split + 1);
  try {
    auto tokenizer = headmap::parseVocabJsonMerges(vocab, "vocab.json", merges, "merges.txt");
    if (tokenizer) headmap::fuzz::exerciseTokenizer(*tokenizer);
  } catch (const headmap::Error&) {
  }
  return 0;
}
