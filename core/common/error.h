#pragma once
// Errors for bad input (files, shapes, user options). Core never aborts on user input: it throws
// headmap::Error whose message names the file, the tensor, the expected and the actual value.
#include <stdexcept>
#include <string>

namespace headmap {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace headmap
