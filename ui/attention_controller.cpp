#include "ui/attention_controller.h"

#include <QCoreApplication>
#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <exception>

#include "core/analysis/rollout.h"
#include "core/common/error.h"

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
    RunOptions run;
    run.attention.causal = options.causal;
    for (int p : options.paddedKeys)
      if (p < int(frame.tokens.size())) run.attention.paddedKeys.push_back(p);
    run.attention.scale = options.scale;
    run.attention.keepStages = options.stage != ScoreStage::Softmax;
    const int layer = std::clamp(options.layer, 0, std::max(0, info.layers - 1));
    const bool analyse = frame.tokens.size() <= size_t(AttentionController::kMaxAnalysisTokens);
    run.layers.clear();  // empty = every layer, for the statistics and the rollout
    if (!analyse) run.layers = {layer};
    run.logits = false;
    ModelInput input;
    input.tokens = frame.tokens;
    ModelRun result = model.model->run(input, run);
    if (analyse) {
      frame.stats = computeHeadStats(result, analysisIds(model, frame.tokens));
      frame.rollout = attentionRollout(result);
    } else {
      frame.analysisNote =
          QObject::tr("Head statistics, rollout and the overview are computed up to %1 tokens")
              .arg(AttentionController::kMaxAnalysisTokens);
    }
    if (analyse)
      for (LayerAttention& l : result.layers)
        frame.allWeights.push_back(l.layer == layer ? l.result.weights
                                                    : std::move(l.result.weights));
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
  schedule(0);
}

void AttentionController::setText(const QString& text) {
  if (text == m_text) return;
  m_text = text;
  schedule(textDelayMs());
}

int AttentionController::textDelayMs() const {
  return m_lastComputeMs >= 0 && m_lastComputeMs < kInstantMs ? 0 : kDebounceMs;
}

void AttentionController::setOptions(const ComputeOptions& options) {
  if (options == m_options) return;
  m_options = options;
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
  AttentionFrame frame = m_watcher->result();
  m_watcher->deleteLater();
  m_watcher = nullptr;
  if (frame.ok()) m_lastComputeMs = frame.computeMs;
  if (m_pending || frame.generation != m_generation) {
    if (!m_debounce.isActive()) start();  // stale: drop it and run the newest request
    return;
  }
  m_delivered = frame.generation;
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
