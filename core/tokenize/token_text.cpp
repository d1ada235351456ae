#include "core/tokenize/token_text.h"

#include <array>
#include <cstdio>
#include <fstream>

#include "core/common/error.h"
#include "core/common/limits.h"
#include "core/tokenize/unicode_text.h"

namespace headmap::tokenize {
namespace {

// GPT-2 keeps the printable Latin-1 bytes as themselves and moves the others to U+0100 upwards.
struct ByteAlphabet {
  std::array<char32_t, 256> toUnicode{};
  std::unordered_map<char32_t, int> toByte;
  ByteAlphabet() {
    int shifted = 0;
    for (int b = 0; b < 256; ++b) {
      bool kept = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      toUnicode[b] = kept ? char32_t(b) : char32_t(256 + shifted++);
      toByte[toUnicode[b]] = b;
    }
  }
};

const ByteAlphabet& alphabet() {
  static const ByteAlphabet table;
  return table;
}

std::string hexByte(unsigned char b) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "<0x%02X>", b);
  return buf;
}

// "<0xNN>" -> NN, or -1.
int parseByteToken(const std::string& piece) {
  if (piece.size() != 6 || piece.compare(0, 3, "<0x") != 0 || piece[5] != '>') return -1;
  int value = 0;
  for (int i = 3; i < 5; ++i) {
    char c = piece[i];
    int digit = (c >= '0' && c <= '9')   ? c - '0'
                : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                : (c >= 'a' && c <= 'f') ? c - 'a' + 10
                                         : -1;
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

bool isAsciiSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

}  // namespace

std::string readFileLimited(const std::string& path, size_t maxBytes) {
  requireRegularFile(path, "a tokenizer file");
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw Error(path + ": cannot open the tokenizer file");
  std::streamoff size = in.tellg();
  if (size < 0) throw Error(path + ": cannot read the tokenizer file's size");
  if (static_cast<unsigned long long>(size) > maxBytes) {
    throw Error(path + ": tokenizer file is " + std::to_string(size) + " bytes, more than the " +
                std::to_string(maxBytes) + " a tokenizer may have");
  }
  std::string data(static_cast<size_t>(size), '\0');
  in.seekg(0);
  if (size > 0 && !in.read(data.data(), size)) {
    throw Error(path + ": could read only part of the tokenizer file");
  }
  return data;
}

char32_t byteToUnicode(unsigned char byte) { return alphabet().toUnicode[byte]; }

int unicodeToByte(char32_t cp) {
  auto it = alphabet().toByte.find(cp);
  return it == alphabet().toByte.end() ? -1 : it->second;
}

std::string displayBytes(const std::string& raw) {
  std::string out;
  for (const unicode::CodePoint& c : unicode::decodeUtf8(raw)) {
    if (c.cp == 0xFFFD && c.length == 1) {
      out += hexByte(static_cast<unsigned char>(raw[c.offset]));
    } else if (c.cp == '\n') {
      out += "\u21B5";
    } else if (c.cp == '\t') {
      out += "\u21E5";
    } else if (c.cp == '\r') {
      out += "\u240D";
    } else if (c.cp < 0x20 || c.cp == 0x7F) {
      out += hexByte(static_cast<unsigned char>(c.cp));
    } else {
      out.append(raw, c.offset, c.length);
    }
  }
  return out;
}

std::string displayByteLevel(const std::string& piece) {
  std::string bytes;
  for (const unicode::CodePoint& c : unicode::decodeUtf8(piece)) {
    int b = unicodeToByte(c.cp);
    if (b >= 0) {
      bytes += static_cast<char>(b);
    } else {
      bytes.append(piece, c.offset, c.length);
    }
  }
  return displayBytes(bytes);
}

std::string displayMetaspace(const std::string& piece, const std::string& replacement) {
  int byte = parseByteToken(piece);
  if (byte >= 0) {
    return byte < 0x80 ? displayBytes(std::string(1, static_cast<char>(byte))) : piece;
  }
  std::string text;
  for (size_t i = 0; i < piece.size();) {
    if (!replacement.empty() && piece.compare(i, replacement.size(), replacement) == 0) {
      text += ' ';
      i += replacement.size();
    } else {
      text += piece[i++];
    }
  }
  return displayBytes(text);
}

std::vector<Segment> splitOnAddedTokens(const std::string& text,
                                        const std::vector<AddedToken>& added) {
  std::vector<Segment> out;
  if (added.empty()) {
    if (!text.empty()) out.push_back({text, -1});
    return out;
  }
  // Candidates by first byte, so a long text costs a lookup per byte, not one per token.
  std::array<std::vector<int>, 256> byFirst;
  for (size_t i = 0; i < added.size(); ++i) {
    if (!added[i].content.empty()) {
      byFirst[static_cast<unsigned char>(added[i].content[0])].push_back(static_cast<int>(i));
    }
  }
  std::string pending;
  size_t pos = 0;
  while (pos < text.size()) {
    int best = -1;
    for (int index : byFirst[static_cast<unsigned char>(text[pos])]) {
      const std::string& c = added[index].content;
      if (text.compare(pos, c.size(), c) == 0 &&
          (best < 0 || c.size() > added[best].content.size())) {
        best = index;
      }
    }
    if (best < 0) {
      pending += text[pos++];
      continue;
    }
    if (added[best].lstrip) {
      while (!pending.empty() && isAsciiSpace(pending.back())) pending.pop_back();
    }
    if (!pending.empty()) out.push_back({std::move(pending), -1});
    pending.clear();
    out.push_back({added[best].content, best});
    pos += added[best].content.size();
    if (added[best].rstrip) {
      while (pos < text.size() && isAsciiSpace(text[pos])) ++pos;
    }
  }
  if (!pending.empty()) out.push_back({std::move(pending), -1});
  return out;
}

PieceTable::PieceTable(const std::unordered_map<std::string, int>& vocab, DisplayStyle style,
                       std::string source)
    : m_style(style), m_source(std::move(source)) {
  int maxId = -1;
  for (const auto& [piece, id] : vocab) maxId = std::max(maxId, id);
  if (maxId >= static_cast<int>(vocab.size()) + kMaxIdGap) {
    throw Error(m_source + ": vocabulary id " + std::to_string(maxId) + " with only " +
                std::to_string(vocab.size()) + " pieces; ids must be dense (0.." +
                std::to_string(vocab.size() + kMaxIdGap - 1) + ")");
  }
  m_pieces.resize(maxId + 1);
  m_special.assign(maxId + 1, 0);
  m_present.assign(maxId + 1, 0);
  for (const auto& [piece, id] : vocab) {
    // Several pieces may share an id in a hostile file: keep one deterministically.
    if (!m_present[id] || piece < m_pieces[id]) m_pieces[id] = piece;
    m_present[id] = 1;
  }
}

void PieceTable::addSpecial(const std::string& piece, int id, bool special) {
  if (id >= size() + kMaxIdGap) {
    throw Error(m_source + ": added token '" + piece + "' has id " + std::to_string(id) +
                ", far beyond the vocabulary's " + std::to_string(size()) + " ids");
  }
  if (id >= size()) {
    m_pieces.resize(id + 1);
    m_special.resize(id + 1, 0);
    m_present.resize(id + 1, 0);
  }
  m_pieces[id] = piece;
  m_special[id] = special;
  m_present[id] = 1;
}

Token PieceTable::token(int id) const {
  if (id < 0 || id >= size()) {
    throw Error(m_source + ": token id " + std::to_string(id) + " is outside the vocabulary (0.." +
                std::to_string(size() - 1) + ")");
  }
  Token t;
  t.id = id;
  t.piece = m_pieces[id];
  t.special = m_special[id];
  if (!m_present[id]) {
    t.display = "<unused " + std::to_string(id) + ">";
  } else if (t.special || m_style == DisplayStyle::Plain) {
    t.display = displayBytes(t.piece);
  } else if (m_style == DisplayStyle::ByteLevel) {
    t.display = displayByteLevel(t.piece);
  } else {
    t.display = displayMetaspace(t.piece);
  }
  return t;
}

std::vector<Token> PieceTable::tokens(const std::vector<int>& ids) const {
  std::vector<Token> out;
  out.reserve(ids.size());
  for (int id : ids) out.push_back(token(id));
  return out;
}

}  // namespace headmap::tokenize
