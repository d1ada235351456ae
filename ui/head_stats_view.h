#pragma once
// The head statistics table: one row per (layer, head) of the current input, sortable by any
// column; selecting a row asks the window to show that head; "Export CSV…" writes the table.
#include <QAbstractTableModel>
#include <QSortFilterProxyModel>
#include <QWidget>
#include <vector>

#include "core/analysis/head_stats.h"

class QLabel;
class QPushButton;
class QTableView;

namespace headmap::ui {

// Columns are core's statsColumnNames(). DisplayRole: formatted text (blank when absent);
// Qt::UserRole: the number as double, or an invalid QVariant when absent (NaN / no induction).
class HeadStatsModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  using QAbstractTableModel::QAbstractTableModel;
  // Same row count: values change in place (the selection survives a recompute); else a reset.
  void setStats(std::vector<HeadStats> stats);
  const std::vector<HeadStats>& stats() const { return m_stats; }
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  std::vector<HeadStats> m_stats;
};

// Sorts on Qt::UserRole; absent values go after every number in ascending order.
class HeadStatsProxy : public QSortFilterProxyModel {
  Q_OBJECT
 public:
  using QSortFilterProxyModel::QSortFilterProxyModel;

 protected:
  bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;
};

class HeadStatsView : public QWidget {
  Q_OBJECT
 public:
  explicit HeadStatsView(QWidget* parent = nullptr);
  // note: shown instead of the table's contents when there are no statistics (e.g. too long).
  void setStats(std::vector<HeadStats> stats, const QString& note = {});
  // Throws headmap::Error (from the atomic write) when the file cannot be written.
  void exportCsvTo(const QString& path) const;
  // Highlights the row of the head the window shows, without emitting headSelected.
  void showHead(int layer, int head);

  HeadStatsModel* model() const { return m_model; }
  HeadStatsProxy* proxy() const { return m_proxy; }
  QTableView* table() const { return m_table; }

 signals:
  void headSelected(int layer, int head);
  void exportRequested();  // the "Export CSV…" button; the window asks for the path

 private:
  void onCurrentChanged(const QModelIndex& current);

  HeadStatsModel* m_model = nullptr;
  HeadStatsProxy* m_proxy = nullptr;
  QTableView* m_table = nullptr;
  QLabel* m_note = nullptr;
  QPushButton* m_export = nullptr;
  bool m_syncing = false;
};

}  // namespace headmap::ui
