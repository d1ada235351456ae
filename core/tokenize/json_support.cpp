#include "core/tokenize/json_support.h"

#include "core/common/error.h"
#include "core/common/json_depth.h"
#include "core/tokenize/token_text.h"

namespace headmap::tokenize {
namespace {

constexpr int kMaxJsonDepth = 64;

}  // namespace

Json parseJsonLimited(const std::string& text, const std::string& source) {
  int depth = jsonNestingDepth(text, kMaxJsonDepth);
  if (depth > kMaxJsonDepth) {
    throw Error(source + ": JSON nests deeper than " + std::to_string(kMaxJsonDepth) +
                " levels (not a tokenizer file?)");
  }
  try {
    return Json::parse(text);
  } catch (const Json::exception& e) {
    throw Error(source + ": not valid JSON (" + e.what() + ")");
  }
}

int jsonId(const Json& value, const std::string& source, const std::string& what) {
  if (!value.is_number_integer()) {
    throw Error(source + ": " + what + " must be an integer id, found " +
                std::string(value.type_name()));
  }
  long long id = value.get<long long>();
  if (id < 0 || id >= kMaxVocabSize) {
    throw Error(source + ": " + what + " has id " + std::to_string(id) + ", expected 0.." +
                std::to_string(kMaxVocabSize - 1));
  }
  return static_cast<int>(id);
}

bool jsonBool(const Json& object, const char* key, bool fallback) {
  if (!object.is_object()) return fallback;
  auto it = object.find(key);
  return it != object.end() && it->is_boolean() ? it->get<bool>() : fallback;
}

std::string jsonString(const Json& object, const char* key, const std::string& fallback) {
  if (!object.is_object()) return fallback;
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : fallback;
}

}  // namespace headmap::tokenize
