#pragma once
// nlohmann::json helpers for the tokenizer parsers: parsing with a nesting bound and typed
// lookups whose errors name the file and the key.
#include <nlohmann/json.hpp>
#include <string>

namespace headmap::tokenize {

using Json = nlohmann::json;

// Parses `text`; throws headmap::Error naming `source` on bad JSON or nesting deeper than 64.
Json parseJsonLimited(const std::string& text, const std::string& source);

// Integer id in [0, kMaxVocabSize); `what` names the entry in the message.
int jsonId(const Json& value, const std::string& source, const std::string& what);

bool jsonBool(const Json& object, const char* key, bool fallback);
std::string jsonString(const Json& object, const char* key, const std::string& fallback);

}  // namespace headmap::tokenize
