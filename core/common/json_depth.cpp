#include "core/common/json_depth.h"

#include <algorithm>

namespace headmap {

int jsonNestingDepth(std::string_view text, int limit) {
  int depth = 0, maxDepth = 0;
  bool inString = false;
  for (size_t i = 0; i < text.size() && maxDepth <= limit; ++i) {
    const char c = text[i];
    if (inString) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        inString = false;
      }
    } else if (c == '"') {
      inString = true;
    } else if (c == '{' || c == '[') {
      maxDepth = std::max(maxDepth, ++depth);
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return maxDepth;
}

}  // namespace headmap
