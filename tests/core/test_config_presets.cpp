// The preset lookup shared by attnlab-cli (--config NAME) and the app (File > New run):
// its folders in order, names, and what --config accepts. The installed layout (a copy of
// the program under a private prefix) is tested in tests/app/test_cli_install_layout.cpp.
#include "core/config/config_presets.h"
#include "core/errors/error.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <fstream>

namespace fs = std::filesystem;
using namespace attnlab::core;

namespace {

const fs::path kSourceConfigs = fs::path(ATTNLAB_SOURCE_DIR) / "resources" / "configs";

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

class TestConfigPresets : public QObject {
  Q_OBJECT
 private slots:
  void init() { qunsetenv("ATTNLAB_CONFIG_DIR"); }
  void cleanup() { qunsetenv("ATTNLAB_CONFIG_DIR"); }

  // This test runs from the build's bin/, so the source tree's presets are searched, after
  // the installed place next to it (<build>/share/attnlab/configs, absent).
  void fromTheBuildFolderTheSourcePresetsAreSearched() {
    const auto path = configPresetSearchPath();
    QCOMPARE(path.size(), std::size_t(2));
    QCOMPARE(path[0], fs::path(ATTNLAB_BINARY_DIR) / "share" / "attnlab" / "configs");
    QCOMPARE(path[1], kSourceConfigs);
    const auto tiny = findConfigPreset("tiny");
    QVERIFY(tiny.has_value());
    QVERIFY(fs::equivalent(*tiny, kSourceConfigs / "tiny.toml"));
    QVERIFY(findConfigPreset("tiny.toml").has_value());
    const auto names = configPresetNames();
    QVERIFY(contains(names, "tiny") && contains(names, "bert-base"));
    QVERIFY(std::is_sorted(names.begin(), names.end()));
  }

  // $ATTNLAB_CONFIG_DIR comes first: its file replaces a shipped preset of the same name.
  void theEnvironmentFolderComesFirst() {
    QTemporaryDir own;
    const fs::path dir = own.path().toStdString();
    std::ofstream(dir / "tiny.toml") << "# mine\n";
    std::ofstream(dir / "extra.toml") << "# extra\n";
    qputenv("ATTNLAB_CONFIG_DIR", own.path().toUtf8());
    QCOMPARE(configPresetSearchPath().front(), dir);
    QVERIFY(fs::equivalent(*findConfigPreset("tiny"), dir / "tiny.toml"));
    const auto names = configPresetNames();
    QCOMPARE(std::count(names.begin(), names.end(), std::string("tiny")), 1L);
    QVERIFY(contains(names, "extra"));
  }

  void aFileIsTakenAsItIs() {
    QTemporaryDir dir;
    const fs::path file = fs::path(dir.path().toStdString()) / "tiny";
    std::ofstream(file) << "[run]\n";
    QCOMPARE(resolveConfigArgument(file), file);
  }

  void aNameWithAFolderIsNeverAPreset() {
    QVERIFY(!findConfigPreset("configs/tiny").has_value());
    QVERIFY(!findConfigPreset("../tiny").has_value());
    QVERIFY(!findConfigPreset("").has_value());
    QVERIFY_THROWS_EXCEPTION(attnlab::ConfigError, resolveConfigArgument("no/such/tiny"));
  }

  void anUnknownNameListsPresetsAndFolders() {
    try {
      resolveConfigArgument("no-such-preset");
      QFAIL("expected a ConfigError");
    } catch (const attnlab::ConfigError& e) {
      const std::string message = e.what();
      QVERIFY2(message.find("no-such-preset: no such file, and no preset of that name") == 0,
               e.what());
      QVERIFY2(message.find(" tiny") != std::string::npos, e.what());
      QVERIFY2(message.find(kSourceConfigs.string()) != std::string::npos, e.what());
      QVERIFY2(message.find("share/attnlab/configs (not found)") != std::string::npos, e.what());
    }
  }

  void aFolderIsNotAConfig() {
    QTemporaryDir dir;
    QVERIFY_THROWS_EXCEPTION(attnlab::ConfigError, resolveConfigArgument(dir.path().toStdString()));
  }
};

QTEST_GUILESS_MAIN(TestConfigPresets)
#include "test_config_presets.moc"
