#pragma once
// The regex pre-tokenizers of byte-level BPE, evaluated by hand over code points (std::regex has
// no \p{L}). Each returns [begin, end) byte ranges covering the whole text.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace headmap {

using ByteRanges = std::vector<std::pair<size_t, size_t>>;

// GPT-2:  's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
ByteRanges splitGpt2(const std::string& text);

// Llama 3 (maxDigits 3) and Qwen2 (maxDigits 1):
//   (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,maxDigits}|
//   ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
ByteRanges splitLlama3(const std::string& text, int maxDigits);

// The Split patterns above as they appear in tokenizer.json; 0 for GPT-2's, the digit count for
// Llama 3 / Qwen2's, -1 for any other pattern.
int recognizeSplitPattern(const std::string& regex);

}  // namespace headmap
