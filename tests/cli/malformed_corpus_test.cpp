// Every file of tests/fixtures/malformed (scripts/make_malformed_corpus.py) must be refused with
// its message: by the loader in-process (a headmap::Error, never a crash) and by headmap-cli
// (non-zero exit, message on stderr, no signal, no sanitizer report).
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "core/common/error.h"
#include "core/io/npy.h"
#include "core/model/load.h"
#include "core/tokenize/load_tokenizer.h"
#include "tests/test_support.h"

namespace fs = std::filesystem;

namespace headmap {
namespace {

struct CorpusEntry {
  std::string file;    // relative to tests/fixtures/malformed
  std::string loader;  // model, npy, tokenizer, tokenizer_folder, none
  std::vector<std::string> cli;
  std::string expect;
  std::string expectCli;  // when the CLI path words it differently (e.g. a vocab-size hint)
  std::string needs;      // llama2c, hf, torch: loaders that may not have landed yet
};

std::vector<CorpusEntry> loadManifest() {
  std::ifstream in(test::fixture("malformed/manifest.json"));
  const nlohmann::json manifest = nlohmann::json::parse(in);
  std::vector<CorpusEntry> entries;
  for (const auto& e : manifest.at("entries")) {
    CorpusEntry entry{e.at("file"),
                      e.at("loader"),
                      e.at("cli"),
                      e.at("expect"),
                      e.value("expect_cli", std::string(e.at("expect"))),
                      e.value("needs", "")};
    entries.push_back(entry);
  }
  return entries;
}

std::string testName(const ::testing::TestParamInfo<CorpusEntry>& info) {
  std::string name;
  for (char c : info.param.file) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return name;
}

// A loader that has not landed on this branch yet: its refusals cannot be checked.
std::string missingLoader(const std::string& needs) {
  if (needs == "llama2c") {
    try {
      LoadOptions options;
      options.tokenizerPath = test::fixture("malformed/hosts/tiny_tokenizer.bin");
      loadModel(test::fixture("malformed/hosts/tiny_llama2c.bin"), options);
    } catch (const Error& e) {
      return std::string("the llama2.c loader cannot load the good host checkpoint: ") + e.what();
    }
  }
  if (needs == "hf" && !fs::exists(test::fixture("models"))) return "no Hugging Face loader";
  if (needs == "torch" && !fs::exists(test::fixture("torch"))) return "no torch.save reader";
  return "";
}

void loadInProcess(const CorpusEntry& entry, const std::string& path) {
  if (entry.loader == "model") {
    loadModel(path);
  } else if (entry.loader == "npy") {
    readNpy(path);
  } else if (entry.loader == "tokenizer") {
    loadTokenizerFile(path);
  } else if (entry.loader == "tokenizer_folder") {
    loadTokenizerFile(path + "/vocab.json");
  }
}

class MalformedCorpus : public ::testing::TestWithParam<CorpusEntry> {};

TEST_P(MalformedCorpus, LoaderRefusesWithMessage) {
  const CorpusEntry& entry = GetParam();
  if (entry.loader == "none") GTEST_SKIP() << "checked through the CLI only";
  const std::string why = missingLoader(entry.needs);
  if (!why.empty()) GTEST_SKIP() << why;
  const std::string path = test::fixture("malformed/" + entry.file);
  try {
    loadInProcess(entry, path);
    ADD_FAILURE() << entry.file << " loaded without an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(entry.expect), std::string::npos)
        << "message: " << e.what() << "\nexpected to contain: " << entry.expect;
  }
}

TEST_P(MalformedCorpus, CliRefusesWithMessage) {
  const CorpusEntry& entry = GetParam();
  const std::string why = missingLoader(entry.needs);
  if (!why.empty()) GTEST_SKIP() << why;
  std::string command = test::shellQuote(test::cliPath());
  for (std::string arg : entry.cli) {
    auto replace = [&](const std::string& key, const std::string& value) {
      for (size_t p = arg.find(key); p != std::string::npos; p = arg.find(key, p + value.size())) {
        arg.replace(p, key.size(), value);
      }
    };
    replace("{file}", test::fixture("malformed/" + entry.file));
    replace("{fixtures}", test::fixture(""));
    replace("{out}", test::tempPath("out.npy"));
    command += " " + test::shellQuote(arg);
  }
  const test::CommandResult r = test::runCommand(command);
  EXPECT_EQ(r.signal, 0) << "killed by signal " << r.signal << "\n" << r.err;
  EXPECT_NE(r.exitCode, 0) << command;
  EXPECT_NE(r.err.find(entry.expectCli), std::string::npos)
      << "stderr: " << r.err << "\nexpected to contain: " << entry.expectCli;
  EXPECT_EQ(r.err.find("Sanitizer"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("runtime error"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(test::tempPath("out.npy"))) << "a refused run left an output file";
}

INSTANTIATE_TEST_SUITE_P(Corpus, MalformedCorpus, ::testing::ValuesIn(loadManifest()), testName);

// The corpus must cover every format of issue 6 (and stay tiny).
TEST(MalformedCorpusManifest, CoversEveryFormatWithSmallFiles) {
  std::set<std::string> formats;
  for (const CorpusEntry& e : loadManifest()) {
    formats.insert(e.file.substr(0, e.file.find('/')));
    const fs::path p = test::fixture("malformed/" + e.file);
    ASSERT_TRUE(fs::exists(p)) << p;
    if (fs::is_regular_file(p)) {
      EXPECT_LT(fs::file_size(p), 64 * 1024) << p;
    }
  }
  for (const char* f : {"safetensors", "npy", "tokenizer_json", "vocab_json", "vocab_txt",
                        "tokenizer_bin", "llama2c", "config_json", "torch"}) {
    EXPECT_TRUE(formats.count(f)) << "no malformed " << f << " files";
  }
}

}  // namespace
}  // namespace headmap
