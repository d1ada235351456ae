// libFuzzer target: BERT vocab.txt (WordPiece), then encoding a few texts with whatever parsed.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/common/error.h"
#include "core/tokenize/tokenizer_formats.h"
#include "fuzz/fuzz_tokenizer_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    auto tokenizer =
        headmap::parseVocabTxt(std::string(reinterpret_cast<const char*>(data), size), "vocab.txt");
    if (tokenizer) headmap::fuzz::exerciseTokenizer(*tokenizer);
  } catch (const headmap::Error&) {
  }
  return 0;
}
