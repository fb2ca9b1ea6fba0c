#include "app/gui/panels/console_dock.h"

#include <QDateTime>
#include <QPlainTextEdit>
#include <QScrollBar>

namespace attnlab::app {

ConsoleDock::ConsoleDock(QWidget* parent) : QDockWidget(QStringLiteral("Console"), parent) {
  setObjectName(QStringLiteral("consoleDock"));
  m_text = new QPlainTextEdit(this);
  m_text->setObjectName(QStringLiteral("consoleText"));
  m_text->setReadOnly(true);
  m_text->setMaximumBlockCount(kMaxLines);
  m_text->setLineWrapMode(QPlainTextEdit::NoWrap);
  QFont mono(QStringLiteral("monospace"));
  mono.setStyleHint(QFont::Monospace);
  m_text->setFont(mono);
  setWidget(m_text);
}

void ConsoleDock::append(const QString& runName, const QColor& colour, const RunMessage& m) {
  const QString time = m.wallTime > 0
                           ? QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(m.wallTime * 1000))
                                 .toString(QStringLiteral("HH:mm:ss"))
                           : QString();
  const bool error = m.error || m.event == core::RunEventKind::NonFinite;
  QString html = QStringLiteral(
                     "<span style='color:gray'>%1</span> <b style='color:%2'>%3</b> "
                     "<span style='color:gray'>[%4 @ %5]</span> ")
                     .arg(time, colour.name(), runName.toHtmlEscaped(), m.kind.toHtmlEscaped())
                     .arg(m.step);
  html += error
              ? QStringLiteral("<span style='color:#d62728'>%1</span>").arg(m.text.toHtmlEscaped())
              : m.text.toHtmlEscaped();
  const bool atEnd = m_text->verticalScrollBar()->value() == m_text->verticalScrollBar()->maximum();
  m_text->appendHtml(html);
  if (atEnd) m_text->verticalScrollBar()->setValue(m_text->verticalScrollBar()->maximum());
}

void ConsoleDock::appendNote(const QString& text, bool error) {
  const QString time = QDateTime::currentDateTime().toString(QStringLiteral("HH:mm:ss"));
  m_text->appendHtml(
      QStringLiteral("<span style='color:gray'>%1</span> <span style='color:%2'>%3</span>")
          .arg(time, error ? QStringLiteral("#d62728") : QStringLiteral("gray"),
               text.toHtmlEscaped()));
}

QString ConsoleDock::text() const {
  return m_text->toPlainText();
}

}  // namespace attnlab::app
