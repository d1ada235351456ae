#pragma once
// The command table of headmap-cli. Each app/cli_<command>.cpp registers itself with a static
//   static const bool kRegistered = registerCommand({...});
// so adding a command (stats, bench, render, ...) touches no other file.
#include <functional>
#include <string>
#include <vector>

#include "app/cli_args.h"

namespace headmap::cli {

struct Command {
  std::string name;
  std::function<ArgSpec()> spec;        // options and help text
  std::function<int(const Args&)> run;  // returns the exit code; throws on errors
};

bool registerCommand(Command command);
const std::vector<Command>& commands();  // sorted by name

}  // namespace headmap::cli
