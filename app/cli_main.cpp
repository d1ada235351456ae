// headmap-cli: batch access to headmap's attention maps. The commands live in app/cli_*.cpp and
// register themselves (app/cli_commands.h); this file only dispatches and turns every failure
// into a message on stderr and a non-zero exit code.
#include <cstdio>
#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "app/cli_commands.h"
#include "core/common/error.h"

namespace {

using headmap::cli::commands;

constexpr int kExitError = 1;  // the input could not be processed (bad file, bad model, I/O)
constexpr int kExitUsage = 2;  // the command line itself is wrong

std::string mainHelp() {
  std::string text =
      "usage: headmap-cli COMMAND [arguments] [options]\n\n"
      "Shows, head by head, the attention a Transformer pays between tokens.\n\ncommands:\n";
  for (const auto& c : commands()) {
    std::string left = "  " + c.name;
    const std::string summary = c.spec().summary();
    text += left + std::string(left.size() < 14 ? 14 - left.size() : 1, ' ') +
            summary.substr(0, summary.find('\n')) + "\n";
  }
  text +=
      "\n'headmap-cli COMMAND --help' documents a command and every option it takes.\n"
      "MODEL is a .safetensors or torch.save file holding an attention layer, a Hugging Face\n"
      "model folder (config.json + weights), or a llama2.c checkpoint.\n\n"
      "exit codes: 0 success, 1 the input could not be processed, 2 bad command line.\n";
  return text;
}

const headmap::cli::Command* findCommand(const std::string& name) {
  for (const auto& c : commands()) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

int runCommand(const headmap::cli::Command& command, const std::vector<std::string>& argv) {
  const headmap::cli::ArgSpec spec = command.spec();
  try {
    headmap::cli::Args args = spec.parse(argv);
    if (args.helpRequested) {
      std::cout << spec.help();
      return 0;
    }
    return command.run(args);
  } catch (const headmap::cli::UsageError& e) {
    std::cerr << "headmap-cli " << command.name << ": " << e.what() << "\n"
              << "see 'headmap-cli " << command.name << " --help'\n";
    return kExitUsage;
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (args.empty()) {
      std::cerr << mainHelp();
      return kExitUsage;
    }
    const std::string& first = args[0];
    if (first == "--help" || first == "-h" || first == "help") {
      if (first == "help" && args.size() > 1) {
        if (const auto* c = findCommand(args[1])) {
          std::cout << c->spec().help();
          return 0;
        }
      }
      std::cout << mainHelp();
      return 0;
    }
    const auto* command = findCommand(first);
    if (!command) {
      std::string names;
      for (const auto& c : commands()) names += (names.empty() ? "" : ", ") + c.name;
      std::cerr << "headmap-cli: unknown command '" << first << "' (commands: " << names
                << "); see 'headmap-cli --help'\n";
      return kExitUsage;
    }
    return runCommand(*command, std::vector<std::string>(args.begin() + 1, args.end()));
  } catch (const headmap::Error& e) {
    std::cerr << "headmap-cli: " << e.what() << "\n";
  } catch (const std::bad_alloc&) {
    std::cerr << "headmap-cli: out of memory\n";
  } catch (const std::exception& e) {
    std::cerr << "headmap-cli: " << e.what() << "\n";
  } catch (...) {
    std::cerr << "headmap-cli: unexpected failure\n";
  }
  return kExitError;
}
