#include "ui/dialogs.h"

#include <QDialog>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QInputDialog>
#include <QSpinBox>

namespace headmap::ui {

std::optional<RandomLayerRequest> askRandomLayer(QWidget* parent, const RandomLayerRequest& last) {
  QDialog dialog(parent);
  dialog.setWindowTitle(QObject::tr("New random attention layer"));
  auto* form = new QFormLayout(&dialog);
  auto* dModel = new QSpinBox(&dialog);
  dModel->setRange(1, 8192);
  dModel->setValue(last.dModel);
  auto* heads = new QSpinBox(&dialog);
  heads->setRange(1, 256);
  heads->setValue(last.heads);
  auto* seed = new QSpinBox(&dialog);
  seed->setRange(0, 1 << 30);
  seed->setValue(int(last.seed));
  form->addRow(QObject::tr("d_model"), dModel);
  form->addRow(QObject::tr("Heads"), heads);
  form->addRow(QObject::tr("Seed"), seed);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
  form->addRow(buttons);
  QObject::connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
  QObject::connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
  if (dialog.exec() != QDialog::Accepted) return std::nullopt;
  return RandomLayerRequest{dModel->value(), heads->value(), unsigned(seed->value())};
}

int askAttentionLayer(QWidget* parent, const QStringList& layers) {
  bool ok = false;
  const QString choice =
      QInputDialog::getItem(parent, QObject::tr("Choose an attention layer"),
                            QObject::tr("This file holds %1 attention layers:").arg(layers.size()),
                            layers, 0, false, &ok);
  return ok ? int(layers.indexOf(choice)) : -1;
}

double askPngScale(QWidget* parent) {
  bool ok = false;
  const QStringList scales{"1x (96 dpi)", "2x (192 dpi)", "3x (288 dpi)", "4x (384 dpi)"};
  const QString choice = QInputDialog::getItem(parent, QObject::tr("PNG resolution"),
                                               QObject::tr("Scale:"), scales, 1, false, &ok);
  return ok ? scales.indexOf(choice) + 1 : 0;
}

}  // namespace headmap::ui
