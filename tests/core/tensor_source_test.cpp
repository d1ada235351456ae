#include "core/io/tensor_source.h"

#include <gtest/gtest.h>

#include "core/common/error.h"
#include "core/io/safetensors.h"
#include "core/tokenize/whitespace_tokenizer.h"
#include "tests/safetensors_bytes.h"
#include "tests/test_support.h"

namespace headmap {
namespace {

std::string errorOf(const std::string& path) {
  try {
    openTensorFile(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(OpenTensorFile, SafetensorsByContentWhateverTheName) {
  std::string path = test::tempPath("weights.bin");
  test::writeBytes(path, test::safetensorsBytes({{"w", "F32", {2}, test::f32Bytes({1, 2})}}));
  auto source = openTensorFile(path);
  EXPECT_EQ(source->formatName(), "safetensors");
  EXPECT_EQ(source->path(), path);
  ASSERT_NE(source->find("w"), nullptr);
  EXPECT_EQ(source->find("w")->shape, (std::vector<int64_t>{2}));
  EXPECT_EQ(source->find("v"), nullptr);
}

TEST(OpenTensorFile, UnknownContentNamesTheAcceptedFormats) {
  std::string path = test::tempPath("notes.txt");
  test::writeBytes(path, "hello, these are not weights");
  std::string m = errorOf(path);
  EXPECT_NE(m.find(path), std::string::npos) << m;
  EXPECT_NE(m.find("not a recognized tensor file"), std::string::npos) << m;
  EXPECT_NE(m.find("safetensors"), std::string::npos) << m;
  EXPECT_NE(m.find("torch.save"), std::string::npos) << m;
}

TEST(OpenTensorFile, TruncatedSafetensorsGetsThePreciseMessage) {
  std::string path = test::tempPath("model.safetensors");
  test::writeBytes(path, test::u64Le(5000) + "{\"w\":");
  std::string m = errorOf(path);
  EXPECT_NE(m.find("header length is 5000 bytes"), std::string::npos) << m;
  test::writeBytes(path, "abc");
  m = errorOf(path);
  EXPECT_NE(m.find("shorter than the 8-byte"), std::string::npos) << m;
}

TEST(OpenTensorFile, MissingFileAndDirectory) {
  EXPECT_NE(errorOf("/nonexistent/a.safetensors").find("/nonexistent/a.safetensors"),
            std::string::npos);
  std::string dir = test::tempPath("");
  EXPECT_NE(errorOf(dir).find("is a directory"), std::string::npos) << errorOf(dir);
}

TEST(OpenTensorFile, EmptyFile) {
  std::string path = test::tempPath("empty.bin");
  test::writeBytes(path, "");
  EXPECT_NE(errorOf(path).find("not a recognized tensor file"), std::string::npos) << errorOf(path);
}

TEST(WhitespaceTokenizer, SplitsOnAnyWhitespace) {
  WhitespaceTokenizer tok;
  auto tokens = tok.encode("  the\tcat\n sat  ");
  ASSERT_EQ(tokens.size(), 3u);
  EXPECT_EQ(tokens[0].piece, "the");
  EXPECT_EQ(tokens[1].piece, "cat");
  EXPECT_EQ(tokens[2].display, "sat");
  EXPECT_EQ(tokens[2].id, 2);
  EXPECT_FALSE(tokens[0].special);
  EXPECT_TRUE(tok.encode(" \n\t ").empty());
  EXPECT_EQ(tok.encode("naïve café").at(1).piece, "café");  // UTF-8 bytes kept whole
  EXPECT_EQ(tok.kind(), "whitespace");
}

TEST(WhitespaceTokenizer, IdsAreLabelledByPosition) {
  WhitespaceTokenizer tok;
  auto tokens = tok.fromIds({7, 3, 7});
  ASSERT_EQ(tokens.size(), 3u);
  EXPECT_EQ(tokens[0].id, 7);
  EXPECT_EQ(tokens[0].piece, "#0");
  EXPECT_EQ(tokens[2].display, "#2");
}

}  // namespace
}  // namespace headmap
