// headmap-cli: batch inspect / dump / render. Filled by the foundation work.
#include <cstdio>
int main() {
  std::fprintf(stderr, "headmap-cli: not built yet\n");
  return 1;
}
