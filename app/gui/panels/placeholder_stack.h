#pragma once

// What the Curves, Variants and Attention tabs show in their place until they have something
// to draw: one line of text ("Select a run...", "No values logged yet...") where the content
// will be, and the content once there is some. One widget, so that the three tabs say it the
// same way and keep one rule for which of the two is shown.

#include <QString>
#include <QWidget>

class QLabel;
class QStackedLayout;
class QVBoxLayout;

namespace attnlab::app {

class PlaceholderStack : public QWidget {
 public:
  /// `placeholderName` is the label's object name (tests and screenshots find it by it).
  explicit PlaceholderStack(const QString& placeholderName, QWidget* parent = nullptr);

  /// The widget shown instead of the placeholder, set once (the stack becomes its parent).
  void setContent(QWidget* content);
  QWidget* content() const { return m_content; }

  /// For a tab whose toolbar belongs to its content (hidden with it while the placeholder
  /// shows): the stack fills its parent, the tab (4 px margins), and its content becomes a new
  /// widget whose vertical layout, returned, takes the toolbar and what the toolbar controls.
  QVBoxLayout* fillParentWithColumn();

  /// Shows `text` in the content's place.
  void showPlaceholder(const QString& text);
  void showContent();
  bool showsContent() const;
  QLabel* placeholder() const { return m_placeholder; }

 private:
  QStackedLayout* m_stack = nullptr;
  QLabel* m_placeholder = nullptr;
  QWidget* m_content = nullptr;
};

}  // namespace attnlab::app
