#include "app/gui/new_run/config_form.h"

#include "core/config/config_loader.h"
#include "core/config/config_schema.h"
#include "core/errors/error.h"
#include "core/mechanisms/mechanism_names.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFrame>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QStackedWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <optional>
#include <string>

namespace attnlab::app {

namespace {

using core::ConfigKey;
using core::ConfigType;
using core::ConfigValue;

/// Keys whose value is a folder on this machine: their field gets a Browse… button.
bool isFolderKey(const QString& path) {
  return path == QLatin1String("model.init_from") || path == QLatin1String("data.cache_dir");
}

/// The section whose keys and sub-sections are the attention mechanisms of the papers.
/// Every mechanism is found from the schema below it; only the root is named here.
const QString kVariantRoot = QStringLiteral("attention");

const QString kErrorColour = QStringLiteral("#c62828");

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

/// The page a key is on: the first component of its path ("model" for "model.layers").
QString pageOf(const ConfigKey& key) {
  const QString section = qs(key.section());
  const int dot = section.indexOf(QLatin1Char('.'));
  return dot < 0 ? section : section.left(dot);
}

/// The schema's texts are Markdown for docs/configuration.md: drop the code quotes and the
/// table escapes for display.
QString plainText(const std::string& markdown) {
  QString text = qs(markdown);
  text.replace(QStringLiteral("\\|"), QStringLiteral("|"));
  text.remove(QLatin1Char('`'));
  return text;
}

QString capitalised(QString text) {
  if (!text.isEmpty()) text[0] = text[0].toUpper();
  return text;
}

/// Keys directly in [attention] are one mechanism each ("attention.temperature"); the keys
/// of a sub-section, at any depth, belong to that sub-section's mechanism.
QString variantIdOf(const ConfigKey& key) {
  // Options whose names the papers' code fixed at the attention root belong to the
  // normalizer's box: softmax1's sink logit and clipped softmax's zeta and gamma.
  const QString path = qs(key.path);
  if (path == QStringLiteral("attention.sink_logit") ||
      path.startsWith(QStringLiteral("attention.clipped.")))
    return QStringLiteral("attention.normalizer");
  const QString section = qs(key.section());
  if (section == kVariantRoot) return qs(key.path);
  const int dot = section.indexOf(QLatin1Char('.'), kVariantRoot.size() + 1);
  return dot < 0 ? section : section.left(dot);
}

/// The value of a choice that means "mechanism off", or empty when it has none ("softmax":
/// attention.normalizer's plain softmax).
QString offChoice(const ConfigKey& key) {
  for (const char* off : {"none", "off", "softmax"}) {
    for (const auto& choice : key.constraint.choices) {
      if (choice == off) return QString::fromLatin1(off);
    }
  }
  return {};
}

/// Lists of free text (paths, sentences) may hold commas: one item per line. Lists of
/// choices are short names: one line, comma-separated.
bool isMultiLineList(const ConfigKey& key) {
  return key.type == ConfigType::StringList && key.constraint.choices.empty();
}

QString listSeparator(const ConfigKey& key) {
  return isMultiLineList(key) ? QStringLiteral("\n") : QStringLiteral(", ");
}

QString displayText(const ConfigKey& key, const ConfigValue& value) {
  if (const auto* s = std::get_if<std::string>(&value)) return qs(*s);
  if (const auto* items = std::get_if<std::vector<std::string>>(&value)) {
    QStringList list;
    for (const auto& item : *items) list << qs(item);
    return list.join(listSeparator(key));
  }
  // Numbers and booleans as in a TOML file, so what is shown reads back to the same value.
  return qs(core::toTomlLiteral(value));
}

QString tooltipFor(const ConfigKey& key) {
  return plainText(key.meaning) + QStringLiteral("\n\nType: ") +
         plainText(core::describeType(key)) + QStringLiteral("\nDefault: ") +
         qs(core::toTomlLiteral(key.defaultValue)) + QStringLiteral("\nKey: ") + qs(key.path);
}

/// "learnable temperature: scalars on ..." -> ("Learnable temperature", "scalars on ...").
std::pair<QString, QString> splitMeaning(const std::string& meaning) {
  const QString text = plainText(meaning);
  int cut = -1;
  for (const QString& sep : {QStringLiteral(": "), QStringLiteral("; ")}) {
    const int at = text.indexOf(sep);
    if (at > 0 && (cut < 0 || at < cut)) cut = at;
  }
  if (cut < 0) return {capitalised(text), QString()};
  return {capitalised(text.left(cut)), capitalised(text.mid(cut + 2))};
}

QLabel* captionLabel(const QString& text, QWidget* parent) {
  auto* label = new QLabel(text, parent);
  label->setWordWrap(true);
  label->setForegroundRole(QPalette::PlaceholderText);
  QFont font = label->font();
  font.setPointSizeF(font.pointSizeF() * 0.9);
  label->setFont(font);
  return label;
}

}  // namespace

struct ConfigForm::Field {
  const ConfigKey* key = nullptr;
  QString path;
  QString page;
  QWidget* editor = nullptr;
  QLineEdit* line = nullptr;
  QPlainTextEdit* lines = nullptr;
  QCheckBox* check = nullptr;
  QComboBox* combo = nullptr;
  QLabel* error = nullptr;
  QToolButton* reset = nullptr;
  QToolButton* browse = nullptr;  ///< folder keys (isFolderKey) only
  Variant* variant = nullptr;
  /// The parsed value, when the field's own checks pass.
  std::optional<ConfigValue> value;
  QString ownError;
  QStringList ruleErrors;

  QStringList messages() const { return ownError.isEmpty() ? ruleErrors : QStringList{ownError}; }
};

struct ConfigForm::Variant {
  QString id;
  std::vector<Field*> fields;
  /// The key that switches the mechanism on: a boolean, or a choice with an "off" value.
  Field* enabling = nullptr;
  QString offValue;  ///< for a choice: the value meaning off
  QString onValue;   ///< for a choice: what switching on selects (the last value used)
  QCheckBox* toggle = nullptr;
  QWidget* options = nullptr;

  bool isOn() const {
    if (!enabling) return true;
    if (enabling->check) return enabling->check->isChecked();
    return enabling->combo->currentData().toString() != offValue;
  }

  /// The switch: an "enabled" boolean, else a choice that can be "none"/"off", else the only
  /// key of a one-key mechanism when it is a boolean.
  void chooseEnabling() {
    for (Field* f : fields) {
      if (f->key->type == ConfigType::Boolean && f->key->name() == "enabled") enabling = f;
    }
    if (!enabling) {
      for (Field* f : fields) {
        if (f->key->type == ConfigType::Choice && !offChoice(*f->key).isEmpty()) {
          enabling = f;
          offValue = offChoice(*f->key);
          break;
        }
      }
    }
    if (!enabling && fields.size() == 1 && fields.front()->key->type == ConfigType::Boolean) {
      enabling = fields.front();
    }
  }
};

ConfigForm::ConfigForm(QWidget* parent) : QWidget(parent) {
  build();
  setConfig(core::RunConfig{});
}

ConfigForm::~ConfigForm() = default;

ConfigForm::Field* ConfigForm::field(const QString& path) const {
  const auto it = m_byPath.find(path);
  return it == m_byPath.end() ? nullptr : it->second;
}

void ConfigForm::build() {
  // Fields first (schema order), then the variants they make up, then the pages.
  createFields();
  groupVariants();
  buildPages();
  // Tab walks the fields as they are laid out, not in the order they were created.
  for (std::size_t i = 1; i < m_focusOrder.size(); ++i) {
    QWidget::setTabOrder(m_focusOrder[i - 1], m_focusOrder[i]);
  }
  fitSectionListWidth();
  connect(m_sectionList, &QListWidget::currentRowChanged, m_pages,
          &QStackedWidget::setCurrentIndex);

  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_sectionList);
  layout->addWidget(m_pages, 1);
}

void ConfigForm::createFields() {
  for (const auto& key : core::configSchema()) {
    const QString page = pageOf(key);
    if (!m_sections.contains(page)) m_sections << page;
    Field* f = createField(qs(key.path));
    f->page = page;
  }
}

void ConfigForm::groupVariants() {
  for (const auto& f : m_fields) {
    if (f->page != kVariantRoot) continue;
    const QString id = variantIdOf(*f->key);
    Variant* v = nullptr;
    for (const auto& existing : m_variants) {
      if (existing->id == id) v = existing.get();
    }
    if (!v) {
      m_variants.push_back(std::make_unique<Variant>());
      v = m_variants.back().get();
      v->id = id;
    }
    v->fields.push_back(f.get());
    f->variant = v;
  }
  for (const auto& v : m_variants) v->chooseEnabling();
}

void ConfigForm::buildPages() {
  m_sectionList = new QListWidget(this);
  m_sectionList->setObjectName(QStringLiteral("sectionList"));
  m_sectionList->setSelectionMode(QAbstractItemView::SingleSelection);
  m_pages = new QStackedWidget(this);
  for (const QString& section : m_sections) {
    auto* item = new QListWidgetItem(sectionTitle(section), m_sectionList);
    item->setData(Qt::UserRole, section);
    m_pages->addWidget(section == kVariantRoot ? buildVariantsPage() : buildSectionPage(section));
  }
  m_sectionList->setCurrentRow(0);
}

void ConfigForm::fitSectionListWidth() {
  int listWidth = 0;
  for (const QString& section : m_sections) {
    listWidth =
        std::max(listWidth, m_sectionList->fontMetrics().horizontalAdvance(sectionTitle(section)));
  }
  // Room for the "(n)" problem count the marks add.
  m_sectionList->setFixedWidth(
      listWidth + m_sectionList->fontMetrics().horizontalAdvance(QStringLiteral("  (99)  ")) + 16);
}

ConfigForm::Field* ConfigForm::createField(const QString& path) {
  auto owned = std::make_unique<Field>();
  Field* f = owned.get();
  f->key = core::findConfigKey(path.toStdString());
  f->path = path;
  m_fields.push_back(std::move(owned));
  m_byPath[path] = f;

  createEditor(*f);
  f->editor->setObjectName(path);
  f->editor->setToolTip(tooltipFor(*f->key));
  createErrorLabel(*f);
  createResetButton(*f);
  if (f->line && isFolderKey(path)) createBrowseButton(*f);
  return f;
}

void ConfigForm::createEditor(Field& f) {
  switch (f.key->type) {
    case ConfigType::Integer:
    case ConfigType::Float:
    case ConfigType::String:
      // Line edits for numbers too: a spin box would refuse "0" or "2.5" silently where the
      // person should read why, and int64 keys do not fit its int range.
      createLineEditor(f, displayText(*f.key, f.key->defaultValue));
      break;
    case ConfigType::Boolean:
      createCheckBoxEditor(f);
      break;
    case ConfigType::Choice:
      createChoiceEditor(f);
      break;
    case ConfigType::StringList:
      if (isMultiLineList(*f.key)) {
        createMultiLineEditor(f);
      } else {
        // The caption under the field lists the choices; the placeholder only says how.
        createLineEditor(f, QStringLiteral("comma-separated"));
      }
      break;
  }
}

void ConfigForm::createLineEditor(Field& f, const QString& placeholder) {
  Field* field = &f;
  f.line = new QLineEdit(this);
  f.line->setPlaceholderText(placeholder);
  connect(f.line, &QLineEdit::textChanged, this, [this, field] { onFieldChanged(*field); });
  f.editor = f.line;
}

void ConfigForm::createMultiLineEditor(Field& f) {
  Field* field = &f;
  f.lines = new QPlainTextEdit(this);
  f.lines->setTabChangesFocus(true);
  f.lines->setPlaceholderText(QStringLiteral("one per line"));
  f.lines->setFixedHeight(f.lines->fontMetrics().lineSpacing() * 3 + 12);
  connect(f.lines, &QPlainTextEdit::textChanged, this, [this, field] { onFieldChanged(*field); });
  f.editor = f.lines;
}

void ConfigForm::createCheckBoxEditor(Field& f) {
  Field* field = &f;
  f.check = new QCheckBox(this);
  connect(f.check, &QCheckBox::toggled, this, [this, field] { onFieldChanged(*field); });
  f.editor = f.check;
}

void ConfigForm::createChoiceEditor(Field& f) {
  Field* field = &f;
  f.combo = new QComboBox(this);
  for (const auto& choice : f.key->constraint.choices) f.combo->addItem(qs(choice), qs(choice));
  connect(f.combo, &QComboBox::currentIndexChanged, this,
          [this, field] { onFieldChanged(*field); });
  f.editor = f.combo;
}

void ConfigForm::createErrorLabel(Field& f) {
  f.error = new QLabel(this);
  f.error->setObjectName(QStringLiteral("error:") + f.path);
  f.error->setWordWrap(true);
  f.error->setTextInteractionFlags(Qt::TextSelectableByMouse);
  f.error->setStyleSheet(QStringLiteral("color: %1;").arg(kErrorColour));
  f.error->hide();
}

void ConfigForm::createResetButton(Field& f) {
  Field* field = &f;
  f.reset = new QToolButton(this);
  f.reset->setObjectName(QStringLiteral("reset:") + f.path);
  f.reset->setText(QStringLiteral("Reset"));
  f.reset->setAutoRaise(true);
  f.reset->setToolTip(QStringLiteral("Back to the default, ") +
                      qs(core::toTomlLiteral(f.key->defaultValue)));
  // Hidden while the value is the default; keeping its room stops the rows from jumping.
  QSizePolicy keep = f.reset->sizePolicy();
  keep.setRetainSizeWhenHidden(true);
  f.reset->setSizePolicy(keep);
  connect(f.reset, &QToolButton::clicked, this, [this, field] {
    writeField(*field, field->key->defaultValue);
    field->editor->setFocus();
  });
}

void ConfigForm::createBrowseButton(Field& f) {
  Field* field = &f;
  f.browse = new QToolButton(this);
  f.browse->setObjectName(QStringLiteral("browse:") + f.path);
  f.browse->setText(QStringLiteral("Browse…"));
  f.browse->setToolTip(QStringLiteral("Choose the folder for ") + f.path);
  connect(f.browse, &QToolButton::clicked, this, [this, field] {
    const QString now = field->line->text().trimmed();
    const QString dir = QFileDialog::getExistingDirectory(
        this, QStringLiteral("Folder for ") + field->path, now.isEmpty() ? QDir::homePath() : now);
    if (dir.isEmpty()) return;  // cancelled: the field keeps what it had
    field->line->setText(QDir::toNativeSeparators(dir));
    field->line->setFocus();
  });
}

void ConfigForm::addFieldRow(QGridLayout* grid, int& row, Field& f, bool withLabel) {
  QWidget* parent = grid->parentWidget();
  if (withLabel) {
    auto* label = new QLabel(qs(f.key->name()), parent);
    label->setBuddy(f.editor);
    label->setToolTip(f.editor->toolTip());
    // Level with the editor's text line rather than the top of its frame (for a multi-line
    // list, with its first line).
    label->setMinimumHeight(f.lines ? label->sizeHint().height() + 8
                                    : f.editor->sizeHint().height());
    grid->addWidget(label, row, 0, Qt::AlignTop | Qt::AlignLeft);
  }
  auto* cell = new QWidget(parent);
  auto* column = new QVBoxLayout(cell);
  column->setContentsMargins(0, 0, 0, 0);
  column->setSpacing(2);
  auto* editorRow = new QHBoxLayout;
  editorRow->setContentsMargins(0, 0, 0, 0);
  f.editor->setParent(cell);
  m_focusOrder.push_back(f.editor);
  if (f.line || f.lines) {
    f.editor->setMaximumWidth(f.lines ? 520 : 360);
    editorRow->addWidget(f.editor, 1);
    if (f.browse) {
      f.browse->setParent(cell);
      editorRow->addWidget(f.browse);
      m_focusOrder.push_back(f.browse);  // Tab from the field reaches its Browse… button
    }
  } else {
    editorRow->addWidget(f.editor);
  }
  f.reset->setParent(cell);
  editorRow->addWidget(f.reset);
  editorRow->addStretch(0);
  column->addLayout(editorRow);
  f.error->setParent(cell);
  column->addWidget(f.error);
  column->addWidget(captionLabel(plainText(f.key->meaning), cell));
  grid->addWidget(cell, row, withLabel ? 1 : 0, 1, withLabel ? 1 : 2);
  ++row;
}

/// A page of the form: a scroll area named "page:<section>" holding a column under a title.
struct ConfigForm::Page {
  QScrollArea* scroll = nullptr;
  QWidget* content = nullptr;
  QVBoxLayout* layout = nullptr;
};

ConfigForm::Page ConfigForm::newPage(const QString& section) {
  Page page;
  page.scroll = new QScrollArea(this);
  page.scroll->setObjectName(QStringLiteral("page:") + section);
  page.scroll->setWidgetResizable(true);
  page.scroll->setFrameShape(QFrame::NoFrame);
  // The fields wrap their captions to the width there is; only the page scrolls, downwards.
  page.scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  page.content = new QWidget(page.scroll);
  page.layout = new QVBoxLayout(page.content);
  auto* title = new QLabel(sectionTitle(section), page.content);
  QFont big = title->font();
  big.setBold(true);
  big.setPointSizeF(big.pointSizeF() * 1.2);
  title->setFont(big);
  page.layout->addWidget(title);
  return page;
}

QWidget* ConfigForm::buildSectionPage(const QString& section) {
  const Page page = newPage(section);
  auto* gridHost = new QWidget(page.content);
  auto* grid = new QGridLayout(gridHost);
  grid->setContentsMargins(0, 0, 0, 0);
  grid->setHorizontalSpacing(16);
  grid->setVerticalSpacing(10);
  grid->setColumnStretch(1, 1);
  int row = 0;
  QString subSection = section;
  for (const auto& f : m_fields) {
    if (f->page != section) continue;
    // Nested sections ("a.b") get a heading of their own within their page.
    const QString keySection = qs(f->key->section());
    if (keySection != subSection) {
      subSection = keySection;
      auto* heading = new QLabel(QStringLiteral("[%1]").arg(keySection), gridHost);
      QFont bold = heading->font();
      bold.setBold(true);
      heading->setFont(bold);
      grid->addWidget(heading, row++, 0, 1, 2);
    }
    addFieldRow(grid, row, *f, true);
  }
  page.layout->addWidget(gridHost);
  page.layout->addStretch(1);
  page.scroll->setWidget(page.content);
  return page.scroll;
}

QWidget* ConfigForm::buildVariantsPage() {
  const Page page = newPage(kVariantRoot);
  page.layout->setSpacing(10);
  page.layout->addWidget(captionLabel(
      QStringLiteral("The papers' attention mechanisms. All off is a plain BERT/RoBERTa encoder; "
                     "each one that is switched on shows its options."),
      page.content));
  for (const auto& v : m_variants) page.layout->addWidget(buildVariantBox(*v, page.content));
  page.layout->addStretch(1);
  page.scroll->setWidget(page.content);
  return page.scroll;
}

QWidget* ConfigForm::buildVariantBox(Variant& v, QWidget* parent) {
  auto* box = new QFrame(parent);
  box->setObjectName(QStringLiteral("variantBox:") + v.id);
  box->setFrameShape(QFrame::StyledPanel);
  auto* boxLayout = new QVBoxLayout(box);
  boxLayout->setSpacing(4);

  const std::string& meaning =
      v.enabling ? v.enabling->key->meaning : v.fields.front()->key->meaning;
  // The paper's title where the section is a registered mechanism; the key's meaning
  // (what the switch does) goes underneath.
  auto [head, rest] = splitMeaning(meaning);
  if (const auto* name = core::findMechanismName(v.id.mid(kVariantRoot.size() + 1).toStdString())) {
    head = qs(std::string(name->title));
    rest = capitalised(plainText(meaning));
  }
  boxLayout->addLayout(buildVariantHeader(v, box, head));
  if (!rest.isEmpty()) boxLayout->addWidget(captionLabel(rest, box));
  if (v.enabling && v.enabling->check) {
    v.enabling->error->setParent(box);
    boxLayout->addWidget(v.enabling->error);
  }
  if (QWidget* options = buildVariantOptions(v, box)) boxLayout->addWidget(options);
  return box;
}

QHBoxLayout* ConfigForm::buildVariantHeader(Variant& v, QWidget* box, const QString& head) {
  auto* header = new QHBoxLayout;
  if (v.enabling && v.enabling->check) {
    v.toggle = v.enabling->check;
  } else if (v.enabling) {
    v.toggle = new QCheckBox(box);
    v.toggle->setObjectName(QStringLiteral("variant:") + v.id);
    v.toggle->setToolTip(v.enabling->editor->toolTip());
    Variant* variant = &v;
    connect(v.toggle, &QCheckBox::toggled, this,
            [this, variant](bool on) { onVariantSwitched(*variant, on); });
  }
  if (v.toggle) {
    v.toggle->setParent(box);
    m_focusOrder.push_back(v.toggle);
    // A button reads '&' as a shortcut marker ("Deshpande & Narasimhan"): double it.
    v.toggle->setText(QString(head).replace(QLatin1Char('&'), QStringLiteral("&&")));
    QFont bold = v.toggle->font();
    bold.setBold(true);
    v.toggle->setFont(bold);
    header->addWidget(v.toggle);
  } else {
    auto* name = new QLabel(head, box);
    QFont bold = name->font();
    bold.setBold(true);
    name->setFont(bold);
    header->addWidget(name);
  }
  header->addStretch(1);
  auto* idLabel = captionLabel(v.id, box);
  idLabel->setWordWrap(false);
  header->addWidget(idLabel);
  if (v.enabling && v.enabling->check) {
    v.enabling->reset->setParent(box);
    header->addWidget(v.enabling->reset);
  }
  return header;
}

QWidget* ConfigForm::buildVariantOptions(Variant& v, QWidget* box) {
  // The options: every other key of the mechanism (a choice switch first, since it picks
  // the flavour), indented under the switch.
  std::vector<Field*> options;
  if (v.enabling && v.enabling->combo) options.push_back(v.enabling);
  for (Field* f : v.fields) {
    if (f != v.enabling) options.push_back(f);
  }
  if (options.empty()) return nullptr;
  v.options = new QWidget(box);
  v.options->setObjectName(QStringLiteral("variantOptions:") + v.id);
  auto* grid = new QGridLayout(v.options);
  grid->setContentsMargins(24, 4, 0, 0);
  grid->setHorizontalSpacing(16);
  grid->setVerticalSpacing(8);
  grid->setColumnStretch(1, 1);
  int row = 0;
  for (Field* f : options) addFieldRow(grid, row, *f, true);
  return v.options;
}

void ConfigForm::setConfig(const core::RunConfig& config) {
  m_base = config;
  m_updating = true;
  for (const auto& f : m_fields) writeField(*f, f->key->get(config));
  for (const auto& v : m_variants) {
    // Switching a choice mechanism on again restores what the config had, else its first
    // non-off value.
    v->onValue.clear();
    syncVariant(*v);
  }
  m_updating = false;
  revalidate();
}

void ConfigForm::writeField(Field& f, const ConfigValue& value) {
  const QString text = displayText(*f.key, value);
  if (f.line) {
    f.line->setText(text);
  } else if (f.lines) {
    f.lines->setPlainText(text);
  } else if (f.check) {
    f.check->setChecked(std::get<bool>(value));
  } else if (f.combo) {
    f.combo->setCurrentIndex(f.combo->findData(text));
  }
  // Setting the same text emits nothing; the field must still reflect the value.
  parseField(f);
}

void ConfigForm::parseField(Field& f) {
  const ConfigKey& key = *f.key;
  f.value.reset();
  f.ownError.clear();
  ConfigValue value;
  switch (key.type) {
    case ConfigType::Integer:
    case ConfigType::Float: {
      // The text goes through the command line's own --set parsing, so "1e-4", "1_000" and
      // "2.5 for an integer" are read, accepted and refused exactly as attnlab-cli does.
      core::RunConfig scratch;
      try {
        core::applyOverride(scratch, key.path + "=" + f.line->text().toStdString());
      } catch (const ConfigError& e) {
        f.ownError = f.path + QStringLiteral(": ") + qs(e.reason());
        return;
      }
      value = key.get(scratch);
      break;
    }
    case ConfigType::Boolean:
      value = f.check->isChecked();
      break;
    case ConfigType::Choice:
      value = f.combo->currentData().toString().toStdString();
      break;
    case ConfigType::String:
      // Taken as typed: a name or a path, with no TOML quoting to get wrong.
      value = f.line->text().toStdString();
      break;
    case ConfigType::StringList: {
      const QString text = f.lines ? f.lines->toPlainText() : f.line->text();
      std::vector<std::string> items;
      const QStringList parts =
          f.lines ? text.split(QLatin1Char('\n')) : text.split(QLatin1Char(','));
      for (const QString& part : parts) {
        // Blank lines and stray commas are not items; free text keeps its inner spaces.
        const QString item = f.lines ? part : part.trimmed();
        if (!item.trimmed().isEmpty()) items.push_back(item.toStdString());
      }
      value = std::move(items);
      break;
    }
  }
  if (const std::string bad = key.constraint.check(value); !bad.empty()) {
    f.ownError = f.path + QStringLiteral(": ") + qs(bad);
    return;
  }
  f.value = std::move(value);
}

void ConfigForm::onFieldChanged(Field& f) {
  parseField(f);
  if (f.variant) syncVariant(*f.variant);
  if (m_updating) return;
  revalidate();
  emit edited();
}

void ConfigForm::onVariantSwitched(Variant& v, bool on) {
  if (!v.enabling || !v.enabling->combo) return;
  QComboBox* combo = v.enabling->combo;
  if (on) {
    QString value = v.onValue;
    if (value.isEmpty()) {
      for (int i = 0; i < combo->count() && value.isEmpty(); ++i) {
        if (combo->itemData(i).toString() != v.offValue) value = combo->itemData(i).toString();
      }
    }
    combo->setCurrentIndex(combo->findData(value));
  } else {
    combo->setCurrentIndex(combo->findData(v.offValue));
  }
}

void ConfigForm::syncVariant(Variant& v) {
  const bool on = v.isOn();
  if (v.enabling && v.enabling->combo) {
    const QString current = v.enabling->combo->currentData().toString();
    if (current != v.offValue) v.onValue = current;
    const QSignalBlocker block(v.toggle);
    v.toggle->setChecked(on);
  }
  if (v.options) {
    // Options with a problem stay in sight even when the mechanism is off.
    bool problem = false;
    for (Field* f : v.fields) {
      if (f != v.enabling && !f->messages().isEmpty()) problem = true;
    }
    v.options->setVisible(on || problem);
  }
}

core::RunConfig ConfigForm::assemble() const {
  core::RunConfig config = m_base;
  for (const auto& f : m_fields) {
    if (f->value) f->key->set(config, *f->value);
  }
  return config;
}

void ConfigForm::revalidate() {
  const core::RunConfig config = assemble();
  for (const auto& f : m_fields) f->ruleErrors.clear();
  m_otherError.clear();

  bool anyError = false;
  for (const auto& f : m_fields) anyError = anyError || !f->ownError.isEmpty();
  // Every rule, not only the first failing one as validateRunConfig() reports, so all the
  // problems are in sight at once. A rule over a key that does not parse is left out: it
  // would judge the previous value.
  for (const auto& rule : core::configRules()) {
    bool blocked = false;
    for (const auto& path : rule.keys) {
      const Field* f = field(qs(path));
      if (f && !f->ownError.isEmpty()) blocked = true;
    }
    if (blocked) continue;
    const std::string bad = rule.check(config);
    if (bad.empty()) continue;
    anyError = true;
    const QString where = qs(rule.keys.front());
    const QString message = where + QStringLiteral(": ") + qs(bad);
    if (Field* at = field(where)) {
      at->ruleErrors << message;
    } else {
      m_otherError = message;
    }
  }
  if (!anyError) {
    // The command line's verdict on the same config: it must agree before the config goes
    // anywhere.
    try {
      core::validateRunConfig(config);
    } catch (const ConfigError& e) {
      const QString message = qs(e.where()) + QStringLiteral(": ") + qs(e.reason());
      if (Field* at = field(qs(e.where()))) {
        at->ruleErrors << message;
      } else {
        m_otherError = message;
      }
      anyError = true;
    }
  }

  for (const auto& f : m_fields) refreshField(*f);
  for (const auto& v : m_variants) syncVariant(*v);
  refreshSectionMarks();

  const bool valid = !anyError && m_otherError.isEmpty();
  if (valid != m_valid) {
    m_valid = valid;
    emit validityChanged(valid);
  }
}

void ConfigForm::refreshField(Field& f) {
  const QStringList messages = f.messages();
  const bool invalid = !messages.isEmpty();
  f.error->setText(messages.join(QLatin1Char('\n')));
  f.error->setVisible(invalid);
  QString style;
  if (invalid) {
    if (f.check) {
      style = QStringLiteral("QCheckBox { color: %1; }").arg(kErrorColour);
    } else {
      style = QStringLiteral("%1 { border: 1px solid %2; border-radius: 3px; padding: 2px; }")
                  .arg(QString::fromLatin1(f.editor->metaObject()->className()), kErrorColour);
    }
  }
  if (f.editor->styleSheet() != style) f.editor->setStyleSheet(style);
  f.reset->setVisible(!(f.value && *f.value == f.key->defaultValue));
}

void ConfigForm::refreshSectionMarks() {
  for (int row = 0; row < m_sectionList->count(); ++row) {
    QListWidgetItem* item = m_sectionList->item(row);
    const QString section = item->data(Qt::UserRole).toString();
    int problems = 0;
    for (const auto& f : m_fields) {
      if (f->page == section) problems += static_cast<int>(f->messages().size());
    }
    item->setText(problems ? QStringLiteral("%1  (%2)").arg(sectionTitle(section)).arg(problems)
                           : sectionTitle(section));
    item->setForeground(problems ? QBrush(QColor(kErrorColour)) : QBrush());
    item->setToolTip(problems ? QStringLiteral("%1 problem(s) on this page").arg(problems)
                              : QString());
  }
}

core::RunConfig ConfigForm::config() const {
  return assemble();
}

bool ConfigForm::isValid() const {
  return m_valid;
}

QString ConfigForm::errorFor(const QString& keyPath) const {
  const Field* f = field(keyPath);
  return f ? f->messages().join(QLatin1Char('\n')) : QString();
}

QStringList ConfigForm::errors() const {
  QStringList out;
  for (const auto& f : m_fields) out << f->messages();
  if (!m_otherError.isEmpty()) out << m_otherError;
  return out;
}

QWidget* ConfigForm::editorFor(const QString& keyPath) const {
  const Field* f = field(keyPath);
  return f ? f->editor : nullptr;
}

QString ConfigForm::fieldText(const QString& keyPath) const {
  const Field* f = field(keyPath);
  if (!f) return {};
  if (f->line) return f->line->text();
  if (f->lines) return f->lines->toPlainText().split(QLatin1Char('\n')).join(QStringLiteral(", "));
  if (f->check) return f->check->isChecked() ? QStringLiteral("true") : QStringLiteral("false");
  return f->combo->currentData().toString();
}

QStringList ConfigForm::sections() const {
  return m_sections;
}

QString ConfigForm::sectionTitle(const QString& section) const {
  if (section == kVariantRoot) return QStringLiteral("Attention variants");
  if (section.isEmpty()) return QStringLiteral("General");
  return capitalised(section);
}

QString ConfigForm::currentSection() const {
  const QListWidgetItem* item = m_sectionList->currentItem();
  return item ? item->data(Qt::UserRole).toString() : QString();
}

void ConfigForm::showSection(const QString& section) {
  const int row = static_cast<int>(m_sections.indexOf(section));
  if (row >= 0) m_sectionList->setCurrentRow(row);
}

void ConfigForm::focusKey(const QString& keyPath) {
  Field* f = field(keyPath);
  if (!f) return;
  showSection(f->page);
  if (auto* scroll = qobject_cast<QScrollArea*>(m_pages->currentWidget())) {
    scroll->ensureWidgetVisible(f->editor);
  }
  f->editor->setFocus(Qt::OtherFocusReason);
}

QStringList ConfigForm::variants() const {
  QStringList ids;
  for (const auto& v : m_variants) ids << v->id;
  return ids;
}

QCheckBox* ConfigForm::variantSwitch(const QString& id) const {
  for (const auto& v : m_variants) {
    if (v->id == id) return v->toggle;
  }
  return nullptr;
}

}  // namespace attnlab::app
