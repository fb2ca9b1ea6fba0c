#pragma once

// An editor for a whole run configuration, generated from the config schema
// (core/config/config_schema.h): one field per key, grouped by section, with the attention
// variants on a page of their own where each mechanism is switched on by a checkbox that
// reveals its options. Values are checked as the person types, with the checks and the
// messages of the command line: a field's own type and constraint first, then the rules
// across keys on the assembled config. Nothing here names a key: a key added to the schema
// gets its field without a change to this file.

#include "core/config/config_schema.h"
#include "core/config/run_config.h"

#include <QString>
#include <QStringList>
#include <QWidget>

#include <map>
#include <memory>
#include <vector>

class QCheckBox;
class QGridLayout;
class QHBoxLayout;
class QListWidget;
class QStackedWidget;

namespace attnlab::app {

class ConfigForm : public QWidget {
  Q_OBJECT
 public:
  explicit ConfigForm(QWidget* parent = nullptr);
  ~ConfigForm() override;

  /// Shows `config` in every field (no edited() signal); errors are recomputed.
  void setConfig(const core::RunConfig& config);
  /// The configuration the fields describe. Only meaningful while isValid(): a field that
  /// does not parse keeps the value last given to setConfig().
  core::RunConfig config() const;
  bool isValid() const;

  /// The message shown at a key's field, "<key path>: <reason>" exactly as attnlab-cli
  /// prints it, or an empty string when the field is fine.
  QString errorFor(const QString& keyPath) const;
  /// Every current problem, "<key path>: <reason>", in schema order.
  QStringList errors() const;

  /// The editor of a key (its objectName is the key path), or nullptr for an unknown key.
  QWidget* editorFor(const QString& keyPath) const;
  /// What a key's field holds as text: a line edit's text, "true"/"false", the chosen
  /// choice, a list's items joined by ", ".
  QString fieldText(const QString& keyPath) const;

  /// The pages: "run", "model", ..., and "attention" for the variants; titles by
  /// sectionTitle().
  QStringList sections() const;
  QString sectionTitle(const QString& section) const;
  QString currentSection() const;
  void showSection(const QString& section);
  /// Shows the page of a key and puts the keyboard focus in its editor.
  void focusKey(const QString& keyPath);

  /// The attention variants: one id per mechanism ("attention.guidance",
  /// "attention.temperature", ...), in schema order.
  QStringList variants() const;
  /// The checkbox that switches a variant on. For a mechanism enabled by a boolean key it
  /// is that key's editor; for one enabled by a choice whose "none"/"off" means off it is a
  /// checkbox of its own, named "variant:<id>", that sets the choice.
  QCheckBox* variantSwitch(const QString& id) const;

 signals:
  /// isValid() changed.
  void validityChanged(bool valid);
  /// The person changed a field (not emitted by setConfig()).
  void edited();

 private:
  struct Field;
  struct Variant;
  struct Page;

  void build();
  void createFields();
  /// The attention keys gathered into one Variant per mechanism, each with its switch.
  void groupVariants();
  /// The section list and one page per section.
  void buildPages();
  void fitSectionListWidth();
  Page newPage(const QString& section);
  QWidget* buildSectionPage(const QString& section);
  QWidget* buildVariantsPage();
  /// One mechanism's box: its switch (or name) under the paper's title, then its options.
  QWidget* buildVariantBox(Variant& variant, QWidget* parent);
  QHBoxLayout* buildVariantHeader(Variant& variant, QWidget* box, const QString& head);
  /// The mechanism's keys other than a checkbox switch, or nullptr when it has none.
  QWidget* buildVariantOptions(Variant& variant, QWidget* box);
  void addFieldRow(QGridLayout* grid, int& row, Field& field, bool withLabel);
  /// A key's field: its editor (by the key's type), error label and Reset button.
  Field* createField(const QString& path);
  void createEditor(Field& field);
  void createLineEditor(Field& field, const QString& placeholder);
  void createMultiLineEditor(Field& field);
  void createCheckBoxEditor(Field& field);
  void createChoiceEditor(Field& field);
  void createErrorLabel(Field& field);
  void createResetButton(Field& field);
  void createBrowseButton(Field& field);
  void writeField(Field& field, const core::ConfigValue& value);
  void parseField(Field& field);
  void onFieldChanged(Field& field);
  void onVariantSwitched(Variant& variant, bool on);
  void syncVariant(Variant& variant);
  void revalidate();
  void refreshField(Field& field);
  void refreshSectionMarks();
  core::RunConfig assemble() const;
  Field* field(const QString& path) const;

  std::vector<std::unique_ptr<Field>> m_fields;  ///< schema order
  std::map<QString, Field*> m_byPath;
  std::vector<std::unique_ptr<Variant>> m_variants;
  QStringList m_sections;
  QListWidget* m_sectionList = nullptr;
  QStackedWidget* m_pages = nullptr;
  std::vector<QWidget*> m_focusOrder;  ///< editors and switches as laid out
  core::RunConfig m_base;
  /// A failure validateRunConfig() reports that no field's check did (kept as a last
  /// guard so config() is never handed on invalid).
  QString m_otherError;
  bool m_valid = true;
  bool m_updating = false;
};

}  // namespace attnlab::app
