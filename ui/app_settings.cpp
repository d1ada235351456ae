#include "ui/app_settings.h"

#include <QFile>
#include <QSettings>
#include <QStandardPaths>

namespace headmap::ui {
namespace {

// Reads an int in [lo, hi]; anything else is a corrupt value to reset.
int readInt(const QSettings& s, const QString& key, int lo, int hi, int fallback,
            QStringList* notices) {
  if (!s.contains(key)) return fallback;
  bool ok = false;
  const int v = s.value(key).toInt(&ok);
  if (ok && v >= lo && v <= hi) return v;
  if (notices) *notices << QObject::tr("setting '%1' was invalid and was reset").arg(key);
  return fallback;
}

bool readBool(const QSettings& s, const QString& key, bool fallback, QStringList* notices) {
  if (!s.contains(key)) return fallback;
  const QString v = s.value(key).toString().toLower();
  if (v == "true" || v == "1") return true;
  if (v == "false" || v == "0") return false;
  if (notices) *notices << QObject::tr("setting '%1' was invalid and was reset").arg(key);
  return fallback;
}

}  // namespace

AppSettings::AppSettings(QString path) : m_path(std::move(path)) {
  if (m_path.isEmpty())
    m_path = QStandardPaths::writableLocation(QStandardPaths::AppConfigLocation) + "/headmap.ini";
}

SavedState AppSettings::load(QStringList* notices) const {
  SavedState state;
  QSettings s(m_path, QSettings::IniFormat);
  if (s.status() != QSettings::NoError) {
    if (notices)
      *notices << QObject::tr("the settings file %1 was unreadable and was reset").arg(m_path);
    QFile::remove(m_path);
    return state;
  }
  state.geometry = s.value("window/geometry").toByteArray();
  if (s.contains("input/text")) state.text = s.value("input/text").toString().left(20000);
  ViewOptions& v = state.view;
  if (s.contains("view/colormap")) {
    bool ok = false;
    v.colormap = colormapFromName(s.value("view/colormap").toString(), &ok);
    if (!ok && notices)
      *notices << QObject::tr("setting 'view/colormap' was invalid and was reset");
  }
  v.mode = static_cast<HeadMode>(readInt(s, "view/mode", 0, 4, 0, notices));
  v.stage = static_cast<ScoreStage>(readInt(s, "view/stage", 0, 3, 3, notices));
  v.layer = readInt(s, "view/layer", 0, 1000, 0, notices);
  v.head = readInt(s, "view/head", 0, 1000, 0, notices);
  v.causal = readBool(s, "view/causal", false, notices);
  v.padding = readBool(s, "view/padding", true, notices);
  v.scale = readBool(s, "view/scale", true, notices);
  v.fixedRange = readBool(s, "view/fixedRange", true, notices);
  for (const QString& p : s.value("files/recent").toStringList())
    if (!p.isEmpty() && state.recent.size() < kMaxRecent) state.recent << p;
  return state;
}

void AppSettings::save(const SavedState& state) const {
  QSettings s(m_path, QSettings::IniFormat);
  s.setValue("window/geometry", state.geometry);
  s.setValue("input/text", state.text);
  s.setValue("view/colormap", colormapName(state.view.colormap));
  s.setValue("view/mode", int(state.view.mode));
  s.setValue("view/stage", int(state.view.stage));
  s.setValue("view/layer", state.view.layer);
  s.setValue("view/head", state.view.head);
  s.setValue("view/causal", state.view.causal);
  s.setValue("view/padding", state.view.padding);
  s.setValue("view/scale", state.view.scale);
  s.setValue("view/fixedRange", state.view.fixedRange);
  s.setValue("files/recent", state.recent);
  s.sync();
}

QStringList AppSettings::withRecent(QStringList recent, const QString& path) {
  recent.removeAll(path);
  recent.prepend(path);
  while (recent.size() > kMaxRecent) recent.removeLast();
  return recent;
}

}  // namespace headmap::ui
