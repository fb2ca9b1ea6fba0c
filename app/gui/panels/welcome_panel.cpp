#include "app/gui/panels/welcome_panel.h"

#include <QCommandLinkButton>
#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QVBoxLayout>

namespace attnlab::app {

namespace {

bool holdsRun(const QString& dir) {
  return QFileInfo(dir + QStringLiteral("/run.h5")).isFile();
}

}  // namespace

WelcomePanel::WelcomePanel(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("welcomePanel"));
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(48, 32, 48, 32);
  auto* title = new QLabel(QStringLiteral("<h2>No run is open</h2>"
                                          "Train a new encoder, or open a run folder (one that "
                                          "attnlab-cli train wrote, finished or still training)."),
                           this);
  title->setWordWrap(true);
  outer->addWidget(title);

  auto* newRun = new QCommandLinkButton(QStringLiteral("New run…"),
                                        QStringLiteral("Choose a preset (tiny trains in about "
                                                       "three minutes on two cores) and start."),
                                        this);
  newRun->setObjectName(QStringLiteral("welcomeNewRun"));
  connect(newRun, &QCommandLinkButton::clicked, this, &WelcomePanel::newRunRequested);
  auto* open = new QCommandLinkButton(QStringLiteral("Open run…"),
                                      QStringLiteral("A run folder, or its run.h5."), this);
  open->setObjectName(QStringLiteral("welcomeOpenRun"));
  connect(open, &QCommandLinkButton::clicked, this, &WelcomePanel::openRunRequested);
  outer->addWidget(newRun);
  outer->addWidget(open);

  m_runsHeading = new QLabel(QStringLiteral("<b>Open again</b>"), this);
  outer->addSpacing(12);
  outer->addWidget(m_runsHeading);
  m_runsLayout = new QVBoxLayout;
  outer->addLayout(m_runsLayout);
  outer->addStretch(1);
  setRuns(QString(), {});
}

void WelcomePanel::addRunButton(const QString& directory, const QString& label) {
  auto* button = new QCommandLinkButton(label, QDir::toNativeSeparators(directory), this);
  button->setObjectName(QStringLiteral("welcomeRun"));
  connect(button, &QCommandLinkButton::clicked, this,
          [this, directory] { emit runRequested(directory); });
  m_runsLayout->addWidget(button);
  m_offered << directory;
}

void WelcomePanel::setRuns(const QString& demoRun, const QStringList& recentRuns) {
  while (QLayoutItem* item = m_runsLayout->takeAt(0)) {
    // Later, not now: a button can be asking for this from inside its own clicked().
    if (QWidget* old = item->widget()) {
      old->setObjectName(QString());
      old->hide();
      old->deleteLater();
    }
    delete item;
  }
  m_offered.clear();
  const QString demo = demoRun.isEmpty() ? QString() : QDir::cleanPath(demoRun);
  if (!demo.isEmpty())
    addRunButton(demo, QStringLiteral("The demo run (%1)").arg(QDir(demo).dirName()));
  for (const QString& run : recentRuns) {
    const QString clean = QDir::cleanPath(run);
    if (clean != demo) addRunButton(clean, QDir(clean).dirName());
  }
  m_runsHeading->setVisible(!m_offered.isEmpty());
}

QString WelcomePanel::findDemoRun(const QString& runsFolder) {
  for (const QString& dir : {QDir::current().absoluteFilePath(QStringLiteral("runs/tiny")),
                             runsFolder + QStringLiteral("/tiny")})
    if (holdsRun(dir)) return QDir::cleanPath(dir);
  return {};
}

}  // namespace attnlab::app
