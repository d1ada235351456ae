#pragma once
// Small modal dialogs the menus open.
#include <QStringList>
#include <QWidget>
#include <optional>

namespace headmap::ui {

struct RandomLayerRequest {
  int dModel = 64;  // the tutorial's experiment
  int heads = 4;
  unsigned seed = 1;
};

std::optional<RandomLayerRequest> askRandomLayer(QWidget* parent, const RandomLayerRequest& last);
// Which of several attention layers to open; -1 when cancelled.
int askAttentionLayer(QWidget* parent, const QStringList& layers);
// PNG scale factor (1x-4x); 0 when cancelled.
double askPngScale(QWidget* parent);

}  // namespace headmap::ui
