#include "ui/compare_session.h"

#include "ui/model_store.h"

namespace headmap::ui {

CompareSession::CompareSession(QObject* parent) : QObject(parent) {
  m_storeB = new ModelStore(this);
  m_controller = new AttentionController(this);
  m_storeB->setValidator([this](const LoadedModel& b) { return shapeMismatch(b); });
  connect(m_storeB, &ModelStore::loadFailed, this, &CompareSession::loadFailed);
  connect(m_storeB, &ModelStore::modelChanged, this, [this] {
    update();
    emit modelBChanged();
  });
  connect(m_controller, &AttentionController::frameReady, this,
          [this](const AttentionFrame& frame) {
            m_frame = frame;
            emit frameReady();
          });
}

QString CompareSession::shapeMismatch(const LoadedModel& b) const {
  if (!m_modelA.model || !b.model) return QString();
  const ModelInfo ia = m_modelA.model->info(), ib = b.model->info();
  if (ia.layers == ib.layers && ia.heads == ib.heads) return QString();
  return tr("%1: model B has %2 layers × %3 heads, model A (%4) has %5 × %6: compare needs "
            "models of the same shape")
      .arg(QString::fromStdString(b.sourcePath.empty() ? ib.name : b.sourcePath))
      .arg(ib.layers)
      .arg(ib.heads)
      .arg(QString::fromStdString(ia.name))
      .arg(ia.layers)
      .arg(ia.heads);
}

void CompareSession::setModelA(const LoadedModel& model) {
  m_modelA = model;
  if (hasModelB()) {
    const QString why = shapeMismatch(m_storeB->current());
    if (!why.isEmpty()) {
      m_storeB->clear();  // emits modelChanged -> update()
      emit loadFailed(tr("Stopped comparing models: %1").arg(why));
      return;
    }
  }
  update();
}

void CompareSession::setTextA(const QString& text) {
  m_textA = text;
  if (hasModelB() && m_textB.trimmed().isEmpty()) update();
}

void CompareSession::setTextB(const QString& text) {
  m_textB = text;
  update();
}

void CompareSession::setOptions(const ComputeOptions& options) {
  m_controller->setOptions(options);
}

bool CompareSession::openModelB(const QString& path) { return m_storeB->load(path); }

void CompareSession::clearModelB() {
  if (hasModelB()) m_storeB->clear();
}

bool CompareSession::hasModelB() const { return m_storeB->hasModel(); }

QString CompareSession::nameB(const QString& nameA) const {
  return hasModelB() ? m_storeB->displayName() : nameA;
}

void CompareSession::update() {
  // setModel recomputes and forgets how fast the model runs (text edits are then debounced):
  // only a different model is handed over, not every edit of B's sentence.
  const LoadedModel& model = hasModelB() ? m_storeB->current() : m_modelA;
  if (model.model != m_controllerModel) {
    m_controllerModel = model.model;
    m_controller->setModel(model);
  }
  m_controller->setText(m_textB.trimmed().isEmpty() && hasModelB() ? m_textA : m_textB);
}

}  // namespace headmap::ui
