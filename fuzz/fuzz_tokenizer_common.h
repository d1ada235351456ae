#pragma once
// Shared by the tokenizer fuzz targets: once a hostile file parsed, encoding text and mapping ids
// back must not crash either (a vocabulary can be built to trip the encoder, not only the parser).
#include <string>
#include <vector>

#include "core/common/error.h"
#include "core/tokenize/tokenizer.h"

namespace headmap::fuzz {

inline void exerciseTokenizer(const Tokenizer& tokenizer) {
  static const char* const kTexts[] = {
      "",
      " ",
      "Hello world, héllo 123!\n",
      "  two  spaces\t\ttabs",
      "ab ba aab <s></s>[CLS]",
      "\xe4\xb8\xad\xe6\x96\x87 \xf0\x9f\x98\x80 \xff\xfe invalid utf-8 \xc3"};
  for (const char* text : kTexts) {
    try {
      tokenizer.encode(text);
    } catch (const Error&) {
    }
  }
  try {
    const int n = tokenizer.vocabSize();
    tokenizer.fromIds({0, 1, n - 1, n > 2 ? n / 2 : 0});
  } catch (const Error&) {
  }
  try {
    tokenizer.fromIds({-1});  // must be refused with an Error
  } catch (const Error&) {
  }
}

}  // namespace headmap::fuzz
