#include "core/tokenize/load_tokenizer.h"

#include <filesystem>

#include "core/common/error.h"
#include "core/tokenize/llama2c_tokenizer.h"
#include "core/tokenize/token_text.h"
#include "core/tokenize/tokenizer_formats.h"

namespace fs = std::filesystem;

namespace headmap {
namespace {

std::string sideFile(const std::string& path, const char* name) {
  fs::path p = fs::path(path).parent_path() / name;
  std::error_code ec;
  return fs::is_regular_file(p, ec) ? p.string() : std::string();
}

char firstNonSpace(const std::string& data) {
  for (char c : data) {
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return c;
  }
  return '\0';
}

bool looksLikeText(const std::string& data) {
  size_t n = std::min<size_t>(data.size(), 4096);
  for (size_t i = 0; i < n; ++i) {
    unsigned char c = static_cast<unsigned char>(data[i]);
    if (c == 0 || (c < 0x20 && c != '\n' && c != '\r' && c != '\t')) return false;
  }
  return true;
}

// tokenizer.json has "model": {...}; in GPT-2's vocab.json "model" is a piece with an id.
bool hasModelObject(const std::string& data) {
  auto skipSpace = [&](size_t i) {
    while (i < data.size() &&
           (data[i] == ' ' || data[i] == '\n' || data[i] == '\r' || data[i] == '\t')) {
      ++i;
    }
    return i;
  };
  for (size_t pos = data.find("\"model\""); pos != std::string::npos;
       pos = data.find("\"model\"", pos + 1)) {
    size_t i = skipSpace(pos + 7);
    if (i < data.size() && data[i] == ':') {
      i = skipSpace(i + 1);
      if (i < data.size() && data[i] == '{') return true;
    }
  }
  return false;
}

}  // namespace

std::shared_ptr<Tokenizer> loadTokenizerFile(const std::string& path, int vocabSizeHint) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    auto t = loadTokenizerFromFolder(path, vocabSizeHint);
    if (!t) throw Error(path + ": the folder holds no tokenizer file");
    return t;
  }
  if (fs::path(path).extension() == ".model") {
    throw Error(path + ": SentencePiece .model files are not read; give the model's " +
                "tokenizer.json, or a llama2.c tokenizer.bin exported from it");
  }
  std::string data = tokenize::readFileLimited(path);
  if (data.empty()) throw Error(path + ": the tokenizer file is empty");
  char first = firstNonSpace(data);
  bool jsonName = fs::path(path).extension() == ".json";
  if (first == '{' || (first == '[' && jsonName)) {  // vocab.txt starts with "[PAD]"
    // tokenizer.json has "model": {...}; GPT-2's vocab.json is a flat piece -> id object.
    bool named = fs::path(path).filename().string().find("tokenizer") != std::string::npos;
    if (named || hasModelObject(data) || first == '[') {
      std::string config = sideFile(path, "tokenizer_config.json");
      return parseTokenizerJson(data, path,
                                config.empty() ? "" : tokenize::readFileLimited(config));
    }
    std::string merges = sideFile(path, "merges.txt");
    if (merges.empty()) {
      throw Error(path + ": a vocab.json needs merges.txt beside it, " +
                  (fs::path(path).parent_path() / "merges.txt").string() + " does not exist");
    }
    return parseVocabJsonMerges(data, path, tokenize::readFileLimited(merges), merges);
  }
  if (looksLikeText(data)) return parseVocabTxt(data, path);
  auto t = std::make_shared<Llama2cTokenizer>(data, path, vocabSizeHint);
  return t;
}

std::shared_ptr<Tokenizer> loadTokenizerFromFolder(const std::string& dir, int vocabSizeHint) {
  auto has = [&](const char* name) {
    std::error_code ec;
    return fs::is_regular_file(fs::path(dir) / name, ec);
  };
  auto at = [&](const char* name) { return (fs::path(dir) / name).string(); };
  if (has("tokenizer.json")) return loadTokenizerFile(at("tokenizer.json"));
  if (has("vocab.json") && has("merges.txt")) return loadTokenizerFile(at("vocab.json"));
  if (has("vocab.txt")) return loadTokenizerFile(at("vocab.txt"));
  if (has("tokenizer.bin")) return loadTokenizerFile(at("tokenizer.bin"), vocabSizeHint);
  return nullptr;
}

}  // namespace headmap
