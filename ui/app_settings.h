#pragma once
// Persisted choices (QSettings, INI): window geometry, last text, colormap, toggles, recent
// files. Values of the wrong type or out of range are reset to defaults with a notice.
#include <QByteArray>
#include <QString>
#include <QStringList>

#include "ui/view_options.h"

namespace headmap::ui {

struct SavedState {
  QByteArray geometry;
  QString text = QStringLiteral("the cat sat on the mat");
  ViewOptions view;
  QStringList recent;
};

class AppSettings {
 public:
  static constexpr int kMaxRecent = 8;
  // path "" = the per-user location (QStandardPaths::AppConfigLocation/headmap.ini).
  explicit AppSettings(QString path = {});
  QString path() const { return m_path; }

  // notices receives one line per value that was corrupt and reset.
  SavedState load(QStringList* notices = nullptr) const;
  void save(const SavedState& state) const;
  static QStringList withRecent(QStringList recent, const QString& path);

 private:
  QString m_path;
};

}  // namespace headmap::ui
