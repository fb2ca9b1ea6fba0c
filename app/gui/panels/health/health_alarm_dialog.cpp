#include "app/gui/panels/health/health_alarm_dialog.h"

#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace attnlab::app {

namespace {
QDoubleSpinBox* newBox(QWidget* parent, const QString& name, double lo, double hi, int decimals,
                       double step, double value, const QString& suffix) {
  auto* box = new QDoubleSpinBox(parent);
  box->setObjectName(name);
  box->setRange(lo, hi);
  box->setDecimals(decimals);
  box->setSingleStep(step);
  box->setValue(value);
  box->setSuffix(suffix);
  return box;
}
}  // namespace

HealthAlarmDialog::HealthAlarmDialog(AppSettings* settings, QWidget* parent)
    : QDialog(parent), m_settings(settings) {
  setObjectName(QStringLiteral("healthAlarmDialog"));
  setWindowTitle(QStringLiteral("Health alarms"));
  const HealthAlarmSettings now = settings->healthAlarms();
  m_entropy = newBox(this, QStringLiteral("healthAlarmEntropy"), 0.0, 10.0, 3, 0.05,
                     now.entropyCollapseNats, QStringLiteral(" nats"));
  m_entropy->setToolTip(QStringLiteral(
      "Entropy collapse: a head's minimum row entropy under this while its S_max rises"));
  m_massive = newBox(this, QStringLiteral("healthAlarmMassive"), 1.0, 1e6, 1, 10.0,
                     now.massiveRatio, QStringLiteral(" x"));
  m_massive->setToolTip(QStringLiteral(
      "Massive activation: a layer's top |h| over its median |h| above this (Sun et al. 2024)"));
  m_sinkJump = newBox(this, QStringLiteral("healthAlarmSinkJump"), 0.0, 1.0, 2, 0.05,
                      now.sinkRateJump, QString());
  m_sinkJump->setToolTip(QStringLiteral(
      "Sink-rate jump: a token class's sink rate (share of heads) up by more than this "
      "between two logged steps"));
  auto* form = new QFormLayout;
  form->addRow(QStringLiteral("Entropy collapse: minimum entropy under"), m_entropy);
  form->addRow(QStringLiteral("Massive activation: ratio over"), m_massive);
  form->addRow(QStringLiteral("Sink-rate jump: increase over"), m_sinkJump);
  auto* buttons = new QDialogButtonBox(
      QDialogButtonBox::Ok | QDialogButtonBox::Cancel | QDialogButtonBox::RestoreDefaults, this);
  connect(buttons, &QDialogButtonBox::accepted, this, [this] {
    m_settings->setHealthAlarms(thresholds());
    accept();
  });
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(buttons->button(QDialogButtonBox::RestoreDefaults), &QPushButton::clicked, this, [this] {
    const HealthAlarmSettings defaults;
    m_entropy->setValue(defaults.entropyCollapseNats);
    m_massive->setValue(defaults.massiveRatio);
    m_sinkJump->setValue(defaults.sinkRateJump);
  });
  auto* layout = new QVBoxLayout(this);
  auto* note = new QLabel(
      QStringLiteral(
          "Each alarm marks its step on the Health tab's trends and writes one console line."),
      this);
  note->setWordWrap(true);
  layout->addWidget(note);
  layout->addLayout(form);
  layout->addWidget(buttons);
}

HealthAlarmSettings HealthAlarmDialog::thresholds() const {
  HealthAlarmSettings a;
  a.entropyCollapseNats = m_entropy->value();
  a.massiveRatio = m_massive->value();
  a.sinkRateJump = m_sinkJump->value();
  return a;
}

}  // namespace attnlab::app
