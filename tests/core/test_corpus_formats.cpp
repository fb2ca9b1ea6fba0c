// Corpus formats users have: gzip and zstd files (also several members/frames), JSON lines
// (plain and compressed, any text field), bad records, damaged compressed files, and a file
// larger than the reader's buffers. The plain-text path is the reference: the same text in
// any format must give a byte-identical corpus.txt and the same fingerprint.
#include "core/data/corpus_source.h"
#include "core/errors/error.h"

#include <QTemporaryDir>
#include <QtTest>

#include <zlib.h>
#include <zstd.h>
#include <nlohmann/json.hpp>

#include <cstdint>
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

/// A gzip file with one member per part (gzopen's "a" mode appends a member, like `cat`).
void writeGzip(const fs::path& p, const std::vector<std::string>& parts) {
  fs::create_directories(p.parent_path());
  bool first = true;
  for (const std::string& part : parts) {
    gzFile f = gzopen(p.c_str(), first ? "wb" : "ab");
    QVERIFY(f != nullptr);
    if (!part.empty()) {
      QCOMPARE(gzwrite(f, part.data(), static_cast<unsigned>(part.size())),
               static_cast<int>(part.size()));
    }
    QCOMPARE(gzclose(f), Z_OK);
    first = false;
  }
}

std::string gzipBytes(const fs::path& scratch, const std::string& text) {
  writeGzip(scratch, {text});
  return readAll(scratch);
}

/// One zstd frame per part, one after another (what `cat a.zst b.zst` gives).
std::string zstdBytes(const std::vector<std::string>& parts, int level = 3) {
  std::string out;
  for (const std::string& part : parts) {
    std::string frame(ZSTD_compressBound(part.size()), '\0');
    const std::size_t n =
        ZSTD_compress(frame.data(), frame.size(), part.data(), part.size(), level);
    if (ZSTD_isError(n) != 0) throw std::runtime_error(ZSTD_getErrorName(n));
    out.append(frame, 0, n);
  }
  return out;
}

CorpusConfig textConfig(std::vector<std::string> paths,
                        InvalidUtf8Policy mode = InvalidUtf8Policy::Skip) {
  CorpusConfig c;
  c.source = CorpusSource::Text;
  c.paths = std::move(paths);
  c.invalidUtf8 = mode;
  return c;
}

template <typename E, typename F>
E expectThrow(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e;
  }
  throw std::runtime_error("expected an exception that did not come");
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// Text with what the line checks care about: CRLF, tabs, runs of spaces, blank lines,
/// non-ASCII UTF-8.
const std::vector<std::string> kParagraphs = {"The cat sat on the mat.",
                                              "  Tabs\tand   runs  of spaces\r",
                                              "",
                                              "caf\xC3\xA9 cr\xC3\xA8me br\xC3\xBBl\xC3\xA9"
                                              "e",
                                              "a line with a \"quote\" and a back\\slash",
                                              "   ",
                                              "the last line"};

std::string joined(const std::vector<std::string>& lines, std::size_t from, std::size_t to) {
  std::string s;
  for (std::size_t i = from; i < to; ++i) s += lines[i] + (i + 1 < to ? "\n" : "");
  return s;
}

/// JSON lines whose records hold kParagraphs two or three at a time under `field`.
std::string jsonLines(const std::string& field) {
  std::string out;
  const std::vector<std::pair<std::size_t, std::size_t>> groups = {{0, 2}, {2, 5}, {5, 7}};
  int id = 0;
  for (const auto& [from, to] : groups) {
    nlohmann::ordered_json record;
    record["id"] = id++;
    record[field] = joined(kParagraphs, from, to);
    out += record.dump() + "\n";
  }
  return out;
}

/// Deterministic pseudo-random words: compresses poorly, so a few MiB of it stay over 2 MiB
/// compressed.
struct WordGenerator {
  std::uint64_t state = 0x9E3779B97F4A7C15ULL;
  std::uint64_t next() {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 33;
  }
  std::string line(std::size_t words) {
    std::string s;
    for (std::size_t w = 0; w < words; ++w) {
      if (w > 0) s += ' ';
      const std::size_t len = 2 + next() % 9;
      for (std::size_t i = 0; i < len; ++i) s += static_cast<char>('a' + next() % 26);
    }
    return s;
  }
};

}  // namespace

class TestCorpusFormats : public QObject {
  Q_OBJECT
 private slots:
  void init() { m_dir = std::make_unique<QTemporaryDir>(); }

  void compressedTextGivesTheSameCorpus() {
    const std::string text = joined(kParagraphs, 0, kParagraphs.size()) + "\n";
    const fs::path plain = root() / "in" / "plain.txt";
    writeFile(plain, text);
    const CorpusBuild ref = buildCorpus(textConfig({plain.string()}), root() / "ref");
    QCOMPARE(ref.stats.linesKept, std::uint64_t(5));  // 7 lines, 2 of them blank
    QCOMPARE(ref.stats.linesEmpty, std::uint64_t(2));

    const fs::path gz = root() / "in" / "one.txt.gz";
    writeGzip(gz, {text});
    // Two members split inside a line: the line must come out whole.
    const fs::path gz2 = root() / "in" / "two.gz";
    writeGzip(gz2, {text.substr(0, 30), text.substr(30)});
    // Zero padding after the last member (tape blocks) is ignored, as gzip -d does.
    const fs::path padded = root() / "in" / "padded.gz";
    writeFile(padded, gzipBytes(root() / "scratch.gz", text) + std::string(512, '\0'));
    const fs::path zst = root() / "in" / "one.zst";
    writeFile(zst, zstdBytes({text}));
    const fs::path zst2 = root() / "in" / "two.txt.zst";
    writeFile(zst2, zstdBytes({text.substr(0, 41), "", text.substr(41)}, 19));
    for (const fs::path& f : {gz, gz2, padded, zst, zst2}) {
      const CorpusBuild b = buildCorpus(textConfig({f.string()}), root() / f.filename());
      QVERIFY2(readAll(b.textPath) == readAll(ref.textPath), f.c_str());
      QCOMPARE(b.fingerprint, ref.fingerprint);
      QCOMPARE(b.stats.linesKept, ref.stats.linesKept);
      QCOMPARE(b.stats.linesEmpty, ref.stats.linesEmpty);
      QCOMPARE(b.stats.words, ref.stats.words);
      QCOMPARE(b.stats.bytes, ref.stats.bytes);
      QVERIFY(b.issues.empty());
    }
  }

  void jsonLinesGiveOneLinePerParagraph() {
    const fs::path plain = root() / "in" / "plain.txt";
    writeFile(plain, joined(kParagraphs, 0, kParagraphs.size()));
    const CorpusBuild ref = buildCorpus(textConfig({plain.string()}), root() / "ref");

    const std::string records = jsonLines("text");
    const fs::path jsonl = root() / "in" / "a.jsonl";
    writeFile(jsonl, records);
    const fs::path ndjson = root() / "in" / "a.NDJSON";
    writeFile(ndjson, records);
    const fs::path jsonlGz = root() / "in" / "a.jsonl.gz";
    writeGzip(jsonlGz, {records});
    const fs::path jsonlZst = root() / "in" / "a.jsonl.zst";
    writeFile(jsonlZst, zstdBytes({records}));
    for (const fs::path& f : {jsonl, ndjson, jsonlGz, jsonlZst}) {
      const CorpusBuild b = buildCorpus(textConfig({f.string()}), root() / f.filename());
      QVERIFY2(readAll(b.textPath) == readAll(ref.textPath), f.c_str());
      QCOMPARE(b.fingerprint, ref.fingerprint);
      QCOMPARE(b.stats.linesKept, std::uint64_t(5));  // 3 records, 7 paragraphs, 2 blank
      QCOMPARE(b.stats.linesEmpty, std::uint64_t(2));
      QVERIFY(b.issues.empty());
    }

    // Another field name, through corpus.text_field.
    const fs::path body = root() / "in" / "body.jsonl.zst";
    writeFile(body, zstdBytes({jsonLines("body")}));
    CorpusConfig c = textConfig({body.string()});
    c.textField = "body";
    const CorpusBuild b = buildCorpus(c, root() / "body");
    QCOMPARE(readAll(b.textPath), readAll(ref.textPath));
    QCOMPARE(b.fingerprint, ref.fingerprint);
  }

  void formatKeyOverridesTheName() {
    const fs::path records = root() / "in" / "records.txt";
    writeFile(records, "{\"text\": \"one\\ntwo\"}\n\n{\"text\": \"three\"}\n");
    CorpusConfig c = textConfig({records.string()});
    c.format = CorpusFormat::Jsonl;
    QCOMPARE(readAll(buildCorpus(c, root() / "j").textPath), std::string("one\ntwo\nthree\n"));

    const fs::path named = root() / "in" / "named.jsonl";
    writeFile(named, "{\"text\": \"x\"}\n");
    c = textConfig({named.string()});
    c.format = CorpusFormat::Text;
    QCOMPARE(readAll(buildCorpus(c, root() / "t").textPath), std::string("{\"text\": \"x\"}\n"));
  }

  void badJsonLinesAreSkippedWithReasons() {
    const fs::path f = root() / "in" / "bad.jsonl";
    writeFile(f,
              "{\"text\": \"good one\"}\n"
              "not json at all\n"
              "[1, 2]\n"
              "{\"id\": 1, \"title\": \"t\", \"body\": \"x\"}\n"
              "{\"text\": 5}\n"
              "\n"
              "{\"text\": \"caf\xE9\"}\n"
              "{\"text\": \"good\\ttwo\"}\r\n");
    const CorpusBuild b = buildCorpus(textConfig({f.string()}), root() / "out");
    QCOMPARE(readAll(b.textPath), std::string("good one\ngood two\n"));
    QCOMPARE(b.stats.linesKept, std::uint64_t(2));
    QCOMPARE(b.stats.linesSkipped, std::uint64_t(5));
    QCOMPARE(b.stats.linesEmpty, std::uint64_t(1));
    QCOMPARE(b.issues.size(), std::size_t(5));
    const std::vector<std::pair<std::uint64_t, std::string>> expected = {
        {2, "not JSON: "},
        {3, "not a JSON object but an array"},
        {4, "no \"text\" field (fields: id, title, body); set corpus.text_field"},
        {5, "\"text\" is a number, not a string"},
        {7, "invalid UTF-8 at byte"}};
    for (std::size_t i = 0; i < expected.size(); ++i) {
      QCOMPARE(b.issues[i].where(), f.string() + ":" + std::to_string(expected[i].first));
      QVERIFY2(contains(b.issues[i].reason, expected[i].second), b.issues[i].reason.c_str());
    }

    const auto e = expectThrow<attnlab::DataError>(
        [&] { buildCorpus(textConfig({f.string()}, InvalidUtf8Policy::Reject), root() / "rej"); });
    QCOMPARE(e.where(), f.string() + ":2");
    QVERIFY2(contains(e.reason(), "not JSON"), e.what());
    QVERIFY(!fs::exists(root() / "rej" / "corpus.txt"));
    QVERIFY(fs::is_empty(root() / "rej"));
  }

  void allRecordsBadNamesTheFirst() {
    const fs::path f = root() / "in" / "none.jsonl";
    writeFile(f, "{\"body\": \"a\"}\n{\"body\": \"b\"}\n");
    const auto e = expectThrow<attnlab::DataError>(
        [&] { buildCorpus(textConfig({f.string()}), root() / "out"); });
    QVERIFY2(contains(e.reason(), "2 JSON lines without usable text"), e.what());
    QVERIFY2(contains(e.reason(), f.string() + ":1: no \"text\" field (fields: body)"), e.what());
  }

  void damagedCompressedFilesFailAndLeaveTheOldCorpus() {
    std::string text;
    WordGenerator gen;
    for (int i = 0; i < 20000; ++i) text += gen.line(12) + "\n";  // several zstd blocks
    const std::string gz = gzipBytes(root() / "scratch.gz", text);
    const std::string zst = zstdBytes({text});
    std::string corruptGz = gz;
    for (std::size_t i = gz.size() / 2; i < gz.size() / 2 + 64; ++i) corruptGz[i] ^= 0x5A;
    struct Case {
      std::string name, bytes, reason;
    };
    const std::vector<Case> cases = {
        {"cut.txt.gz", gz.substr(0, gz.size() / 2), "truncated gzip stream after line "},
        {"cut.jsonl.zst", zst.substr(0, zst.size() / 2), "truncated zstd stream after line "},
        {"plain.gz", text, "is named .gz but is not gzip data"},
        {"plain.zst", text, "is named .zst but is not zstd data"},
        {"empty.gz", "", "is named .gz but is not gzip data"},
        {"corrupt.gz", corruptGz, "corrupt gzip data after line "},
        {"no-trailer.gz", gz.substr(0, gz.size() - 4), "truncated gzip stream after line "}};
    const fs::path out = root() / "out";
    writeFile(out / "corpus.txt", "old corpus\n");
    for (const Case& k : cases) {
      const fs::path f = root() / "in" / k.name;
      writeFile(f, k.bytes);
      const auto e =
          expectThrow<attnlab::DataError>([&] { buildCorpus(textConfig({f.string()}), out); });
      QCOMPARE(e.where(), f.string());
      QVERIFY2(contains(e.reason(), k.reason), e.what());
      QCOMPARE(readAll(out / "corpus.txt"), std::string("old corpus\n"));
      QCOMPARE(std::distance(fs::directory_iterator(out), fs::directory_iterator()), 1L);
    }
  }

  void compressedDataUnderAPlainNameIsCalledSo() {
    const fs::path f = root() / "in" / "notes.txt";
    writeFile(f, gzipBytes(root() / "scratch.gz", "hello\n"));
    const auto e = expectThrow<attnlab::DataError>(
        [&] { buildCorpus(textConfig({f.string()}), root() / "out"); });
    QCOMPARE(e.where(), f.string());
    QVERIFY2(contains(e.reason(), "looks like gzip data"), e.what());
  }

  void largeCompressedFilesStream() {
    // About 5 MiB of text with one line longer than the reader's 1 MiB chunks.
    WordGenerator gen;
    std::string text;
    std::uint64_t lines = 0;
    std::uint64_t words = 0;
    for (int i = 0; i < 60000; ++i) {
      const std::size_t n = i == 30000 ? 250000 : 1 + gen.next() % 20;
      text += gen.line(n) + "\n";
      ++lines;
      words += n;
    }
    const fs::path plain = root() / "in" / "big.txt";
    writeFile(plain, text);
    const fs::path gz = root() / "in" / "big.txt.gz";
    writeGzip(gz, {text});
    const fs::path zst = root() / "in" / "big.jsonl.zst";
    std::string records;
    for (std::size_t at = 0; at < text.size();) {
      const std::size_t nl = text.find('\n', at);
      records += nlohmann::json{{"text", text.substr(at, nl - at)}}.dump() + "\n";
      at = nl + 1;
    }
    writeFile(zst, zstdBytes({records}, 1));
    QVERIFY(fs::file_size(gz) > (2u << 20));
    QVERIFY(fs::file_size(zst) > (2u << 20));

    const CorpusBuild ref = buildCorpus(textConfig({plain.string()}), root() / "ref");
    QCOMPARE(ref.stats.linesKept, lines);
    QCOMPARE(ref.stats.words, words);
    for (const fs::path& f : {gz, zst}) {
      const CorpusBuild b = buildCorpus(textConfig({f.string()}), root() / f.filename());
      QCOMPARE(b.stats.linesKept, lines);
      QCOMPARE(b.stats.words, words);
      QCOMPARE(b.stats.bytes, std::uint64_t(text.size()));
      QCOMPARE(b.fingerprint, ref.fingerprint);
    }
  }

 private:
  fs::path root() const { return fs::path(m_dir->path().toStdString()); }
  std::unique_ptr<QTemporaryDir> m_dir;
};

QTEST_GUILESS_MAIN(TestCorpusFormats)
#include "test_corpus_formats.moc"
