#include "core/tokenize/text_normalize.h"

#include "core/tokenize/unicode_text.h"

namespace headmap::tokenize {

std::u32string toCodePoints(const std::string& utf8) {
  std::u32string out;
  for (const unicode::CodePoint& c : unicode::decodeUtf8(utf8)) out += c.cp;
  return out;
}

std::string toUtf8(const std::u32string& text) {
  std::string out;
  out.reserve(text.size());
  for (char32_t cp : text) unicode::appendUtf8(out, cp);
  return out;
}

std::u32string nfd(const std::u32string& text) {
  std::u32string out;
  out.reserve(text.size());
  for (char32_t cp : text) unicode::appendNfd(out, cp);
  return out;
}

std::u32string stripAccents(const std::u32string& text) {
  std::u32string out;
  out.reserve(text.size());
  for (char32_t cp : nfd(text)) {
    if (!unicode::isNonspacingMark(cp)) out += cp;
  }
  return out;
}

std::u32string lowercase(const std::u32string& text) {
  std::u32string out;
  out.reserve(text.size());
  for (char32_t cp : text) unicode::appendLowercase(out, cp);
  return out;
}

std::u32string bertNormalize(const std::u32string& text, const BertNormalizerOptions& options) {
  std::u32string out;
  out.reserve(text.size());
  for (char32_t cp : text) {
    if (options.cleanText) {
      // BERT drops NUL, U+FFFD and control characters (tab, newline, return are whitespace).
      bool whitespace = cp == '\t' || cp == '\n' || cp == '\r' || unicode::isWhitespace(cp);
      if (cp == 0 || cp == 0xFFFD || (!whitespace && unicode::isOther(cp))) continue;
      if (whitespace) cp = ' ';
    }
    if (options.handleChineseChars && unicode::isCjkIdeograph(cp)) {
      out += ' ';
      out += cp;
      out += ' ';
    } else {
      out += cp;
    }
  }
  if (options.stripAccents) out = stripAccents(out);
  if (options.lowercase) out = lowercase(out);
  return out;
}

std::string applyNormalizer(const std::string& text, const std::vector<NormalizerStep>& steps) {
  std::string s = text;
  for (const NormalizerStep& step : steps) {
    switch (step.kind) {
      case NormalizerStep::Kind::Prepend:
        if (!s.empty()) s = step.a + s;
        break;
      case NormalizerStep::Kind::Replace: {
        if (step.a.empty()) break;
        std::string r;
        for (size_t i = 0; i < s.size();) {
          if (s.compare(i, step.a.size(), step.a) == 0) {
            r += step.b;
            i += step.a.size();
          } else {
            r += s[i++];
          }
        }
        s = std::move(r);
        break;
      }
      case NormalizerStep::Kind::Lowercase:
        s = toUtf8(lowercase(toCodePoints(s)));
        break;
      case NormalizerStep::Kind::Nfd:
        s = toUtf8(nfd(toCodePoints(s)));
        break;
      case NormalizerStep::Kind::StripAccents:
        s = toUtf8(stripAccents(toCodePoints(s)));
        break;
      case NormalizerStep::Kind::Identity:
        break;
    }
  }
  return s;
}

}  // namespace headmap::tokenize
