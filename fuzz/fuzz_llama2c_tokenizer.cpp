// libFuzzer target: llama2.c tokenizer.bin read to its end (vocabSize 0) and with a record count
// taken from the first input byte, then encoding a few texts with whatever parsed.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/common/error.h"
#include "core/tokenize/llama2c_tokenizer.h"
#include "fuzz/fuzz_tokenizer_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const int hint = data[0] % 4 == 0 ? data[0] : 0;  // mostly "to the end", sometimes a count
  const std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    headmap::Llama2cTokenizer::countRecords(bytes, "tokenizer.bin");
  } catch (const headmap::Error&) {
  }
  try {
    headmap::Llama2cTokenizer tokenizer(bytes, "tokenizer.bin", hint);
    headmap::fuzz::exerciseTokenizer(tokenizer);
  } catch (const headmap::Error&) {
  }
  return 0;
}
