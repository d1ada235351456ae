#include "core/tokenize/pre_tokenize.h"

#include "core/tokenize/unicode_text.h"

namespace headmap {
namespace {

enum class CharClass { Letter, Number, Space, Other };

CharClass classify(char32_t cp) {
  if (unicode::isWhitespace(cp)) return CharClass::Space;
  if (unicode::isLetter(cp)) return CharClass::Letter;
  if (unicode::isNumber(cp)) return CharClass::Number;
  return CharClass::Other;
}

struct Chars {
  std::vector<unicode::CodePoint> cps;
  std::vector<CharClass> cls;
  explicit Chars(const std::string& text) : cps(unicode::decodeUtf8(text)), cls(cps.size()) {
    for (size_t i = 0; i < cps.size(); ++i) cls[i] = classify(cps[i].cp);
  }
  size_t size() const { return cps.size(); }
  size_t runEnd(size_t i, CharClass c) const {
    while (i < size() && cls[i] == c) ++i;
    return i;
  }
  bool newline(size_t i) const { return cps[i].cp == '\r' || cps[i].cp == '\n'; }
};

char32_t asciiLower(char32_t c) { return (c >= 'A' && c <= 'Z') ? c + 32 : c; }

// Code points of a contraction 's 't 're 've 'm 'll 'd at i (0 when none).
size_t contractionAt(const Chars& t, size_t i, bool ignoreCase) {
  if (t.cps[i].cp != '\'' || i + 1 >= t.size()) return 0;
  auto at = [&](size_t k) { return ignoreCase ? asciiLower(t.cps[k].cp) : t.cps[k].cp; };
  char32_t a = at(i + 1);
  if (a == 's' || a == 't' || a == 'm' || a == 'd') return 2;
  if (i + 2 >= t.size()) return 0;
  char32_t b = at(i + 2);
  return ((a == 'r' || a == 'v') && b == 'e') || (a == 'l' && b == 'l') ? 3 : 0;
}

// \s+(?!\S) then \s+: a whitespace run leaves its last character to the word after it.
size_t whitespaceEnd(const Chars& t, size_t i) {
  size_t end = t.runEnd(i, CharClass::Space);
  return (end < t.size() && end - i >= 2) ? end - 1 : end;
}

ByteRanges toBytes(const Chars& t, const std::vector<size_t>& ends, size_t textSize) {
  ByteRanges out;
  size_t from = 0;
  for (size_t end : ends) {
    size_t to = end < t.size() ? t.cps[end].offset : textSize;
    out.emplace_back(from, to);
    from = to;
  }
  return out;
}

size_t gpt2Match(const Chars& t, size_t i) {
  if (size_t c = contractionAt(t, i, false)) return i + c;
  // " ?X+" for letters, numbers and others: an optional single space, then a run.
  size_t start =
      (t.cps[i].cp == ' ' && i + 1 < t.size() && t.cls[i + 1] != CharClass::Space) ? i + 1 : i;
  if (t.cls[start] != CharClass::Space) return t.runEnd(start, t.cls[start]);
  return whitespaceEnd(t, i);
}

size_t llama3Match(const Chars& t, size_t i, size_t maxDigits) {
  const size_t n = t.size();
  if (size_t c = contractionAt(t, i, true)) return i + c;
  // [^\r\n\p{L}\p{N}]?\p{L}+
  if (t.cls[i] == CharClass::Letter) return t.runEnd(i, CharClass::Letter);
  bool prefixable = t.cls[i] != CharClass::Number && !t.newline(i);
  if (prefixable && i + 1 < n && t.cls[i + 1] == CharClass::Letter) {
    return t.runEnd(i + 1, CharClass::Letter);
  }
  // \p{N}{1,maxDigits}
  if (t.cls[i] == CharClass::Number) {
    size_t end = i;
    while (end < n && end - i < maxDigits && t.cls[end] == CharClass::Number) ++end;
    return end;
  }
  // " ?[^\s\p{L}\p{N}]+[\r\n]*"
  size_t start = (t.cps[i].cp == ' ' && i + 1 < n && t.cls[i + 1] == CharClass::Other) ? i + 1 : i;
  if (t.cls[start] == CharClass::Other) {
    size_t end = t.runEnd(start, CharClass::Other);
    while (end < n && t.newline(end)) ++end;
    return end;
  }
  // \s*[\r\n]+ : whitespace up to and including the run's last newline.
  size_t runEnd = t.runEnd(i, CharClass::Space);
  for (size_t k = runEnd; k > i; --k) {
    if (t.newline(k - 1)) return k;
  }
  return whitespaceEnd(t, i);
}

}  // namespace

ByteRanges splitGpt2(const std::string& text) {
  Chars t(text);
  std::vector<size_t> ends;
  for (size_t i = 0; i < t.size(); i = ends.back()) ends.push_back(gpt2Match(t, i));
  return toBytes(t, ends, text.size());
}

ByteRanges splitLlama3(const std::string& text, int maxDigits) {
  Chars t(text);
  std::vector<size_t> ends;
  size_t digits = maxDigits < 1 ? 1 : static_cast<size_t>(maxDigits);
  for (size_t i = 0; i < t.size(); i = ends.back()) ends.push_back(llama3Match(t, i, digits));
  return toBytes(t, ends, text.size());
}

int recognizeSplitPattern(const std::string& regex) {
  static const std::string kGpt2 =
      R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
  static const std::string kHead = R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|)";
  static const std::string kTail = R"(| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
  if (regex == kGpt2) return 0;
  if (regex == kHead + R"(\p{N}{1,3})" + kTail) return 3;
  if (regex == kHead + R"(\p{N})" + kTail) return 1;
  return -1;
}

}  // namespace headmap
