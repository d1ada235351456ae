// The restricted unpickler on hand-written opcode sequences: what it must accept from torch.save
// and what it must refuse (with a message), including shapes only a crafted file has.
#include "core/io/pickle.h"

#include <gtest/gtest.h>

#include <string>

#include "core/common/error.h"

namespace headmap {
namespace {

using namespace std::string_literals;  // "..."s keeps embedded NUL bytes

std::string str(const std::string& s) {  // BINUNICODE
  std::string out = "X";
  uint32_t n = static_cast<uint32_t>(s.size());
  for (int i = 0; i < 4; ++i) out += static_cast<char>((n >> (8 * i)) & 0xff);
  return out + s;
}

PickleTree parse(const std::string& bytes) {
  return unpickleTorch(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "test.pkl");
}

std::string errorOf(const std::string& bytes) {
  try {
    PickleTree tree = parse(bytes);
    stateDictTensors(tree, "test.pkl");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// A float tensor t of `size` over storage '0' of `numel` elements: what torch.save writes.
std::string tensorPickle(const std::string& sizeTuple, const std::string& strideTuple, int numel) {
  return "ctorch._utils\n_rebuild_tensor_v2\n((" + str("storage") + "ctorch\nFloatStorage\n" +
         str("0") + str("cpu") + "K" + static_cast<char>(numel) + "tQK\x00"s + sizeTuple +
         strideTuple + "\x89"s + "ccollections\nOrderedDict\n)RtR";
}

TEST(Pickle, PlainValues) {
  // {'a': [1, -2, 300, 70000, 2**40, -1 (LONG1), 1.5, True, None], 'b': ('x',)}
  std::string p = "\x80\x02}q\x00("s + str("a") + "](K\x01J\xfe\xff\xff\xffM\x2c\x01"s +
                  "J\x70\x11\x01\x00\x8a\x06\x00\x00\x00\x00\x00\x01\x8a\x01\xff"s +
                  "G\x3f\xf8\x00\x00\x00\x00\x00\x00\x88Ne"s + str("b") + str("x") + "\x85u."s;
  PickleTree tree = parse(p);
  const PickleNode& root = tree.at(tree.root);
  ASSERT_EQ(root.kind, PickleKind::Dict);
  ASSERT_EQ(root.items.size(), 4u);
  const PickleNode& list = tree.at(root.items[1]);
  ASSERT_EQ(list.kind, PickleKind::List);
  ASSERT_EQ(list.items.size(), 9u);
  EXPECT_EQ(tree.at(list.items[0]).intValue, 1);
  EXPECT_EQ(tree.at(list.items[1]).intValue, -2);
  EXPECT_EQ(tree.at(list.items[2]).intValue, 300);
  EXPECT_EQ(tree.at(list.items[3]).intValue, 70000);
  EXPECT_EQ(tree.at(list.items[4]).intValue, int64_t{1} << 40);
  EXPECT_EQ(tree.at(list.items[5]).intValue, -1);
  EXPECT_EQ(tree.at(list.items[6]).floatValue, 1.5);
  EXPECT_EQ(tree.at(list.items[7]).kind, PickleKind::Bool);
  EXPECT_EQ(tree.at(list.items[8]).kind, PickleKind::None);
  EXPECT_EQ(tree.at(tree.at(root.items[3]).items[0]).text, "x");
}

TEST(Pickle, TensorReference) {
  std::string p =
      "\x80\x02}"s + str("w") + tensorPickle("K\x02K\x03\x86"s, "K\x01K\x02\x86"s, 6) + "s.";
  auto tensors = stateDictTensors(parse(p), "test.pkl");
  ASSERT_EQ(tensors.size(), 1u);
  EXPECT_EQ(tensors[0].name, "w");
  EXPECT_EQ(tensors[0].ref.storageKey, "0");
  EXPECT_EQ(tensors[0].ref.storageNumel, 6);
  EXPECT_EQ(tensors[0].ref.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(tensors[0].ref.stride, (std::vector<int64_t>{1, 2}));
}

TEST(Pickle, Protocol4FramingAndStackGlobal) {
  std::string p = "\x80\x04\x95\x00\x00\x00\x00\x00\x00\x00\x00"s + "\x8c\x0b"s + "collections" +
                  "\x94\x8c\x0bOrderedDict\x94\x93)R\x94."s;
  PickleTree tree = parse(p);
  EXPECT_EQ(tree.at(tree.root).kind, PickleKind::Dict);
  EXPECT_TRUE(tree.at(tree.root).ordered);
}

TEST(Pickle, RefusesGlobalsByName) {
  EXPECT_NE(errorOf("\x80\x02"s
                    "cos\nsystem\n" +
                    str("ls") + "\x85R."s)
                .find("'os.system'"),
            std::string::npos);
  // STACK_GLOBAL builds the name from strings: refused the same way.
  EXPECT_NE(errorOf("\x80\x04\x8c\x08"s
                    "builtins\x8c\x04"s
                    "exec\x93."s)
                .find("'builtins.exec'"),
            std::string::npos);
  EXPECT_NE(errorOf("\x80\x02"s
                    "c__torch__.Net\nNet\n.")
                .find("TorchScript"),
            std::string::npos);
}

TEST(Pickle, RefusesCallingAllowedGlobalsWrongly) {
  // A storage type may only appear inside a persistent id, never be called.
  EXPECT_NE(errorOf("\x80\x02"s
                    "ctorch\nFloatStorage\n)R.")
                .find("refused call"),
            std::string::npos);
  EXPECT_NE(errorOf("\x80\x02"s
                    "ccollections\nOrderedDict\n(K\x01tR."s)
                .find("with arguments"),
            std::string::npos);
  EXPECT_NE(errorOf("\x80\x02"s
                    "ctorch._utils\n_rebuild_tensor_v2\n)R.")
                .find("0 arguments"),
            std::string::npos);
  // BUILD may only drop an OrderedDict's attributes.
  EXPECT_NE(errorOf("\x80\x02]}b."s).find("BUILD on something other"), std::string::npos);
}

TEST(Pickle, RefusesMalformedStreams) {
  EXPECT_NE(errorOf("\x80\x02}"s).find("without STOP"), std::string::npos);
  EXPECT_NE(errorOf("\x80\x02X\xff\xff\xff\x7f"s
                    "abc.")
                .find("needs 2147483647 bytes"),
            std::string::npos);
  EXPECT_NE(errorOf("\x80\x02h\x05."s).find("memo key 5"), std::string::npos);
  EXPECT_NE(errorOf("\x80\x02s."s).find("SETITEM on an empty stack"), std::string::npos);
  EXPECT_NE(errorOf("\x80\x02]K\x01K\x02s."s).find("not a dict"), std::string::npos);
  EXPECT_NE(errorOf("\x80\x02t."s).find("without a MARK"), std::string::npos);
  EXPECT_NE(errorOf("\x80\x02\x8a\x09"s
                    "123456789.")
                .find("9 bytes"),
            std::string::npos);
  EXPECT_NE(errorOf("\x80\x02\x81."s).find("NEWOBJ"), std::string::npos);
  EXPECT_NE(errorOf("\x80\x02"s
                    "cos\nsys")
                .find("no end of line"),
            std::string::npos);
  // Items under a MARK are out of reach of opcodes after it.
  EXPECT_NE(errorOf("\x80\x02]K\x01(a."s).find("APPEND on an empty stack"), std::string::npos);
}

TEST(Pickle, SelfReferencingListIsBounded) {
  // l = []; l.append(l): the walk must stop at the nesting limit, not recurse forever.
  std::string p =
      "\x80\x02]q\x00h\x00"s
      "a.";
  PickleTree tree = parse(p);
  EXPECT_NE(errorOf(p).find("nested deeper than 64"), std::string::npos);
  EXPECT_EQ(tree.at(tree.root).items.size(), 1u);
}

TEST(Pickle, SharedContainersCannotExplodeTheWalk) {
  // 40 levels of a pair holding the previous level twice: 2^40 paths, a few hundred bytes.
  std::string p = "\x80\x02]"s;
  for (int i = 0; i < 40; ++i) p += "q\x00h\x00h\x00\x86"s;
  p += ".";
  EXPECT_NE(errorOf(p).find("values visited"), std::string::npos) << errorOf(p);
}

TEST(Pickle, DuplicateNamesAreRefused) {
  std::string t = tensorPickle("K\x01\x85"s, "K\x01\x85"s, 1);
  // {'a.b': t, 'a': {'b': t}}
  std::string p = "\x80\x02}("s + str("a.b") + t + str("a") + "}" + str("b") + t + "su.";
  EXPECT_NE(errorOf(p).find("'a.b' appears twice"), std::string::npos) << errorOf(p);
}

TEST(Pickle, BadStorageKeyIsRefused) {
  std::string p = "\x80\x02(("s + str("storage") + "ctorch\nFloatStorage\n" + str("../x") +
                  str("cpu") + "K\x01tQ."s;
  EXPECT_NE(errorOf(p).find("storage key with character 0x2f"), std::string::npos) << errorOf(p);
}

}  // namespace
}  // namespace headmap
