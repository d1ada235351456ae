#!/usr/bin/env bash
# Seed corpora for the fuzz targets: small test fixtures of each format, the malformed corpus and
# synthetic tokenizers (make_seeds.py). Usage: scripts/fuzz/seed_corpora.sh [CORPUS_ROOT]
# (default build-fuzz/corpus). A target's corpus folder is CORPUS_ROOT/<target>/.
set -euo pipefail
cd "$(dirname "$0")/../.."
root="${1:-build-fuzz/corpus}"
mkdir -p "$root"

# copy TARGET FILES...: every file under 64 KB (big seeds only slow the fuzzer down)
copy() {
  local target="$1"; shift
  mkdir -p "$root/$target"
  for f in "$@"; do
    [ -f "$f" ] || continue
    [ "$(stat -c %s "$f")" -le 65536 ] || continue
    cp "$f" "$root/$target/$(echo "$f" | tr '/' '_')"
  done
}
shopt -s globstar nullglob
copy fuzz_npy tests/fixtures/cli/*.npy tests/fixtures/attention/d64_h4_n1_*.npy \
  tests/fixtures/malformed/npy/*
copy fuzz_safetensors tests/fixtures/**/*.safetensors tests/fixtures/malformed/safetensors/*
copy fuzz_tokenizer_json tests/fixtures/malformed/tokenizer_json/*
copy fuzz_vocab_txt tests/fixtures/malformed/vocab_txt/*
copy fuzz_llama2c_tokenizer /work/shared/models/stories260K/tok512.bin
copy fuzz_torch_zip tests/fixtures/**/*.pt tests/fixtures/malformed/torch/*
copy fuzz_config_json tests/fixtures/**/config.json tests/fixtures/malformed/config_json/*
copy fuzz_llama2c_checkpoint tests/fixtures/**/*.bin tests/fixtures/malformed/llama2c/*
# fuzz_pickle seeds are the data.pkl records inside the .pt fixtures
for pt in tests/fixtures/**/*.pt; do
  mkdir -p "$root/fuzz_pickle"
  /usr/bin/python3 - "$pt" "$root/fuzz_pickle" <<'PY'
import os, sys, zipfile
pt, out = sys.argv[1], sys.argv[2]
try:
    with zipfile.ZipFile(pt) as z:
        for n in z.namelist():
            if n.endswith("data.pkl"):
                open(os.path.join(out, os.path.basename(pt) + ".pkl"), "wb").write(z.read(n))
except (zipfile.BadZipFile, OSError, EOFError):
    pass  # legacy or deliberately broken archives: the raw file is a torch_zip seed already
PY
done
/usr/bin/python3 scripts/fuzz/make_seeds.py "$root"
for d in "$root"/*/; do echo "$(basename "$d"): $(ls "$d" | wc -l) seeds"; done
