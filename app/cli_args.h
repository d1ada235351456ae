#pragma once
// A small argument parser shared by every headmap-cli command: each command declares its
// positionals, options and flags once; parsing and --help text both come from that declaration.
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace headmap::cli {

// Bad command-line usage (unknown option, missing value, non-number): exit code 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Args;

class ArgSpec {
 public:
  // summary: its first line is the one-line description in 'headmap-cli --help'.
  ArgSpec(std::string command, std::string summary);

  ArgSpec& positional(const std::string& name, const std::string& help);
  // An option that takes a value: --name VALUE or --name=VALUE.
  ArgSpec& option(const std::string& name, const std::string& valueName, const std::string& help);
  ArgSpec& flag(const std::string& name, const std::string& help);
  ArgSpec& note(const std::string& text);  // a paragraph after the option list

  const std::string& command() const { return m_command; }
  const std::string& summary() const { return m_summary; }
  std::string help() const;
  // Throws UsageError. "--help"/"-h" anywhere sets Args::helpRequested and skips the checks.
  Args parse(const std::vector<std::string>& argv) const;

 private:
  struct Item {
    std::string name;
    std::string valueName;  // empty for flags and positionals
    std::string help;
  };
  const Item* findOption(const std::string& name) const;

  std::string m_command;
  std::string m_summary;
  std::vector<Item> m_positionals;
  std::vector<Item> m_options;
  std::vector<std::string> m_notes;
};

class Args {
 public:
  bool helpRequested = false;

  const std::string& positional(size_t i) const { return m_positionals.at(i); }
  bool has(const std::string& option) const { return m_values.count(option) > 0; }
  std::string get(const std::string& option, const std::string& fallback = "") const;
  // Whole-string integer in [min, max], else UsageError naming the option and the value.
  int getInt(const std::string& option, int fallback, int min, int max) const;
  // "1,2,3" -> {1, 2, 3}; each in [min, max]. An empty value gives an empty list.
  // what names an entry in messages (default "<option> entry").
  std::vector<int> getIntList(const std::string& option, int min, int max,
                              const std::string& what = "") const;

 private:
  friend class ArgSpec;
  std::vector<std::string> m_positionals;
  std::map<std::string, std::string> m_values;  // flags map to ""
};

// Parses a whole-string integer in [min, max]; what names the value in the message.
int parseInt(const std::string& text, int min, int max, const std::string& what);

}  // namespace headmap::cli
