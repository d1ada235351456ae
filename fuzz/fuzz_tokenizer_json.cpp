// libFuzzer target: Hugging Face tokenizer.json (BPE, SentencePiece BPE, WordPiece), then encoding
// a few texts with whatever parsed. Inputs after the first NUL byte are tokenizer_config.json.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/common/error.h"
#include "core/tokenize/tokenizer_formats.h"
#include "fuzz/fuzz_tokenizer_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const size_t split = input.find('\0');
  const std::string json = input.substr(0, split);
  const std::string config = split == std::string::npos ? "" : input.substr(split + 1);
  try {
    auto tokenizer = headmap::parseTokenizerJson(json, "tokenizer.json", config);
    if (tokenizer) headmap::fuzz::exerciseTokenizer(*tokenizer);
  } catch (const headmap::Error&) {
  }
  return 0;
}
