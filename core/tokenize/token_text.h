#pragma once
// Pieces shared by the tokenizers: bounded file reading, GPT-2's byte<->unicode alphabet,
// readable display text, the id -> piece table behind fromIds, added (special) tokens found in
// the raw text, and the special tokens a post-processor puts around the sequence.
#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/tokenize/tokenizer.h"

namespace headmap::tokenize {

constexpr size_t kMaxTokenizerFileBytes = size_t(512) << 20;  // far above any real tokenizer
constexpr int kMaxVocabSize = 4 << 20;                        // ids must stay below this
// Ids are dense in real vocabularies; a sparse id (e.g. one piece with id 4,000,000) would make
// the id -> piece table allocate far more than the file is worth.
constexpr int kMaxIdGap = 1 << 16;
constexpr size_t kMaxPieceBytes = 4096;  // one vocabulary entry

// The whole file; throws headmap::Error naming the file when unreadable or above maxBytes.
std::string readFileLimited(const std::string& path, size_t maxBytes = kMaxTokenizerFileBytes);

// GPT-2's reversible map of the 256 byte values to printable code points ("Ġ" = space).
char32_t byteToUnicode(unsigned char byte);
int unicodeToByte(char32_t cp);  // -1 when cp is not one of the 256

// Raw bytes made readable: newline "↵", tab "⇥", carriage return "␍", other control bytes and
// invalid UTF-8 as "<0xNN>"; everything else (spaces included) unchanged.
std::string displayBytes(const std::string& raw);
std::string displayByteLevel(const std::string& piece);  // "Ġworld" -> " world"
// "▁time" -> " time"; "<0x41>" -> "A" (printable ASCII) or "↵"; other byte tokens unchanged.
std::string displayMetaspace(const std::string& piece, const std::string& replacement = "\u2581");

enum class DisplayStyle { Plain, ByteLevel, Metaspace };

struct AddedToken {
  std::string content;
  int id = 0;
  bool special = true;
  bool lstrip = false;  // swallows whitespace on its left
  bool rstrip = false;  // swallows whitespace on its right
};

// A run of the text, either plain text to tokenize or one added token found in it.
struct Segment {
  std::string text;
  int addedIndex = -1;  // index into the added tokens, -1 for plain text
};
// Splits on the added tokens, leftmost-longest match first (as Hugging Face does).
std::vector<Segment> splitOnAddedTokens(const std::string& text,
                                        const std::vector<AddedToken>& added);

// id -> piece for every id of the vocabulary, with the display style of the tokenizer.
class PieceTable {
 public:
  PieceTable() = default;
  PieceTable(const std::unordered_map<std::string, int>& vocab, DisplayStyle style,
             std::string source);
  void addSpecial(const std::string& piece, int id, bool special);  // added tokens
  int size() const { return static_cast<int>(m_pieces.size()); }
  Token token(int id) const;  // throws headmap::Error when id is outside the vocabulary
  std::vector<Token> tokens(const std::vector<int>& ids) const;
  const std::string& source() const { return m_source; }

 private:
  std::vector<std::string> m_pieces;
  std::vector<char> m_special;
  std::vector<char> m_present;
  DisplayStyle m_style = DisplayStyle::Plain;
  std::string m_source;
};

// Special token ids a post-processor adds before and after the sequence (BOS, [CLS] ... [SEP]).
struct SpecialTemplate {
  std::vector<int> prefix;
  std::vector<int> suffix;
};

}  // namespace headmap::tokenize
