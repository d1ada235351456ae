#pragma once
// Parsers of the tokenizer file formats (load_tokenizer.h picks one by content).
// Every parser treats its input as hostile: counts, ids and sizes are checked and a bad file
// throws headmap::Error naming the file, the entry, what was expected and what was found.
#include <memory>
#include <string>

#include "core/tokenize/tokenizer.h"

namespace headmap {

// Hugging Face tokenizer.json. The model kind is taken from "model"."type" or, when absent (older
// serializers), inferred from its keys: "merges" -> BPE, "continuing_subword_prefix" /
// "max_input_chars_per_word" -> WordPiece. `configText` is tokenizer_config.json's content or "":
// its add_bos_token / add_eos_token apply when the file has no post-processor.
std::shared_ptr<Tokenizer> parseTokenizerJson(const std::string& text, const std::string& source,
                                              const std::string& configText = "");

// GPT-2 style vocab.json + merges.txt (byte-level BPE, no BOS).
std::shared_ptr<Tokenizer> parseVocabJsonMerges(const std::string& vocabText,
                                                const std::string& vocabSource,
                                                const std::string& mergesText,
                                                const std::string& mergesSource);

// BERT vocab.txt (one piece a line, id = line number). Lower-casing is assumed when the
// vocabulary has (almost) no upper-case words, as for the *-uncased models.
std::shared_ptr<Tokenizer> parseVocabTxt(const std::string& text, const std::string& source);

}  // namespace headmap
