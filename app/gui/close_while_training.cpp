#include "app/gui/close_while_training.h"

#include "app/gui/run_session.h"
#include "app/gui/training_coordinator.h"

#include <QMessageBox>
#include <QPushButton>

namespace attnlab::app {

namespace {

QString question(const RunSession* run) {
  const QString name = run ? run->name() : QString();
  const int processes = run ? run->processes() : 1;
  if (processes <= 1)
    return QStringLiteral(
               "%1 is training. Stop it (the engine finishes its step, writes a checkpoint and "
               "closes the log) and close the window?")
        .arg(name);
  return QStringLiteral(
             "%1 is training in %2 processes. Stop them (they finish their step, rank 0 writes "
             "a checkpoint and closes the log) and close the window?")
      .arg(name)
      .arg(processes);
}

}  // namespace

void askToStopAndClose(QWidget* parent, const RunSession* run,
                       const std::function<void()>& stopAndClose) {
  auto* box = new QMessageBox(QMessageBox::Question, QStringLiteral("A run is training"),
                              question(run), QMessageBox::NoButton, parent);
  box->setObjectName(QStringLiteral("closeWhileTrainingBox"));
  QPushButton* stop = box->addButton(QStringLiteral("Stop and close"), QMessageBox::AcceptRole);
  stop->setObjectName(QStringLiteral("stopAndCloseButton"));
  box->addButton(QStringLiteral("Keep the window"), QMessageBox::RejectRole)
      ->setObjectName(QStringLiteral("keepWindowButton"));
  box->setAttribute(Qt::WA_DeleteOnClose);
  QObject::connect(box, &QMessageBox::buttonClicked, box,
                   [stop, stopAndClose](QAbstractButton* clicked) {
                     if (clicked == stop) stopAndClose();
                   });
  box->open();
}

bool mayClose(QWidget* window, TrainingCoordinator& training, bool& stopping) {
  if (!training.isTraining()) return true;
  if (!stopping)  // else already stopping
    askToStopAndClose(window, training.run(), [&training, &stopping] {
      stopping = true;
      training.stop();
    });
  return false;
}

}  // namespace attnlab::app
