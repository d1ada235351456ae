#include "ui/head_grid_view.h"

#include <QGridLayout>
#include <cmath>

namespace headmap::ui {

HeadGridView::HeadGridView(QWidget* parent) : QWidget(parent) {
  m_grid = new QGridLayout(this);
  m_grid->setContentsMargins(4, 4, 4, 4);
  m_grid->setSpacing(6);
}

int HeadGridView::columnsFor(int heads) {
  return std::max(1, int(std::ceil(std::sqrt(double(heads)))));
}

void HeadGridView::setHeads(std::vector<HeatmapData> heads) {
  const int n = int(heads.size());
  const int columns = m_columns > 0 ? m_columns : columnsFor(n);
  if (n != count() || columns != m_laidOutColumns) {
    for (HeatmapView* view : m_views) delete view;
    m_views.clear();
    m_laidOutColumns = columns;
    for (int h = 0; h < n; ++h) {
      auto* view = new HeatmapView(HeatmapView::Style::Thumbnail, this);
      view->setColormap(m_colormap);
      view->setCursor(Qt::PointingHandCursor);
      view->setToolTip(tr("Click to open this head large"));
      connect(view, &HeatmapView::clicked, this, [this, h] { emit headClicked(h); });
      m_grid->addWidget(view, h / columns, h % columns);
      m_views.push_back(view);
    }
  }
  for (int h = 0; h < n; ++h) m_views[h]->setData(std::move(heads[h]));
}

void HeadGridView::setColumns(int columns) { m_columns = std::max(0, columns); }

void HeadGridView::setColormap(Colormap map) {
  m_colormap = map;
  for (HeatmapView* view : m_views) view->setColormap(map);
}

double HeadGridView::lastRenderMs() const {
  double total = 0;
  for (HeatmapView* view : m_views) total += view->lastRenderMs();
  return total;
}

}  // namespace headmap::ui
