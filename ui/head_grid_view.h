#pragma once
// Every head of a layer as a small heatmap titled "L{layer} H{head}"; a click asks for it large.
#include <QWidget>
#include <vector>

#include "ui/heatmap_view.h"

class QGridLayout;

namespace headmap::ui {

class HeadGridView : public QWidget {
  Q_OBJECT
 public:
  explicit HeadGridView(QWidget* parent = nullptr);
  void setHeads(std::vector<HeatmapData> heads);  // reuses the existing thumbnails
  void setColormap(Colormap map);
  int count() const { return int(m_views.size()); }
  HeatmapView* view(int head) const { return m_views.at(head); }
  double lastRenderMs() const;
  static int columnsFor(int heads);

 signals:
  void headClicked(int head);

 private:
  QGridLayout* m_grid = nullptr;
  std::vector<HeatmapView*> m_views;
  Colormap m_colormap = Colormap::Viridis;
};

}  // namespace headmap::ui
