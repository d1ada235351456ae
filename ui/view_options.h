#pragma once
// What the user chose in the controls: the part that needs a recompute (ComputeOptions) and the
// part that only changes how the last result is drawn (the rest of ViewOptions).
#include <vector>

#include "core/attention/attention.h"
#include "ui/colormaps.h"

namespace headmap::ui {

// Rollout: attention rollout across every layer (Abnar & Zuidema 2020), not one layer's heads.
// Overview: every head of every layer, rows = layers, columns = heads.
enum class HeadMode { Single, Grid, Mean, Rollout, Overview };

struct ComputeOptions {
  int layer = 0;
  bool causal = false;
  std::vector<int> paddedKeys;  // already filtered by the padding toggle
  bool scale = true;
  ScoreStage stage = ScoreStage::Softmax;
  // What is on screen: long inputs keep only the maps it needs (ui/frame_analysis.h). A change
  // of these alone recomputes only when the last frame lacks the map (AttentionController).
  HeadMode mode = HeadMode::Single;
  int head = 0;
  // The statistics table is open: long inputs then run every layer for it (ui/frame_analysis.h).
  bool analysis = false;

  // Same run, whatever is on screen.
  bool sameRun(const ComputeOptions& o) const {
    return layer == o.layer && causal == o.causal && paddedKeys == o.paddedKeys &&
           scale == o.scale && stage == o.stage;
  }
  bool operator==(const ComputeOptions& o) const {
    return sameRun(o) && mode == o.mode && head == o.head && analysis == o.analysis;
  }
  bool operator!=(const ComputeOptions& o) const { return !(*this == o); }
};

struct ViewOptions {
  int layer = 0;
  HeadMode mode = HeadMode::Single;
  int head = 0;
  bool causal = false;
  bool padding = true;  // apply the chips marked as padding
  bool scale = true;
  ScoreStage stage = ScoreStage::Softmax;
  Colormap colormap = Colormap::Viridis;
  bool fixedRange = true;  // 0..1 in the softmax stage; scores always use min..max
};

}  // namespace headmap::ui
