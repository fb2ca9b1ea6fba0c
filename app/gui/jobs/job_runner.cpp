#include "app/gui/jobs/job_runner.h"

#include "core/errors/error.h"

#include <QMetaObject>
#include <QThread>

#include <chrono>
#include <exception>
#include <string>

namespace attnlab::app {

JobRunner::JobRunner(QObject* parent) : QObject(parent) {}

JobRunner::~JobRunner() {
  cancel();
  join();  // its queued end is dropped with this object
}

void JobRunner::join() {
  if (!m_thread) return;
  m_thread->wait();
  m_thread.reset();
}

void JobRunner::cancel() {
  if (!m_running || !m_cancel || m_cancel->exchange(true)) return;
  emit cancelRequested();
}

bool JobRunner::isCancelling() const {
  return m_running && m_cancel && m_cancel->load();
}

analysis::AnalysisProgress JobRunner::queuedProgress(quint64 serial) {
  struct Throttle {
    std::chrono::steady_clock::time_point last{};
    std::string phase;
  };
  auto state = std::make_shared<Throttle>();  // one thread calls it: no lock
  // `this` outlives the thread (the destructor joins it); a queued call whose receiver is
  // gone is dropped by Qt.
  return [this, serial, state](const std::string& phase, std::int64_t done, std::int64_t total) {
    const auto now = std::chrono::steady_clock::now();
    if (phase == state->phase && done < total && now - state->last < std::chrono::milliseconds(100))
      return;
    state->last = now;
    state->phase = phase;
    const QString p = QString::fromStdString(phase);
    QMetaObject::invokeMethod(
        this,
        [this, serial, p, done, total] {
          if (m_running && serial == m_serial) emit progress(p, done, total);
        },
        Qt::QueuedConnection);
  };
}

bool JobRunner::launch(const QString& label, Body body, Deliver deliver, QString* whyNot) {
  if (m_running) {
    if (whyNot) *whyNot = QStringLiteral("%1 is still running; cancel it or wait").arg(m_label);
    return false;
  }
  join();  // the previous job has ended; its thread may still be returning
  m_running = true;
  m_label = label;
  const quint64 serial = ++m_serial;
  m_cancel = std::make_shared<std::atomic<bool>>(false);
  JobControl control{queuedProgress(serial), m_cancel.get()};
  // The thread holds its own reference to the flag `control` points to.
  m_thread.reset(
      QThread::create([this, serial, label, flag = m_cancel, control = std::move(control),
                       body = std::move(body), deliver = std::move(deliver)] {
        (void)flag;
        JobOutcome outcome = JobOutcome::Done;
        QString message;
        try {
          body(control);
        } catch (const Cancelled& e) {
          outcome = JobOutcome::Cancelled;
          message = QString::fromStdString(e.what());
        } catch (const std::exception& e) {
          outcome = JobOutcome::Failed;
          message = QString::fromStdString(e.what());
        } catch (...) {
          outcome = JobOutcome::Failed;
          message = QStringLiteral("%1 failed with an unknown error").arg(label);
        }
        QMetaObject::invokeMethod(
            this,
            [this, serial, outcome, message, deliver] { ended(serial, outcome, message, deliver); },
            Qt::QueuedConnection);
      }));
  m_thread->setObjectName(QStringLiteral("job: %1").arg(label));
  m_thread->start();
  emit started(label);
  return true;
}

void JobRunner::ended(quint64 serial, JobOutcome outcome, const QString& message,
                      const Deliver& deliver) {
  if (serial != m_serial) return;
  m_running = false;
  emit finished(outcome == JobOutcome::Done, outcome == JobOutcome::Cancelled, message);
  deliver(outcome, message);
}

}  // namespace attnlab::app
