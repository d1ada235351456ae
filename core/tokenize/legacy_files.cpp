// GPT-2's vocab.json + merges.txt and BERT's vocab.txt.
#include "core/common/error.h"
#include "core/tokenize/bpe_tokenizer.h"
#include "core/tokenize/json_support.h"
#include "core/tokenize/tokenizer_formats.h"
#include "core/tokenize/wordpiece_tokenizer.h"

namespace headmap {
namespace {

// Lines without their "\n" / "\r\n"; a final line without newline counts too.
std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    start = end + 1;
  }
  return lines;
}

}  // namespace

std::shared_ptr<Tokenizer> parseVocabJsonMerges(const std::string& vocabText,
                                                const std::string& vocabSource,
                                                const std::string& mergesText,
                                                const std::string& mergesSource) {
  tokenize::Json root = tokenize::parseJsonLimited(vocabText, vocabSource);
  if (!root.is_object() || root.empty()) {
    throw Error(vocabSource + ": expected a JSON object of piece -> id, found " +
                std::string(root.is_object() ? "an empty object" : root.type_name()));
  }
  std::unordered_map<std::string, int> vocab;
  vocab.reserve(root.size());
  for (auto it = root.begin(); it != root.end(); ++it) {
    if (it.key().size() > tokenize::kMaxPieceBytes) {
      throw Error(vocabSource + ": piece of " + std::to_string(it.key().size()) +
                  " bytes, more than the " + std::to_string(tokenize::kMaxPieceBytes) + " allowed");
    }
    vocab[it.key()] = tokenize::jsonId(it.value(), vocabSource, "piece '" + it.key() + "'");
  }
  std::vector<std::pair<std::string, std::string>> merges;
  std::vector<std::string> lines = splitLines(mergesText);
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (line.empty() || (i == 0 && line.rfind("#version", 0) == 0)) continue;
    size_t space = line.find(' ');
    if (space == std::string::npos || space == 0 || space + 1 >= line.size() ||
        line.find(' ', space + 1) != std::string::npos) {
      throw Error(mergesSource + ": line " + std::to_string(i + 1) +
                  " must be two pieces separated by one space, found '" + line.substr(0, 80) + "'");
    }
    merges.emplace_back(line.substr(0, space), line.substr(space + 1));
  }
  BpeOptions o;
  o.source = vocabSource;
  o.byteLevel = true;
  // GPT-2's <|endoftext|> is found in the text as one token, as the original tokenizer does.
  auto eot = vocab.find("<|endoftext|>");
  if (eot != vocab.end()) o.added.push_back({eot->first, eot->second, true, false, false});
  std::string source = vocabSource + " + " + mergesSource;
  return std::make_shared<BpeTokenizer>(BpeModel(std::move(vocab), merges, source), std::move(o));
}

std::shared_ptr<Tokenizer> parseVocabTxt(const std::string& text, const std::string& source) {
  std::vector<std::string> lines = splitLines(text);
  if (lines.size() > static_cast<size_t>(tokenize::kMaxVocabSize)) {
    throw Error(source + ": " + std::to_string(lines.size()) + " lines, more than the " +
                std::to_string(tokenize::kMaxVocabSize) + " tokens supported");
  }
  std::unordered_map<std::string, int> vocab;
  size_t plainWords = 0, upperWords = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& piece = lines[i];
    if (piece.size() > tokenize::kMaxPieceBytes) {
      throw Error(source + ": line " + std::to_string(i + 1) + " is " +
                  std::to_string(piece.size()) + " bytes, more than a vocabulary piece may be");
    }
    if (piece.empty()) continue;
    vocab[piece] = static_cast<int>(i);  // a repeated piece keeps its last line, as BERT does
    if (piece.front() == '[' && piece.back() == ']') continue;
    ++plainWords;
    for (char c : piece) {
      if (c >= 'A' && c <= 'Z') {
        ++upperWords;
        break;
      }
    }
  }
  if (vocab.empty()) throw Error(source + ": the vocabulary file has no tokens");
  WordPieceOptions o;
  o.source = source;
  // *-uncased vocabularies hold no upper-case words; cased ones hold thousands.
  bool cased = upperWords * 100 > plainWords;
  o.normalizer.lowercase = !cased;
  o.normalizer.stripAccents = !cased;
  for (const char* special : {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}) {
    auto it = vocab.find(special);
    if (it != vocab.end()) o.added.push_back({special, it->second, true, false, false});
  }
  auto cls = vocab.find("[CLS]"), sep = vocab.find("[SEP]");
  if (cls != vocab.end() && sep != vocab.end()) {
    o.specials.prefix.push_back(cls->second);
    o.specials.suffix.push_back(sep->second);
  }
  return std::make_shared<WordPieceTokenizer>(std::move(vocab), std::move(o));
}

}  // namespace headmap
