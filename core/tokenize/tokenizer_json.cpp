// Hugging Face tokenizer.json -> BpeTokenizer or WordPieceTokenizer.
#include <algorithm>
#include <unordered_map>

#include "core/common/error.h"
#include "core/tokenize/bpe_tokenizer.h"
#include "core/tokenize/json_support.h"
#include "core/tokenize/tokenizer_formats.h"
#include "core/tokenize/wordpiece_tokenizer.h"

namespace headmap {
namespace {

using tokenize::Json;
using tokenize::jsonBool;
using tokenize::jsonString;

std::string typeOf(const Json& j) { return jsonString(j, "type", ""); }

std::unordered_map<std::string, int> parseVocabObject(const Json& vocab, const std::string& src) {
  if (!vocab.is_object()) {
    throw Error(src + ": \"model\".\"vocab\" must be an object of piece -> id, found " +
                std::string(vocab.type_name()));
  }
  std::unordered_map<std::string, int> out;
  out.reserve(vocab.size());
  for (auto it = vocab.begin(); it != vocab.end(); ++it) {
    if (it.key().size() > tokenize::kMaxPieceBytes) {
      throw Error(src + ": vocabulary piece of " + std::to_string(it.key().size()) +
                  " bytes, more than the " + std::to_string(tokenize::kMaxPieceBytes) + " allowed");
    }
    out[it.key()] = tokenize::jsonId(it.value(), src, "vocabulary piece '" + it.key() + "'");
  }
  if (out.empty()) throw Error(src + ": the vocabulary is empty");
  return out;
}

std::vector<std::pair<std::string, std::string>> parseMerges(const Json& merges,
                                                             const std::string& src) {
  if (!merges.is_array()) {
    throw Error(src + ": \"model\".\"merges\" must be an array, found " +
                std::string(merges.type_name()));
  }
  std::vector<std::pair<std::string, std::string>> out;
  out.reserve(merges.size());
  for (size_t i = 0; i < merges.size(); ++i) {
    const Json& m = merges[i];
    if (m.is_string()) {  // "a b"
      const std::string& s = m.get_ref<const std::string&>();
      size_t space = s.find(' ');
      if (space == std::string::npos || space == 0 || space + 1 >= s.size() ||
          s.find(' ', space + 1) != std::string::npos) {
        throw Error(src + ": merge " + std::to_string(i + 1) +
                    " must be two pieces separated by one space, found '" + s + "'");
      }
      out.emplace_back(s.substr(0, space), s.substr(space + 1));
    } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
      out.emplace_back(m[0].get<std::string>(), m[1].get<std::string>());
    } else {
      throw Error(src + ": merge " + std::to_string(i + 1) +
                  " must be \"a b\" or [\"a\", \"b\"], found " + m.dump().substr(0, 80));
    }
  }
  return out;
}

std::vector<tokenize::AddedToken> parseAddedTokens(const Json& root, const std::string& src) {
  std::vector<tokenize::AddedToken> out;
  auto it = root.find("added_tokens");
  if (it == root.end() || it->is_null()) return out;
  if (!it->is_array()) throw Error(src + ": \"added_tokens\" must be an array");
  for (size_t i = 0; i < it->size(); ++i) {
    const Json& t = (*it)[i];
    std::string what = "added token " + std::to_string(i);
    if (!t.is_object() || !t.contains("content") || !t["content"].is_string() ||
        !t.contains("id")) {
      throw Error(src + ": " + what + " needs a string \"content\" and an integer \"id\"");
    }
    tokenize::AddedToken a;
    a.content = t["content"].get<std::string>();
    a.id = tokenize::jsonId(t["id"], src, what + " ('" + a.content + "')");
    a.special = jsonBool(t, "special", true);
    a.lstrip = jsonBool(t, "lstrip", false);
    a.rstrip = jsonBool(t, "rstrip", false);
    if (!a.content.empty()) out.push_back(std::move(a));
  }
  return out;
}

int specialId(const std::string& name, const Json& specialTokens,
              const std::unordered_map<std::string, int>& vocab,
              const std::vector<tokenize::AddedToken>& added, const std::string& src) {
  if (specialTokens.is_object() && specialTokens.contains(name)) {
    const Json& entry = specialTokens[name];
    auto ids = entry.is_object() ? entry.find("ids") : entry.end();
    if (ids != entry.end() && ids->is_array() && ids->size() == 1) {
      return tokenize::jsonId((*ids)[0], src, "'" + name + "'");
    }
  }
  for (const auto& a : added) {
    if (a.content == name) return a.id;
  }
  auto it = vocab.find(name);
  if (it != vocab.end()) return it->second;
  throw Error(src + ": post-processor special token '" + name + "' is not in the vocabulary");
}

void parsePostProcessor(const Json& pp, const std::unordered_map<std::string, int>& vocab,
                        const std::vector<tokenize::AddedToken>& added, const std::string& src,
                        tokenize::SpecialTemplate& out) {
  std::string type = typeOf(pp);
  if (pp.is_null() || type == "ByteLevel") return;
  if (type == "Sequence") {
    for (const Json& p : pp.value("processors", Json::array())) {
      parsePostProcessor(p, vocab, added, src, out);
    }
  } else if (type == "TemplateProcessing") {
    const Json& single = pp.value("single", Json::array());
    const Json specials = pp.value("special_tokens", Json::object());
    bool afterSequence = false;
    for (const Json& item : single) {
      if (item.contains("Sequence")) {
        afterSequence = true;
      } else if (item.contains("SpecialToken")) {
        std::string name = jsonString(item["SpecialToken"], "id", "");
        int id = specialId(name, specials, vocab, added, src);
        (afterSequence ? out.suffix : out.prefix).push_back(id);
      }
    }
  } else if (type == "BertProcessing" || type == "RobertaProcessing") {
    for (const char* key : {"cls", "sep"}) {
      const Json& pair = pp.value(key, Json::array());
      if (!pair.is_array() || pair.size() != 2) {
        throw Error(src + ": " + type + " needs \"" + key + "\": [token, id]");
      }
      int id = tokenize::jsonId(pair[1], src, type + " " + key);
      (std::string(key) == "cls" ? out.prefix : out.suffix).push_back(id);
    }
  } else {
    throw Error(src + ": post-processor '" + type + "' is not supported");
  }
}

void parseNormalizer(const Json& n, const std::string& src, WordPieceOptions* bert,
                     std::vector<tokenize::NormalizerStep>& steps) {
  using Kind = tokenize::NormalizerStep::Kind;
  std::string type = typeOf(n);
  if (n.is_null()) return;
  if (type == "Sequence") {
    for (const Json& s : n.value("normalizers", Json::array()))
      parseNormalizer(s, src, bert, steps);
  } else if (type == "BertNormalizer" && bert) {
    bert->bertNormalizer = true;
    auto& o = bert->normalizer;
    o.cleanText = jsonBool(n, "clean_text", true);
    o.handleChineseChars = jsonBool(n, "handle_chinese_chars", true);
    o.lowercase = jsonBool(n, "lowercase", true);
    o.stripAccents = jsonBool(n, "strip_accents", o.lowercase);  // null follows lowercase
  } else if (type == "Prepend") {
    steps.push_back({Kind::Prepend, jsonString(n, "prepend", ""), ""});
  } else if (type == "Replace") {
    const Json& pattern = n.value("pattern", Json::object());
    if (!pattern.is_object() || !pattern.contains("String")) {
      throw Error(src + ": normalizer Replace with a regex pattern is not supported");
    }
    steps.push_back(
        {Kind::Replace, jsonString(pattern, "String", ""), jsonString(n, "content", "")});
  } else if (type == "Lowercase") {
    steps.push_back({Kind::Lowercase, "", ""});
  } else if (type == "NFD" || type == "NFKD") {
    steps.push_back({Kind::Nfd, "", ""});
  } else if (type == "StripAccents") {
    steps.push_back({Kind::StripAccents, "", ""});
  } else if (type == "NFC" || type == "NFKC") {
    // Composition is not implemented: identity, exact for text that is already NFC.
  } else {
    throw Error(src + ": normalizer '" + type + "' is not supported");
  }
}

void parseBpePreTokenizer(const Json& p, const std::string& src, BpeOptions& o) {
  std::string type = typeOf(p);
  if (p.is_null()) return;
  if (type == "Sequence") {
    for (const Json& s : p.value("pretokenizers", Json::array())) parseBpePreTokenizer(s, src, o);
  } else if (type == "ByteLevel") {
    o.byteLevel = true;
    o.addPrefixSpace = jsonBool(p, "add_prefix_space", false);
    // After a Split, ByteLevel's own regex is off (use_regex false) and the Split decides.
    if (!o.splitFromPattern) o.useRegex = jsonBool(p, "use_regex", true);
  } else if (type == "Split") {
    // Only the Split regexes of GPT-2, Llama 3 and Qwen2, which are implemented by hand.
    std::string regex = jsonString(p.value("pattern", Json::object()), "Regex", "");
    int kind = recognizeSplitPattern(regex);
    if (kind < 0 || jsonString(p, "behavior", "") != "Isolated" || jsonBool(p, "invert", false)) {
      throw Error(src + ": pre-tokenizer 'Split' with pattern '" + regex.substr(0, 60) +
                  "' is not supported (only the GPT-2, Llama 3 and Qwen2 patterns are)");
    }
    o.useRegex = kind == 0;
    o.llama3Digits = kind;
    o.splitFromPattern = true;
  } else if (type == "Metaspace") {
    o.byteLevel = false;
    o.metaspace = true;
    o.replacement = jsonString(p, "replacement", "\u2581");
    std::string scheme = jsonString(p, "prepend_scheme", "");
    bool addPrefix = jsonBool(p, "add_prefix_space", true);
    o.prepend = scheme == "first"              ? BpeOptions::Prepend::First
                : scheme == "never"            ? BpeOptions::Prepend::Never
                : scheme.empty() && !addPrefix ? BpeOptions::Prepend::Never
                                               : BpeOptions::Prepend::Always;
    o.metaspaceSplit = jsonBool(p, "split", true);
  } else {
    throw Error(src + ": pre-tokenizer '" + type + "' is not supported for BPE");
  }
}

std::shared_ptr<Tokenizer> makeBpe(const Json& root, const Json& model, const std::string& src,
                                   std::unordered_map<std::string, int> vocab,
                                   std::vector<tokenize::AddedToken> added,
                                   tokenize::SpecialTemplate specials) {
  if (!jsonString(model, "continuing_subword_prefix", "").empty() ||
      !jsonString(model, "end_of_word_suffix", "").empty()) {
    throw Error(src + ": BPE with a subword prefix or end-of-word suffix is not supported");
  }
  auto merges = parseMerges(model.value("merges", Json::array()), src);
  BpeOptions o;
  o.source = src;
  // Byte-level unless the file says otherwise (Metaspace, or byte fallback without ByteLevel).
  o.byteLevel = !jsonBool(model, "byte_fallback", false);
  if (typeOf(root.value("decoder", Json())) == "ByteLevel") o.byteLevel = true;
  parseBpePreTokenizer(root.value("pre_tokenizer", Json()), src, o);
  parseNormalizer(root.value("normalizer", Json()), src, nullptr, o.normalizer);
  std::string unk = jsonString(model, "unk_token", "");
  if (!unk.empty()) {
    auto it = vocab.find(unk);
    if (it == vocab.end()) throw Error(src + ": unk_token '" + unk + "' is not in the vocabulary");
    o.unkId = it->second;
  }
  o.fuseUnk = jsonBool(model, "fuse_unk", false);
  o.byteFallback = jsonBool(model, "byte_fallback", false);
  o.ignoreMerges = jsonBool(model, "ignore_merges", false);
  o.added = std::move(added);
  o.specials = std::move(specials);
  return std::make_shared<BpeTokenizer>(BpeModel(std::move(vocab), merges, src), std::move(o));
}

std::shared_ptr<Tokenizer> makeWordPiece(const Json& root, const Json& model,
                                         const std::string& src,
                                         std::unordered_map<std::string, int> vocab,
                                         std::vector<tokenize::AddedToken> added,
                                         tokenize::SpecialTemplate specials) {
  WordPieceOptions o;
  o.source = src;
  o.bertNormalizer = false;
  parseNormalizer(root.value("normalizer", Json()), src, &o, o.steps);
  std::string pre = typeOf(root.value("pre_tokenizer", Json()));
  if (!pre.empty() && pre != "BertPreTokenizer") {
    throw Error(src + ": pre-tokenizer '" + pre + "' is not supported for WordPiece");
  }
  o.unkToken = jsonString(model, "unk_token", "[UNK]");
  o.prefix = jsonString(model, "continuing_subword_prefix", "##");
  const Json& maxChars = model.value("max_input_chars_per_word", Json(100));
  if (maxChars.is_number_integer()) {
    o.maxCharsPerWord =
        static_cast<int>(std::clamp<long long>(maxChars.get<long long>(), 1, 1 << 20));
  }
  o.added = std::move(added);
  o.specials = std::move(specials);
  return std::make_shared<WordPieceTokenizer>(std::move(vocab), std::move(o));
}

// Without a post-processor, tokenizer_config.json may ask for BOS/EOS (some Llama exports).
void applyConfigSpecials(const std::string& configText, const Json& model,
                         const std::vector<tokenize::AddedToken>& added, const std::string& src,
                         tokenize::SpecialTemplate& specials) {
  if (configText.empty()) return;
  Json config;
  try {
    config = tokenize::parseJsonLimited(configText, src + " (tokenizer_config.json)");
  } catch (const Error&) {
    return;  // a broken optional side file does not stop the tokenizer itself
  }
  auto idOf = [&](const char* key) {
    const Json& t = config.value(key, Json());
    std::string name = t.is_string() ? t.get<std::string>() : jsonString(t, "content", "");
    for (const auto& a : added) {
      if (a.content == name) return a.id;
    }
    const Json& vocab = model.value("vocab", Json());
    if (vocab.is_object() && vocab.contains(name) && vocab[name].is_number_integer()) {
      return tokenize::jsonId(vocab[name], src, name);
    }
    return -1;
  };
  if (jsonBool(config, "add_bos_token", false) && idOf("bos_token") >= 0) {
    specials.prefix.push_back(idOf("bos_token"));
  }
  if (jsonBool(config, "add_eos_token", false) && idOf("eos_token") >= 0) {
    specials.suffix.push_back(idOf("eos_token"));
  }
}

std::shared_ptr<Tokenizer> parseTokenizerJsonUnchecked(const std::string& text,
                                                       const std::string& src,
                                                       const std::string& configText) {
  Json root = tokenize::parseJsonLimited(text, src);
  if (!root.is_object() || !root.contains("model") || !root["model"].is_object()) {
    throw Error(src + ": a tokenizer.json needs a \"model\" object, this file has none");
  }
  const Json& model = root["model"];
  std::string type = typeOf(model);
  if (type.empty()) {  // older serializers omit "type": infer it from the keys
    if (model.contains("merges")) {
      type = "BPE";
    } else if (model.contains("vocab") && model["vocab"].is_array()) {
      type = "Unigram";
    } else if (model.contains("continuing_subword_prefix") ||
               model.contains("max_input_chars_per_word")) {
      type = "WordPiece";
    } else {
      type = "WordLevel";
    }
  }
  if (type != "BPE" && type != "WordPiece") {
    throw Error(src + ": tokenizer model '" + type +
                "' is not supported (expected BPE or WordPiece)");
  }
  auto vocab = parseVocabObject(model.value("vocab", Json()), src);
  auto added = parseAddedTokens(root, src);
  tokenize::SpecialTemplate specials;
  const Json& pp = root.value("post_processor", Json());
  parsePostProcessor(pp, vocab, added, src, specials);
  if (pp.is_null()) applyConfigSpecials(configText, model, added, src, specials);
  if (type == "BPE") {
    return makeBpe(root, model, src, std::move(vocab), std::move(added), std::move(specials));
  }
  return makeWordPiece(root, model, src, std::move(vocab), std::move(added), std::move(specials));
}

}  // namespace

std::shared_ptr<Tokenizer> parseTokenizerJson(const std::string& text, const std::string& src,
                                              const std::string& configText) {
  try {
    return parseTokenizerJsonUnchecked(text, src, configText);
  } catch (const Json::exception& e) {  // a value of an unexpected JSON type somewhere
    throw Error(src + ": unexpected tokenizer.json content (" + e.what() + ")");
  }
}

}  // namespace headmap
