#include "ui/model_store.h"

#include <QFileInfo>
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

bool ModelStore::load(const QString& path, const LoadOptions& options) {
  try {
    LoadedModel loaded = loadModel(path.toStdString(), options);
    if (!loaded.model || !loaded.tokenizer)
      return fail(tr("%1: the loader returned no model").arg(path));
    setModel(std::move(loaded));
    return true;
  } catch (const std::exception& e) {
    return fail(QString::fromStdString(e.what()));
  }
}

bool ModelStore::loadRandom(int dModel, int heads, unsigned seed) {
  try {
    setModel(makeRandomLayer(dModel, heads, seed));
    return true;
  } catch (const std::exception& e) {
    return fail(QString::fromStdString(e.what()));
  }
}

}  // namespace headmap::ui
