#include "app/gui/panels/placeholder_stack.h"

#include <QLabel>
#include <QStackedLayout>
#include <QVBoxLayout>

namespace attnlab::app {

PlaceholderStack::PlaceholderStack(const QString& placeholderName, QWidget* parent)
    : QWidget(parent) {
  m_stack = new QStackedLayout(this);
  m_stack->setContentsMargins(0, 0, 0, 0);
  m_placeholder = new QLabel(this);
  m_placeholder->setObjectName(placeholderName);
  m_placeholder->setAlignment(Qt::AlignCenter);
  m_placeholder->setWordWrap(true);
  m_stack->addWidget(m_placeholder);
}

void PlaceholderStack::setContent(QWidget* content) {
  m_content = content;
  m_stack->addWidget(content);  // reparents it to the stack
}

QVBoxLayout* PlaceholderStack::fillParentWithColumn() {
  auto* outer = new QVBoxLayout(parentWidget());
  outer->setContentsMargins(4, 4, 4, 4);
  outer->addWidget(this, 1);
  auto* content = new QWidget(this);
  auto* column = new QVBoxLayout(content);
  column->setContentsMargins(0, 0, 0, 0);
  column->setSpacing(4);
  setContent(content);
  return column;
}

void PlaceholderStack::showPlaceholder(const QString& text) {
  m_placeholder->setText(text);
  m_stack->setCurrentWidget(m_placeholder);
}

void PlaceholderStack::showContent() {
  if (m_content != nullptr) m_stack->setCurrentWidget(m_content);
}

bool PlaceholderStack::showsContent() const {
  return m_content != nullptr && m_stack->currentWidget() == m_content;
}

}  // namespace attnlab::app
