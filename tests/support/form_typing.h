#pragma once

// Typing into the New run dialog's form as a person does, for the tests that drive the
// real main window (QTest keys, offscreen).

#include "app/gui/main_window.h"
#include "app/gui/new_run/new_run_dialog.h"

#include <QComboBox>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QString>
#include <QTest>
#include <QWidget>

namespace attnlab::tests {

/// Types `text` into the form field of `key` as a person would (select all, type).
inline bool typeField(QWidget* dialog, const QString& key, const QString& text) {
  QWidget* editor = dialog->findChild<QWidget*>(key);
  if (editor == nullptr) return false;
  if (auto* line = qobject_cast<QLineEdit*>(editor)) {
    line->setFocus();
    line->selectAll();
    QTest::keyClick(line, Qt::Key_Backspace);
    QTest::keyClicks(line, text);
    return line->text() == text;
  }
  if (auto* lines = qobject_cast<QPlainTextEdit*>(editor)) {
    lines->setFocus();
    lines->selectAll();
    QTest::keyClick(lines, Qt::Key_Backspace);
    QTest::keyClicks(lines, text);
    return lines->toPlainText() == text;
  }
  if (auto* combo = qobject_cast<QComboBox*>(editor)) {
    combo->setFocus();
    QTest::keyClicks(combo, text);  // keyboard search, as typing on a closed combo does
    return combo->currentText() == text;
  }
  return false;
}

/// File > New run (Ctrl+N) in `window`: the dialog once visible, with `preset` chosen when
/// one is given (typed into the preset box as a person does); nullptr when either fails.
inline app::NewRunDialog* openNewRunDialog(app::MainWindow& window, const QString& preset = {}) {
  QTest::keyClick(&window, Qt::Key_N, Qt::ControlModifier);
  app::NewRunDialog* dialog = nullptr;
  if (!QTest::qWaitFor([&] {
        dialog = window.findChild<app::NewRunDialog*>();
        return dialog != nullptr && dialog->isVisible();
      }))
    return nullptr;
  if (preset.isEmpty()) return dialog;
  auto* box = dialog->findChild<QComboBox*>("presetCombo");
  if (box == nullptr) return nullptr;
  box->setFocus();
  QTest::keyClicks(box, preset);
  return dialog->currentPreset() == preset ? dialog : nullptr;
}

}  // namespace attnlab::tests
