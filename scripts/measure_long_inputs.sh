#!/bin/sh
# Peak memory (max RSS) and time of the desktop app on the three long-input cases of issue #8,
# each rendered once offscreen (docs/long_inputs.md):
#   1. a bare 768-wide, 12-head attention layer, 2,048 tokens
#   2. a random llama2.c model of stories260K's width with 4,096 positions, 4,096 tokens
#   3. a random GPT-2-small-sized model, 1,024 tokens
# Usage: scripts/measure_long_inputs.sh BUILD_DIR [OUT_DIR] [extra headmap options...]
# Makes the random checkpoints under /tmp when missing (never commit them).
set -eu
build=$1
out=${2:-/tmp/longin-measure}
shift 2 || shift $#
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
py=/usr/bin/python3

[ -f /tmp/longin-layer768.safetensors ] ||
  $py "$here/make_random_layer.py" /tmp/longin-layer768.safetensors /tmp/longin-x16.npy \
    --d-model 768 --heads 12 --tokens 16
[ -f /tmp/longin-llama/model.bin ] || $py "$here/make_long_llama2c.py" /tmp/longin-llama
[ -f /tmp/headmap-scale/gpt2-small/model.safetensors ] ||
  $py "$here/make_scale_checkpoints.py" /tmp/headmap-scale gpt2

# Texts: 2,048 distinct words; a story sentence repeated (cut to the app's 20,000 characters,
# then to the model's / the app's token limit).
words=$($py -c 'print(" ".join("w%d" % i for i in range(2048)))')
story=$($py -c 'print("Once upon a time there was a little girl named Lily. " * 400)')

run() {  # name model text
  name=$1
  model=$2
  text=$3
  shift 3
  /usr/bin/time -v env QT_QPA_PLATFORM=offscreen "$build/app/headmap" "$model" \
    --screenshot "$out/$name.png" --timings --text "$text" "$@" \
    >"$out/$name.json" 2>"$out/$name.time" || { cat "$out/$name.time"; return 1; }
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$out/$name.time")
  wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$out/$name.time")
  echo "$name: max RSS $((rss / 1024)) MB, wall $wall, $(cat "$out/$name.json")"
}

run layer768_2048 /tmp/longin-layer768.safetensors "$words" "$@"
run llama260k_4096 /tmp/longin-llama/model.bin "$story" "$@"
run gpt2small_1024 /tmp/headmap-scale/gpt2-small "$story" "$@"
