#include "ui/model_store.h"

#include <QEventLoop>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>
#include <exception>

namespace headmap::ui {

QString ModelStore::displayName() const {
  if (!hasModel()) return tr("no model");
  const QString name = QString::fromStdString(m_model.model->info().name);
  return name.isEmpty() ? QFileInfo(QString::fromStdString(m_model.sourcePath)).fileName() : name;
}

ModelInfo ModelStore::info() const { return hasModel() ? m_model.model->info() : ModelInfo{}; }

void ModelStore::setModel(LoadedModel model) {
  m_model = std::move(model);
  m_lastError.clear();
  emit modelChanged();
}

bool ModelStore::fail(const QString& message) {
  m_lastError = message;
  emit loadFailed(message);
  return false;
}

namespace {

struct LoadOutcome {
  LoadedModel model;
  QString error;
};

LoadOutcome loadOffThread(const std::string& path, const LoadOptions& options) {
  LoadOutcome outcome;
  try {
    outcome.model = loadModel(path, options);
  } catch (const std::exception& e) {
    outcome.error = QString::fromStdString(e.what());
  }
  return outcome;
}

}  // namespace

// The loader runs on a pool thread (a BF16 checkpoint converts gigabytes); a local event loop keeps
// the window painting meanwhile, while callers still get the outcome synchronously.
bool ModelStore::load(const QString& path, const LoadOptions& options) {
  if (m_loading) return fail(tr("%1: another model is still loading").arg(path));
  m_loading = true;
  emit loadStarted(path);
  QFutureWatcher<LoadOutcome> watcher;
  QEventLoop loop;
  connect(&watcher, &QFutureWatcher<LoadOutcome>::finished, &loop, &QEventLoop::quit);
  watcher.setFuture(QtConcurrent::run(loadOffThread, path.toStdString(), options));
  if (!watcher.isFinished()) loop.exec(QEventLoop::ExcludeUserInputEvents);
  LoadOutcome outcome = watcher.result();
  m_loading = false;
  if (!outcome.error.isEmpty()) return fail(outcome.error);
  if (!outcome.model.model || !outcome.model.tokenizer)
    return fail(tr("%1: the loader returned no model").arg(path));
  if (m_validator) {
    const QString why = m_validator(outcome.model);
    if (!why.isEmpty()) return fail(why);
  }
  setModel(std::move(outcome.model));
  return true;
}

void ModelStore::clear() { setModel(LoadedModel{}); }

bool ModelStore::loadRandom(int dModel, int heads, unsigned seed) {
  try {
    setModel(makeRandomLayer(dModel, heads, seed));
    return true;
  } catch (const std::exception& e) {
    return fail(QString::fromStdString(e.what()));
  }
}

}  // namespace headmap::ui
