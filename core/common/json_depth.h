#pragma once
// nlohmann_json parses recursively: untrusted JSON (safetensors headers, tokenizer.json,
// config.json) is checked for bracket nesting before it reaches the parser.
#include <cstddef>
#include <string_view>

namespace headmap {

// Deepest bracket nesting outside strings; stops counting once it exceeds limit.
int jsonNestingDepth(std::string_view text, int limit);

}  // namespace headmap
