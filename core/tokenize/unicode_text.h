#pragma once
// UTF-8 decoding and the Unicode character properties the tokenizers need (general categories
// from generated tables, see make_unicode_tables.py). Invalid UTF-8 never throws: each bad byte
// becomes U+FFFD spanning that one byte, so byte-level tokenizers still see the original bytes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace headmap::unicode {

struct CodePoint {
  char32_t cp = 0;
  size_t offset = 0;  // byte offset in the source string
  size_t length = 0;  // bytes it spans (1..4)
};

std::vector<CodePoint> decodeUtf8(const std::string& text);
void appendUtf8(std::string& out, char32_t cp);
std::string encodeUtf8(char32_t cp);
// True when `bytes` is complete, valid UTF-8.
bool isValidUtf8(const std::string& bytes);

bool isLetter(char32_t cp);          // \p{L}
bool isNumber(char32_t cp);          // \p{N}
bool isWhitespace(char32_t cp);      // White_Space property (\s in Oniguruma, Rust is_whitespace)
bool isPunctuation(char32_t cp);     // \p{P}
bool isNonspacingMark(char32_t cp);  // Mn
bool isOther(char32_t cp);           // C* (control, format, surrogate, private use, unassigned)
bool isCjkIdeograph(char32_t cp);    // the CJK blocks BERT splits into single characters
// Lowercase as Rust's char::to_lowercase: usually one code point, "i̇" for U+0130.
void appendLowercase(std::u32string& out, char32_t cp);
// Canonical decomposition (NFD) of one code point, Hangul syllables included.
void appendNfd(std::u32string& out, char32_t cp);

}  // namespace headmap::unicode
