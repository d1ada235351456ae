#include "ui/attention_controller.h"

#include <QCoreApplication>
#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <cmath>
#include <exception>

#include "core/common/error.h"
#include "core/model/run_checks.h"

namespace headmap::ui {

// Token identity for the induction score: a bare layer's whitespace tokenizer numbers tokens by
// position, so equal pieces must be matched by text there (see idsFromPieces).
static std::vector<int> analysisIds(const LoadedModel& model, const std::vector<Token>& tokens) {
  if (model.tokenizer && model.tokenizer->kind() == "whitespace") return idsFromPieces(tokens);
  std::vector<int> ids;
  ids.reserve(tokens.size());
  for (const Token& t : tokens) ids.push_back(t.id);
  return ids;
}

namespace {

bool contains(const std::vector<int>& v, int x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// Grid and mean of the raw / scaled / masked scores need every head's stage maps (only kept
// heads have them); in the softmax stage they read the thumbnails and the streamed mean.
bool needsEveryHead(const ComputeOptions& o) {
  return (o.mode == HeadMode::Grid || o.mode == HeadMode::Mean) && o.stage != ScoreStage::Softmax;
}

}  // namespace

FrameCoverage FrameCoverage::of(const AttentionFrame& frame) {
  FrameCoverage c;
  c.valid = frame.ok() && !frame.tokens.empty();
  c.heads = frame.layer.result.keptHeads;
  if (c.heads.empty())
    for (int h = 0; h < frame.layer.result.weights.heads; ++h) c.heads.push_back(h);
  c.layerHeads = frame.layerHeads;
  c.rollout = frame.rollout.size() > 0;
  c.layerMean = frame.layerMean.size() > 0;
  c.analysis = !frame.stats.empty();
  c.overview = c.analysis && !frame.overview.empty();
  for (const PooledMap& p : frame.overview) c.layerThumbs |= p.layer == frame.layer.layer;
  return c;
}

bool FrameCoverage::serves(const ComputeOptions& o) const {
  if (!valid) return false;
  if (o.analysis && !analysis) return false;
  const bool all = int(heads.size()) == layerHeads && layerHeads > 0;
  const bool softmax = o.stage == ScoreStage::Softmax;
  switch (o.mode) {
    case HeadMode::Single:
      return all || contains(heads, std::clamp(o.head, 0, std::max(0, layerHeads - 1)));
    case HeadMode::Grid:
      return all || (softmax && layerThumbs);
    case HeadMode::Mean:
      return all || (softmax && layerMean);
    case HeadMode::Rollout:
      return rollout;
    case HeadMode::Overview:
      return overview;
  }
  return false;
}

AttentionFrame computeFrame(const LoadedModel& model, const QString& text,
                            const ComputeOptions& options, quint64 generation) {
  AttentionFrame frame;
  frame.generation = generation;
  frame.options = options;
  QElapsedTimer timer;
  timer.start();
  try {
    if (!model.model || !model.tokenizer) throw Error("no model is loaded");
    frame.tokens = model.tokenizer->encode(text.toStdString());
    const ModelInfo info = model.model->info();
    size_t limit = AttentionController::kMaxTokens;
    if (info.maxPositions > 0) limit = std::min(limit, size_t(info.maxPositions));
    if (frame.tokens.size() > limit) {
      frame.notice = QObject::tr("Showing the first %1 of %2 tokens (the %3 limit)")
                         .arg(limit)
                         .arg(frame.tokens.size())
                         .arg(info.maxPositions > 0 && size_t(info.maxPositions) == limit
                                  ? QObject::tr("model's")
                                  : QObject::tr("display"));
      frame.tokens.resize(limit);
    }
    if (frame.tokens.empty()) {
      frame.error = QObject::tr("Type a sentence to see its attention");
      return frame;
    }
    const int64_t n = int64_t(frame.tokens.size());
    const int heads = std::max(1, info.heads);
    const int layers = std::max(1, info.layers);
    frame.layerHeads = info.heads;
    RunOptions run;
    run.attention.causal = options.causal;
    for (int p : options.paddedKeys)
      if (p < int(frame.tokens.size())) run.attention.paddedKeys.push_back(p);
    run.attention.scale = options.scale;
    run.attention.keepStages = options.stage != ScoreStage::Softmax;
    const int layer = std::clamp(options.layer, 0, layers - 1);
    run.layers = {layer};
    run.logits = false;
    // Typing at the end recomputes only the new tokens' rows of a causal model.
    run.reusePrefix = true;

    // What to keep (ui/frame_analysis.h): the whole selected layer while it is small, else the
    // shown head; the rollout when cheap or on screen; the layer mean when on screen.
    const double stageFactor = run.attention.keepStages ? 4 : 1;
    const double layerBytes = double(heads) * n * n * 4 * stageFactor;
    // The grid and mean of score stages need every head's stages: allowed up to 4× the bound.
    const double bound = double(kWholeLayerBytes) * (needsEveryHead(options) ? 4 : 1);
    const bool wholeLayer = layerBytes <= bound;
    if (!wholeLayer && needsEveryHead(options)) {
      // Every head's score stages of a long input (GBs, then drawn at full size) are not kept.
      if (!frame.notice.isEmpty()) frame.notice += '\n';
      frame.notice +=
          QObject::tr(
              "The grid and the mean of the raw, scaled or masked scores keep every head: for this "
              "model they are shown up to %1 tokens. Choose the softmax weights or one head.")
              .arg(int(std::sqrt(bound / (heads * 4 * stageFactor))));
    }
    if (!wholeLayer) run.keepHeads = std::vector<int>{std::clamp(options.head, 0, heads - 1)};
    // Statistics, overview and rollout need every layer: for long inputs only when shown.
    const bool analyse = n <= kAlwaysAnalyseTokens || options.analysis ||
                         options.mode == HeadMode::Overview || options.mode == HeadMode::Rollout;
    const bool rollout = analyse && (options.mode == HeadMode::Rollout ||
                                     double(layers - 1) * 2 * double(n) * n * n <= kRolloutFlops);
    const bool mean = !wholeLayer && options.mode == HeadMode::Mean;
    const uint64_t need = estimateFrameBytes(layers, heads, n, wholeLayer ? heads : 1,
                                             run.attention.keepStages, rollout);
    const uint64_t available = availableMemoryBytes();
    if (available > 0 && need > available) {
      throw Error(std::to_string(n) + " tokens need about " + formatBytes(need) +
                  " to compute and show, " + formatBytes(available) +
                  " are available: use fewer tokens");
    }

    const bool thumbs = !wholeLayer && options.mode == HeadMode::Grid;  // the grid's cells
    FrameAnalyzer analyzer(analysisIds(model, frame.tokens), analyse, rollout, mean ? layer : -1,
                           thumbs ? layer : -1);
    if (analyse || mean || thumbs) run.onHead = [&](const HeadWeights& w) { analyzer.add(w); };
    run.allLayers = analyse;
    if (!analyse)
      frame.analysisNote =
          QObject::tr(
              "For inputs over %1 tokens the statistics of every layer are computed while the "
              "table, the overview or the rollout is shown")
              .arg(kAlwaysAnalyseTokens);
    ModelInput input;
    input.tokens = frame.tokens;
    ModelRun result = model.model->run(input, run);
    FrameAnalysis analysis = analyzer.finish();
    frame.stats = std::move(analysis.stats);
    frame.rollout = std::move(analysis.rollout);
    frame.layerMean = std::move(analysis.layerMean);
    frame.overview = std::move(analysis.overview);
    auto selected = std::find_if(result.layers.begin(), result.layers.end(),
                                 [&](const LayerAttention& l) { return l.layer == layer; });
    if (selected == result.layers.end()) throw Error("the model returned no attention layer");
    frame.layer = std::move(*selected);
  } catch (const std::exception& e) {
    frame.error = QString::fromStdString(e.what());
  }
  frame.computeMs = timer.nsecsElapsed() / 1e6;
  return frame;
}

AttentionController::AttentionController(QObject* parent) : QObject(parent) {
  qRegisterMetaType<AttentionFrame>();
  m_debounce.setSingleShot(true);
  connect(&m_debounce, &QTimer::timeout, this, &AttentionController::start);
}

AttentionController::~AttentionController() {
  if (m_watcher) m_watcher->waitForFinished();
}

void AttentionController::setModel(const LoadedModel& model) {
  m_model = model;
  m_lastComputeMs = -1;
  m_coverage = {};
  schedule(0);
}

void AttentionController::setText(const QString& text) {
  if (text == m_text) return;
  m_text = text;
  m_coverage = {};
  schedule(textDelayMs());
}

int AttentionController::textDelayMs() const {
  return m_lastComputeMs >= 0 && m_lastComputeMs < kInstantMs ? 0 : kDebounceMs;
}

void AttentionController::setOptions(const ComputeOptions& options) {
  if (options == m_options) return;
  const bool sameRun = options.sameRun(m_options);
  m_options = options;
  // Another head or mode of the same run: the last frame may already hold what it needs.
  if (sameRun && !busy() && m_coverage.serves(options)) return;
  schedule(0);
}

void AttentionController::schedule(int delayMs) {
  ++m_generation;
  m_debounce.start(delayMs);
}

bool AttentionController::busy() const {
  return m_debounce.isActive() || m_pending || m_delivered != m_generation;
}

void AttentionController::start() {
  if (m_watcher) {  // one job at a time: the newest request runs when this one finishes
    m_pending = true;
    return;
  }
  m_pending = false;
  m_watcher = new QFutureWatcher<AttentionFrame>(this);
  connect(m_watcher, &QFutureWatcher<AttentionFrame>::finished, this,
          &AttentionController::onFinished);
  m_watcher->setFuture(QtConcurrent::run(computeFrame, m_model, m_text, m_options, m_generation));
}

void AttentionController::onFinished() {
  // Moved out of the future: a long input's maps are not copied once more.
  AttentionFrame frame = m_watcher->future().takeResult();
  m_watcher->deleteLater();
  m_watcher = nullptr;
  if (frame.ok()) m_lastComputeMs = frame.computeMs;
  if (m_pending || frame.generation != m_generation) {
    if (!m_debounce.isActive()) start();  // stale: drop it and run the newest request
    return;
  }
  m_delivered = frame.generation;
  m_coverage = FrameCoverage::of(frame);
  emit frameReady(frame);
}

bool AttentionController::waitForIdle(int timeoutMs) {
  QElapsedTimer timer;
  timer.start();
  while (busy()) {
    if (timer.elapsed() > timeoutMs) return false;
    QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
  }
  return true;
}

}  // namespace headmap::ui
