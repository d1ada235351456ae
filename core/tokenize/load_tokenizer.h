#pragma once
// Entry points: a tokenizer from one file (format decided by content) or from a model folder.
#include <memory>
#include <string>

#include "core/tokenize/tokenizer.h"

namespace headmap {

// tokenizer.json, vocab.json (merges.txt beside it), vocab.txt or a llama2.c tokenizer.bin.
// vocabSizeHint > 0 tells a llama2.c file how many records to read (the model's vocab_size);
// 0 reads records to the end of the file. Throws headmap::Error naming the file on bad input.
std::shared_ptr<Tokenizer> loadTokenizerFile(const std::string& path, int vocabSizeHint = 0);

// The tokenizer of a model folder: tokenizer.json preferred, else vocab.json + merges.txt, else
// vocab.txt, else tokenizer.bin. nullptr when the folder has none of them.
std::shared_ptr<Tokenizer> loadTokenizerFromFolder(const std::string& dir, int vocabSizeHint = 0);

}  // namespace headmap
