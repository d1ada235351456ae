#pragma once
// Turns a computed frame and the display choices into what the views draw: one HeatmapData per
// shown head (the selected head, the mean over heads, or every head for the grid).
#include <QString>
#include <vector>

#include "ui/attention_controller.h"
#include "ui/heatmap_view.h"

namespace headmap::ui {

QStringList tokenLabels(const std::vector<Token>& tokens);
// The maps of the frame's stage: weights for softmax, else raw / scaled / masked scores.
const HeadMaps& stageMaps(const AttentionResult& result, ScoreStage stage);
QString stageName(ScoreStage stage);
// "gpt2-tiny · L0 H3 · causal · 2 padded": what the title and the export name say.
QString mapTitle(const QString& model, const AttentionFrame& frame, const QString& headPart);

// False for a long input whose selected layer kept only the shown head (frame.layer.result).
bool keepsEveryHead(const AttentionFrame& frame);
HeatmapData headData(const AttentionFrame& frame, const ViewOptions& view, int head,
                     const QString& model);
HeatmapData meanData(const AttentionFrame& frame, const ViewOptions& view, const QString& model);
// The frame's attention rollout (n, n) across every layer; empty values when not computed.
HeatmapData rolloutData(const AttentionFrame& frame, const ViewOptions& view, const QString& model);
// Every head of every layer (softmax weights), layer-major: index = layer · heads + head; each
// carries its head statistics as hover note. Empty when the frame has no overview maps.
std::vector<HeatmapData> overviewData(const AttentionFrame& frame, const ViewOptions& view);
// "entropy 0.31 · mean distance 6.2 · …" for a head of frame.stats; empty when absent.
QString statsSummary(const AttentionFrame& frame, int layer, int head);
std::vector<HeatmapData> gridData(const AttentionFrame& frame, const ViewOptions& view,
                                  const QString& model);
// What the view shows for the current options: one entry, or every head in grid mode.
std::vector<HeatmapData> visibleData(const AttentionFrame& frame, const ViewOptions& view,
                                     const QString& model);

}  // namespace headmap::ui
