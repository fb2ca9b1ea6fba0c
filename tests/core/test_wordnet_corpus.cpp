#include "core/data/wordnet_corpus.h"
#include "core/errors/error.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

namespace fs = std::filesystem;
using namespace attnlab::core;

class TestWordNetCorpus : public QObject {
  Q_OBJECT
 private slots:
  void extractsGlossesFromAFixture() {
    QTemporaryDir dir;
    const fs::path d = dir.path().toStdString();
    // Header lines start with two spaces; synset lines carry the gloss after " | ".
    std::ofstream(d / "data.noun") << "  1 This software and database is licensed\n"
                                   << "00005930 03 n 01 dwarf 0 001 @ 00004475 n 0000 | a plant "
                                      "or animal that is atypically small  \n";
    std::ofstream(d / "data.verb") << "00001740 29 v 04 breathe 0 | draw air into, and expel "
                                      "out of, the lungs; \"I can breathe better now\"  \n";
    std::ofstream(d / "data.adj") << "00001740 00 a 01 caf\xE9 0 | a caf\xE9 word  \n";
    std::ofstream(d / "data.adv") << "no bar on this line\n";
    const fs::path out = d / "corpus.txt";
    const auto stats = writeWordNetGlosses(d, out);
    QCOMPARE(stats.lines, std::uint64_t(3));
    QCOMPARE(stats.words, std::uint64_t(8 + 14 + 3));
    std::ifstream in(out);
    std::string l1, l2, l3;
    std::getline(in, l1), std::getline(in, l2), std::getline(in, l3);
    QCOMPARE(l1, std::string("a plant or animal that is atypically small"));
    QCOMPARE(l2, std::string(
                     "draw air into, and expel out of, the lungs; \"I can breathe better now\""));
    QCOMPARE(l3, std::string("a caf\xC3\xA9 word"));  // converted from Latin-1
  }

  void missingFileNamesItAndThePackage() {
    QTemporaryDir dir;
    try {
      writeWordNetGlosses(dir.path().toStdString(), dir.filePath("x.txt").toStdString());
      QFAIL("an empty folder must be rejected");
    } catch (const attnlab::DataError& e) {
      const QString msg = e.what();
      QVERIFY2(msg.contains("data.noun") && msg.contains("wordnet-base"), e.what());
    }
  }

  // The real corpus that Debian's wordnet-base installs (platform-facts: 117,659 glosses,
  // about 1.46 million words).
  void realWordNetHasTheDocumentedSize() {
    QTemporaryDir dir;
    const auto stats =
        writeWordNetGlosses(kDefaultWordNetDir, dir.filePath("wn.txt").toStdString());
    QCOMPARE(stats.lines, std::uint64_t(117659));
    QVERIFY2(stats.words > 1400000 && stats.words < 1520000, std::to_string(stats.words).c_str());
  }
};

QTEST_APPLESS_MAIN(TestWordNetCorpus)
#include "test_wordnet_corpus.moc"
