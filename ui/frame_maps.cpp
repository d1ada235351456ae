#include "ui/frame_maps.h"

#include <QObject>
#include <cmath>

namespace headmap::ui {
namespace {

HeatmapData baseData(const AttentionFrame& frame, const ViewOptions& view, const HeadMaps& maps) {
  HeatmapData data;
  data.q = maps.q;
  data.k = maps.k;
  const QStringList labels = tokenLabels(frame.tokens);
  data.queryLabels = labels.mid(0, maps.q);
  data.keyLabels = labels.mid(0, maps.k);
  // Raw and scaled scores come before masking: hatch only where the mask has been applied.
  const bool masked =
      frame.options.stage == ScoreStage::Masked || frame.options.stage == ScoreStage::Softmax;
  if (masked && frame.layer.result.keyMask.size() == size_t(maps.q) * maps.k)
    data.mask = frame.layer.result.keyMask;
  const bool softmax = frame.options.stage == ScoreStage::Softmax;
  data.valueName = softmax ? QStringLiteral("weight") : stageName(frame.options.stage);
  data.fixedUnitRange = softmax && view.fixedRange;
  return data;
}

}  // namespace

QStringList tokenLabels(const std::vector<Token>& tokens) {
  QStringList labels;
  labels.reserve(int(tokens.size()));
  for (const Token& t : tokens) labels << QString::fromStdString(t.display);
  return labels;
}

const HeadMaps& stageMaps(const AttentionResult& result, ScoreStage stage) {
  switch (stage) {
    case ScoreStage::Raw:
      return result.raw;
    case ScoreStage::Scaled:
      return result.scaled;
    case ScoreStage::Masked:
      return result.masked;
    case ScoreStage::Softmax:
      break;
  }
  return result.weights;
}

QString stageName(ScoreStage stage) {
  switch (stage) {
    case ScoreStage::Raw:
      return QObject::tr("raw score");
    case ScoreStage::Scaled:
      return QObject::tr("scaled score");
    case ScoreStage::Masked:
      return QObject::tr("masked score");
    case ScoreStage::Softmax:
      break;
  }
  return QObject::tr("weight");
}

QString mapTitle(const QString& model, const AttentionFrame& frame, const QString& headPart) {
  QStringList parts{model, QStringLiteral("L%1 %2").arg(frame.layer.layer).arg(headPart)};
  if (frame.options.causal) parts << QObject::tr("causal");
  if (!frame.options.paddedKeys.empty())
    parts << QObject::tr("%n padded", nullptr, int(frame.options.paddedKeys.size()));
  if (!frame.options.scale) parts << QObject::tr("unscaled");
  if (frame.options.stage != ScoreStage::Softmax) parts << stageName(frame.options.stage) + "s";
  return parts.join(QStringLiteral(" · "));
}

HeatmapData headData(const AttentionFrame& frame, const ViewOptions& view, int head,
                     const QString& model) {
  const HeadMaps& maps = stageMaps(frame.layer.result, frame.options.stage);
  HeatmapData data = baseData(frame, view, maps);
  const int heads = frame.layerHeads > 0 ? frame.layerHeads : maps.heads;
  head = std::clamp(head, 0, std::max(0, heads - 1));
  // Long inputs keep only the shown head: another one is empty until its frame arrives.
  const int index = frame.layer.result.mapIndex(head);
  if (index >= 0 && index < maps.heads) {
    const float* begin = maps.values.data() + size_t(index) * maps.q * maps.k;
    data.values.assign(begin, begin + size_t(maps.q) * maps.k);
  }
  data.title = mapTitle(model, frame, QStringLiteral("H%1").arg(head));
  return data;
}

bool keepsEveryHead(const AttentionFrame& frame) {
  const HeadMaps& maps = frame.layer.result.weights;
  return frame.layerHeads <= 0 || maps.heads == frame.layerHeads;
}

HeatmapData meanData(const AttentionFrame& frame, const ViewOptions& view, const QString& model) {
  const HeadMaps& maps = stageMaps(frame.layer.result, frame.options.stage);
  HeatmapData data = baseData(frame, view, maps);
  if (!keepsEveryHead(frame)) {  // long input: the mean streamed out of the run, if asked for
    const RowMatrixXf& m = frame.layerMean;
    if (m.size() > 0 && m.rows() == maps.q && m.cols() == maps.k)
      data.values.assign(m.data(), m.data() + m.size());
    data.title = mapTitle(model, frame, QObject::tr("mean of %1 heads").arg(frame.layerHeads));
    return data;
  }
  const size_t cells = size_t(maps.q) * maps.k;
  data.values.assign(cells, 0.f);
  for (int h = 0; h < maps.heads; ++h)
    for (size_t i = 0; i < cells; ++i) data.values[i] += maps.values[h * cells + i];
  for (float& v : data.values) v /= std::max(1, maps.heads);
  data.title = mapTitle(model, frame, QObject::tr("mean of %1 heads").arg(maps.heads));
  return data;
}

HeatmapData rolloutData(const AttentionFrame& frame, const ViewOptions& view,
                        const QString& model) {
  HeatmapData data;
  const int n = int(frame.rollout.rows());
  if (n == 0 || frame.rollout.cols() != n) return data;
  data.q = data.k = n;
  const QStringList labels = tokenLabels(frame.tokens);
  data.queryLabels = data.keyLabels = labels.mid(0, n);
  data.values.assign(frame.rollout.data(), frame.rollout.data() + size_t(n) * n);
  data.valueName = QObject::tr("rollout");
  data.fixedUnitRange = view.fixedRange;  // rows are distributions over input tokens
  // Always from the softmax weights, whatever stage the other views show.
  QStringList parts{model, QObject::tr("rollout across all layers")};
  if (frame.options.causal) parts << QObject::tr("causal");
  if (!frame.options.paddedKeys.empty())
    parts << QObject::tr("%n padded", nullptr, int(frame.options.paddedKeys.size()));
  data.title = parts.join(QStringLiteral(" · "));
  return data;
}

QString statsSummary(const AttentionFrame& frame, int layer, int head) {
  for (const HeadStats& s : frame.stats) {
    if (s.layer != layer || s.head != head) continue;
    auto number = [](double v) {
      return std::isnan(v) ? QStringLiteral("–") : QString::number(v, 'f', 3);
    };
    QString text = QObject::tr(
                       "entropy %1 · mean distance %2\nfirst token %3 · previous %4 · "
                       "diagonal %5")
                       .arg(number(s.entropy), number(s.meanDistance), number(s.firstTokenMass),
                            number(s.previousToken), number(s.diagonal));
    if (s.induction) text += QObject::tr(" · induction %1").arg(number(*s.induction));
    return text;
  }
  return {};
}

namespace {

// A thumbnail as a map: pooled bins are labelled by the token range they cover.
HeatmapData pooledData(const AttentionFrame& frame, const ViewOptions& view, const PooledMap& p,
                       const QStringList& labels) {
  HeatmapData data;
  data.q = data.k = p.cells;
  const bool pooled = p.edges.size() > 1 && p.edges.back() != p.cells;
  for (int i = 0; i < p.cells; ++i) {
    const int first = p.edges[i], last = p.edges[i + 1] - 1;
    data.queryLabels << (pooled ? QStringLiteral("#%1–%2").arg(first).arg(last)
                                : labels.value(first));
  }
  data.keyLabels = data.queryLabels;
  data.values = p.values;
  data.mask = p.mask;
  data.fixedUnitRange = view.fixedRange;
  data.title = QStringLiteral("L%1 H%2").arg(p.layer).arg(p.head);
  const QString stats = statsSummary(frame, p.layer, p.head);
  data.hoverNote = data.title + (pooled ? QObject::tr(" (max over each bin)") : QString()) +
                   (stats.isEmpty() ? QString() : QStringLiteral(": ") + stats);
  return data;
}

}  // namespace

std::vector<HeatmapData> overviewData(const AttentionFrame& frame, const ViewOptions& view) {
  std::vector<HeatmapData> all;
  const QStringList labels = tokenLabels(frame.tokens);
  for (const PooledMap& p : frame.overview) all.push_back(pooledData(frame, view, p, labels));
  return all;
}

std::vector<HeatmapData> gridData(const AttentionFrame& frame, const ViewOptions& view,
                                  const QString& model) {
  std::vector<HeatmapData> all;
  if (!keepsEveryHead(frame)) {  // long input: the selected layer's thumbnails
    if (frame.options.stage != ScoreStage::Softmax) return all;
    const QStringList labels = tokenLabels(frame.tokens);
    for (const PooledMap& p : frame.overview)
      if (p.layer == frame.layer.layer) all.push_back(pooledData(frame, view, p, labels));
    return all;
  }
  const int heads = stageMaps(frame.layer.result, frame.options.stage).heads;
  for (int h = 0; h < heads; ++h) {
    all.push_back(headData(frame, view, h, model));
    all.back().title = QStringLiteral("L%1 H%2").arg(frame.layer.layer).arg(h);
  }
  return all;
}

std::vector<HeatmapData> visibleData(const AttentionFrame& frame, const ViewOptions& view,
                                     const QString& model) {
  switch (view.mode) {
    case HeadMode::Grid:
      return gridData(frame, view, model);
    case HeadMode::Mean: {
      HeatmapData data = meanData(frame, view, model);
      if (data.values.empty()) return {};  // a long input's mean arrives with the next frame
      return {std::move(data)};
    }
    case HeadMode::Overview:
      return overviewData(frame, view);
    case HeadMode::Rollout: {
      HeatmapData data = rolloutData(frame, view, model);
      if (data.values.empty()) return {};
      return {std::move(data)};
    }
    case HeadMode::Single:
      break;
  }
  HeatmapData data = headData(frame, view, view.head, model);
  if (data.values.empty()) return {};  // a long input's other head arrives with the next frame
  return {std::move(data)};
}

}  // namespace headmap::ui
