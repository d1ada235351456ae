#include "core/tokenize/unicode_text.h"

#include <algorithm>
#include <iterator>

namespace headmap::unicode {
namespace {

struct CodeRange {
  char32_t lo, hi;
};
struct CodeMap {
  char32_t from, to;
};
struct Decomposition {
  char32_t cp;
  char32_t parts[4];  // zero-padded
};

#include "core/tokenize/unicode_tables.inc"

template <size_t N>
bool inRanges(const CodeRange (&table)[N], char32_t cp) {
  auto it = std::upper_bound(std::begin(table), std::end(table), cp,
                             [](char32_t c, const CodeRange& r) { return c < r.lo; });
  return it != std::begin(table) && cp <= std::prev(it)->hi;
}

// Hangul syllables decompose algorithmically (Unicode ch. 3.12).
constexpr char32_t kSBase = 0xAC00, kLBase = 0x1100, kVBase = 0x1161, kTBase = 0x11A7;
constexpr int kVCount = 21, kTCount = 28, kSCount = 19 * 21 * 28;

}  // namespace

std::vector<CodePoint> decodeUtf8(const std::string& text) {
  std::vector<CodePoint> out;
  out.reserve(text.size());
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  size_t n = text.size(), i = 0;
  while (i < n) {
    unsigned char b = s[i];
    size_t len = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
    char32_t cp = 0xFFFD;
    bool ok = len > 0 && i + len <= n;
    if (ok) {
      cp = len == 1 ? b : len == 2 ? (b & 0x1F) : len == 3 ? (b & 0x0F) : (b & 0x07);
      for (size_t k = 1; k < len && ok; ++k) {
        ok = (s[i + k] & 0xC0) == 0x80;
        cp = (cp << 6) | (s[i + k] & 0x3F);
      }
      // Reject overlong forms, surrogates and values beyond U+10FFFF.
      static constexpr char32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
      ok = ok && cp >= kMin[len] && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF);
    }
    if (!ok) {
      out.push_back({0xFFFD, i, 1});
      ++i;
      continue;
    }
    out.push_back({cp, i, len});
    i += len;
  }
  return out;
}

void appendUtf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

std::string encodeUtf8(char32_t cp) {
  std::string s;
  appendUtf8(s, cp);
  return s;
}

bool isValidUtf8(const std::string& bytes) {
  // A decoded U+FFFD spanning one byte marks an invalid byte (a real U+FFFD spans three).
  for (const CodePoint& c : decodeUtf8(bytes)) {
    if (c.cp == 0xFFFD && c.length == 1) return false;
  }
  return true;
}

bool isLetter(char32_t cp) {
  if (cp < 0x80) return (cp | 0x20) >= 'a' && (cp | 0x20) <= 'z';
  return inRanges(kLetterRanges, cp);
}
bool isNumber(char32_t cp) {
  if (cp < 0x80) return cp >= '0' && cp <= '9';
  return inRanges(kNumberRanges, cp);
}
bool isWhitespace(char32_t cp) {
  return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F ||
         cp == 0x205F || cp == 0x3000;
}
bool isPunctuation(char32_t cp) { return inRanges(kPunctuationRanges, cp); }
bool isNonspacingMark(char32_t cp) { return inRanges(kNonspacingMarkRanges, cp); }
bool isOther(char32_t cp) { return inRanges(kOtherRanges, cp); }

bool isCjkIdeograph(char32_t cp) {
  return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
         (cp >= 0x20000 && cp <= 0x2A6DF) || (cp >= 0x2A700 && cp <= 0x2B73F) ||
         (cp >= 0x2B740 && cp <= 0x2B81F) || (cp >= 0x2B820 && cp <= 0x2CEAF) ||
         (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
}

void appendLowercase(std::u32string& out, char32_t cp) {
  if (cp < 0x80) {
    out += (cp >= 'A' && cp <= 'Z') ? cp + 32 : cp;
    return;
  }
  if (cp == 0x130) {  // the only code point whose full lowercase is two code points
    out += U'i';
    out += char32_t(0x307);
    return;
  }
  auto it = std::lower_bound(std::begin(kLowercase), std::end(kLowercase), cp,
                             [](const CodeMap& m, char32_t c) { return m.from < c; });
  out += (it != std::end(kLowercase) && it->from == cp) ? it->to : cp;
}

void appendNfd(std::u32string& out, char32_t cp) {
  if (cp < 0xC0) {
    out += cp;
    return;
  }
  if (cp >= kSBase && cp < kSBase + kSCount) {
    int s = static_cast<int>(cp - kSBase);
    out += kLBase + s / (kVCount * kTCount);
    out += kVBase + (s % (kVCount * kTCount)) / kTCount;
    if (s % kTCount != 0) out += kTBase + s % kTCount;
    return;
  }
  auto it = std::lower_bound(std::begin(kDecompositions), std::end(kDecompositions), cp,
                             [](const Decomposition& d, char32_t c) { return d.cp < c; });
  if (it == std::end(kDecompositions) || it->cp != cp) {
    out += cp;
    return;
  }
  for (char32_t p : it->parts) {
    if (p != 0) out += p;
  }
}

}  // namespace headmap::unicode
