#pragma once

// Health > Alarms...: the three thresholds of the Health tab's alarms, kept in the app's
// settings (AppSettings::healthAlarms). Non-modal; OK stores them, and the tab finds its
// alarms again with them.

#include "app/gui/app_settings.h"

#include <QDialog>

class QDoubleSpinBox;

namespace attnlab::app {

class HealthAlarmDialog : public QDialog {
  Q_OBJECT
 public:
  HealthAlarmDialog(AppSettings* settings, QWidget* parent = nullptr);

  QDoubleSpinBox* entropyBox() const { return m_entropy; }
  QDoubleSpinBox* massiveBox() const { return m_massive; }
  QDoubleSpinBox* sinkJumpBox() const { return m_sinkJump; }
  /// What the boxes say now.
  HealthAlarmSettings thresholds() const;

 private:
  AppSettings* m_settings;
  QDoubleSpinBox* m_entropy = nullptr;
  QDoubleSpinBox* m_massive = nullptr;
  QDoubleSpinBox* m_sinkJump = nullptr;
};

}  // namespace attnlab::app
