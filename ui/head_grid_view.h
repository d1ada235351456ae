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
  // Cells per row: 0 = a near-square layout (one layer's heads); the overview passes the head
  // count so that rows are layers.
  void setColumns(int columns);
  int count() const { return int(m_views.size()); }
  HeatmapView* view(int head) const { return m_views.at(head); }
  double lastRenderMs() const;
  static int columnsFor(int heads);

 signals:
  void headClicked(int head);  // the index of the clicked cell (row-major)

 private:
  QGridLayout* m_grid = nullptr;
  std::vector<HeatmapView*> m_views;
  Colormap m_colormap = Colormap::Viridis;
  int m_columns = 0;
  int m_laidOutColumns = 0;
};

}  // namespace headmap::ui
