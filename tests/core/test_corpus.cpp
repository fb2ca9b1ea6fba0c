// The corpus step: sources, line checks with file:line reports, errors, fingerprints.
#include "core/data/corpus_source.h"
#include "core/errors/error.h"

#include <QTemporaryDir>
#include <QtTest>

#include <unistd.h>

#include <fstream>

namespace fs = std::filesystem;
using namespace attnlab::core;

namespace {

void writeFile(const fs::path& p, const std::string& bytes) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << bytes;
}

std::string readAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

CorpusConfig textConfig(std::vector<std::string> paths,
                        InvalidUtf8Policy mode = InvalidUtf8Policy::Skip) {
  CorpusConfig c;
  c.source = CorpusSource::Text;
  c.paths = std::move(paths);
  c.invalidUtf8 = mode;
  return c;
}

/// Runs `f`, which must throw E; returns the error for inspection.
template <typename E, typename F>
E expectThrow(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e;
  }
  throw std::runtime_error("expected an exception that did not come");
}

}  // namespace

class TestCorpus : public QObject {
  Q_OBJECT
 private slots:
  void init() { m_dir = std::make_unique<QTemporaryDir>(); }

  void invalidUtf8LineIsReportedAndSkipped() {
    const fs::path a = root() / "a.txt";
    writeFile(a, "first line\nsecond caf\xE9 line\r\n\n  third \t line  \n");
    const auto b = buildCorpus(textConfig({a.string()}), root() / "out");
    QCOMPARE(b.stats.files, std::uint64_t(1));
    QCOMPARE(b.stats.linesKept, std::uint64_t(2));
    QCOMPARE(b.stats.linesSkipped, std::uint64_t(1));
    QCOMPARE(b.stats.linesEmpty, std::uint64_t(1));
    QCOMPARE(b.stats.words, std::uint64_t(4));
    QCOMPARE(b.issues.size(), size_t(1));
    QCOMPARE(b.issues[0].where(), a.string() + ":2");
    QVERIFY2(b.issues[0].reason.find("invalid UTF-8 at byte 11") != std::string::npos,
             b.issues[0].reason.c_str());
    QCOMPARE(readAll(b.textPath), std::string("first line\nthird line\n"));
    QCOMPARE(b.stats.bytes, std::uint64_t(22));
  }

  void invalidUtf8LineIsRejected() {
    const fs::path a = root() / "a.txt";
    writeFile(a, "fine\nalso fine\nbad \xC0\xAF here\nnever read\n");
    const auto e = expectThrow<attnlab::DataError>(
        [&] { buildCorpus(textConfig({a.string()}, InvalidUtf8Policy::Reject), root() / "out"); });
    QCOMPARE(e.where(), a.string() + ":3");
    QVERIFY2(std::string(e.what()).find("invalid UTF-8") != std::string::npos, e.what());
    QVERIFY(!fs::exists(root() / "out" / "corpus.txt"));
  }

  void controlCharactersAreBinaryLines() {
    const fs::path a = root() / "a.txt";
    writeFile(a, "ok one\nescape \x1b[0m here\nok two\tand tab\n");
    const auto b = buildCorpus(textConfig({a.string()}), root() / "out");
    QCOMPARE(b.stats.linesKept, std::uint64_t(2));
    QCOMPARE(b.issues.size(), size_t(1));
    QCOMPARE(b.issues[0].line, std::uint64_t(2));
    QVERIFY2(b.issues[0].reason.find("control character 0x1B") != std::string::npos,
             b.issues[0].reason.c_str());
    QCOMPARE(readAll(b.textPath), std::string("ok one\nok two and tab\n"));
  }

  void reportsAreCappedButCounted() {
    std::string text;
    for (int i = 0; i < 30; ++i) text += "bad \xFF line\ngood line\n";
    const fs::path a = root() / "a.txt";
    writeFile(a, text);
    const auto b = buildCorpus(textConfig({a.string()}), root() / "out");
    QCOMPARE(b.stats.linesSkipped, std::uint64_t(30));
    QCOMPARE(b.issues.size(), kMaxReportedIssues);
    QCOMPARE(b.issues.back().line, std::uint64_t(39));
  }

  void binaryFileIsAnError() {
    const fs::path good = root() / "good.txt";
    const fs::path bin = root() / "image.png";
    writeFile(good, "some text\n");
    writeFile(bin, std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16));
    for (const auto mode : {InvalidUtf8Policy::Skip, InvalidUtf8Policy::Reject}) {
      const auto e = expectThrow<attnlab::DataError>([&] {
        buildCorpus(textConfig({good.string(), bin.string()}, mode), root() / "out");
      });
      QCOMPARE(e.where(), bin.string());
      QVERIFY2(std::string(e.what()).find("binary file") != std::string::npos, e.what());
    }
  }

  void emptyCorpusIsAnError() {
    const fs::path a = root() / "blank.txt";
    writeFile(a, "\n   \n\t\n");
    const auto e = expectThrow<attnlab::DataError>(
        [&] { buildCorpus(textConfig({a.string()}), root() / "out"); });
    QCOMPARE(e.where(), a.string());
    QVERIFY2(std::string(e.what()).find("empty") != std::string::npos, e.what());
    writeFile(a, "");
    expectThrow<attnlab::DataError>([&] { buildCorpus(textConfig({a.string()}), root() / "o"); });
  }

  void corpusWithNoValidLinesSaysWhy() {
    const fs::path a = root() / "latin1.txt";
    writeFile(a, "caf\xE9\nna\xEFve\n\x01\x02\x03\n");
    const auto e = expectThrow<attnlab::DataError>(
        [&] { buildCorpus(textConfig({a.string()}), root() / "out"); });
    const std::string msg = e.what();
    QVERIFY2(msg.find("no valid lines") != std::string::npos, e.what());
    QVERIFY2(msg.find("all 3 non-blank lines were rejected") != std::string::npos, e.what());
    QVERIFY2(msg.find("2 invalid UTF-8, 1 with control characters") != std::string::npos, e.what());
    QVERIFY2(msg.find(a.string() + ":1") != std::string::npos, e.what());
  }

  void missingPathIsAnError() {
    const std::string missing = (root() / "nowhere" / "x.txt").string();
    const auto e = expectThrow<attnlab::DataError>(
        [&] { buildCorpus(textConfig({missing}), root() / "out"); });
    QCOMPARE(e.where(), missing);
    QVERIFY2(std::string(e.what()).find("does not exist") != std::string::npos, e.what());
  }

  void folderWithoutFilesIsAnError() {
    fs::create_directories(root() / "empty" / "sub");
    const auto e = expectThrow<attnlab::DataError>(
        [&] { buildCorpus(textConfig({(root() / "empty").string()}), root() / "out"); });
    QCOMPARE(e.where(), (root() / "empty").string());
    QVERIFY2(std::string(e.what()).find("no regular files") != std::string::npos, e.what());
  }

  void folderIsReadRecursivelyInSortedOrder() {
    const fs::path f = root() / "texts";
    writeFile(f / "b.txt", "from b\n");
    writeFile(f / "a" / "z.txt", "from a/z\n");
    writeFile(f / "c" / "d" / "e.txt", "from c/d/e\n");
    writeFile(f / "a.txt", "from a.txt\n");
    const auto files = listCorpusFiles(textConfig({f.string()}));
    QCOMPARE(files.size(), size_t(4));
    const auto b = buildCorpus(textConfig({f.string()}), root() / "out");
    QCOMPARE(b.stats.files, std::uint64_t(4));
    // Sorted by path: "a/z.txt" < "a.txt" < "b.txt" < "c/d/e.txt".
    QCOMPARE(readAll(b.textPath), std::string("from a/z\nfrom a.txt\nfrom b\nfrom c/d/e\n"));
  }

  void maxLinesCapsKeptLines() {
    const fs::path a = root() / "a.txt";
    writeFile(a, "one\ntwo\n\xFF\nthree\nfour\n");
    auto c = textConfig({a.string()});
    c.maxLines = 3;
    const auto b = buildCorpus(c, root() / "out");
    QCOMPARE(b.stats.linesKept, std::uint64_t(3));
    QCOMPARE(readAll(b.textPath), std::string("one\ntwo\nthree\n"));
  }

  void bomAndCrlfAreNormalised() {
    const fs::path a = root() / "a.txt";
    writeFile(a, "\xEF\xBB\xBFhello world\r\nsecond\r\n");
    const auto b = buildCorpus(textConfig({a.string()}), root() / "out");
    QCOMPARE(readAll(b.textPath), std::string("hello world\nsecond\n"));
  }

  void fingerprintFollowsContent() {
    const fs::path a = root() / "a.txt";
    writeFile(a, "alpha beta\ngamma\n");
    const auto b1 = buildCorpus(textConfig({a.string()}), root() / "o1");
    writeFile(a, "alpha  beta\r\n\ngamma\n");  // normalises to the same text
    const auto b2 = buildCorpus(textConfig({a.string()}), root() / "o2");
    QCOMPARE(b1.fingerprint, b2.fingerprint);
    writeFile(a, "alpha beta\ngamma!\n");
    const auto b3 = buildCorpus(textConfig({a.string()}), root() / "o3");
    QVERIFY(b3.fingerprint != b1.fingerprint);
    QVERIFY(!fs::exists(fs::path(b3.textPath.string() + ".tmp-" + std::to_string(getpid()))));
  }

  void wordnetSourceUsesTheGlosses() {
    const fs::path wn = root() / "wn";
    writeFile(wn / "data.noun", "  1 licence header\n00001 03 n 01 dwarf 0 | a small  thing  \n");
    writeFile(wn / "data.verb", "00002 29 v 01 go 0 | to move\n");
    writeFile(wn / "data.adj", "00003 00 a 01 x 0 | caf\xE9 style\n");
    writeFile(wn / "data.adv", "");
    CorpusConfig c;
    c.source = CorpusSource::Wordnet;
    c.wordnetDir = wn.string();
    const auto b = buildCorpus(c, root() / "out");
    QCOMPARE(b.stats.files, std::uint64_t(1));
    QCOMPARE(b.stats.linesKept, std::uint64_t(3));
    QCOMPARE(readAll(b.textPath), std::string("a small thing\nto move\ncaf\xC3\xA9 style\n"));
    QVERIFY(!fs::exists(root() / "out" / "wordnet_glosses.txt"));
  }

  void badSettingsAreConfigErrors() {
    const fs::path a = root() / "a.txt";
    writeFile(a, "x\n");
    // Unknown corpus.source / corpus.invalid_utf8 names cannot reach here: the schema
    // refuses them (test_config: unknownChoicesAreRefusedAtTheirKey).
    auto c = textConfig({});
    QCOMPARE(expectThrow<attnlab::ConfigError>([&] { buildCorpus(c, root() / "o"); }).where(),
             std::string("corpus.paths"));
  }

 private:
  fs::path root() const { return m_dir->path().toStdString(); }
  std::unique_ptr<QTemporaryDir> m_dir;
};

QTEST_APPLESS_MAIN(TestCorpus)
#include "test_corpus.moc"
