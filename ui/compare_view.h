#pragma once
// Two inputs side by side with their difference: A, B and A − B on a diverging colormap centred
// on 0. Tokens that differ between A and B are marked in the difference's axis labels.
#include <QWidget>
#include <optional>

#include "ui/heatmap_view.h"

class QLabel;

namespace headmap::ui {

// a, b: (q, k) maps of the same shape -> A − B, labelled "a" or "a | b" where tokens differ.
// nullopt (with *why set) when the shapes differ, e.g. different token counts.
std::optional<HeatmapData> differenceData(const HeatmapData& a, const HeatmapData& b,
                                          QString* why = nullptr);

class CompareView : public QWidget {
  Q_OBJECT
 public:
  explicit CompareView(QWidget* parent = nullptr);
  void setMaps(HeatmapData a, HeatmapData b);
  void setColormap(Colormap map);
  HeatmapView* viewA() const { return m_a; }
  HeatmapView* viewB() const { return m_b; }
  HeatmapView* difference() const { return m_diff; }
  QString message() const;  // why there is no difference map, empty when there is one

 private:
  HeatmapView* m_a = nullptr;
  HeatmapView* m_b = nullptr;
  HeatmapView* m_diff = nullptr;
  QLabel* m_message = nullptr;
};

}  // namespace headmap::ui
