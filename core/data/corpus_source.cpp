#include "core/data/corpus_source.h"

#include "core/data/compressed_reader.h"
#include "core/data/data_files.h"
#include "core/data/hashing.h"
#include "core/data/jsonl_lines.h"
#include "core/data/text_encoding.h"
#include "core/data/wordnet_corpus.h"
#include "core/errors/error.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <system_error>

namespace attnlab::core {

namespace fs = std::filesystem;

namespace {

using InvalidLinePolicy = InvalidUtf8Policy;

std::string hexByte(unsigned char c) {
  std::array<char, 8> buf{};
  std::snprintf(buf.data(), buf.size(), "0x%02X", c);
  return buf.data();
}

/// Appends kept lines to the temporary corpus file and keeps the books.
class CorpusWriter {
 public:
  CorpusWriter(const fs::path& tmp, InvalidLinePolicy policy, std::int64_t maxLines,
               CorpusProgress progress)
      : m_tmp(tmp),
        m_out(tmp, std::ios::binary | std::ios::trunc),
        m_policy(policy),
        m_maxLines(maxLines),
        m_progress(std::move(progress)) {
    if (!m_out) throw DataError(tmp.string(), "cannot open for writing");
  }

  /// Bytes on disk of every file to read: progress is reported against it.
  void expectBytes(std::uint64_t total) { m_totalBytes = total; }

  bool full() const {
    return m_maxLines > 0 && m_build.stats.linesKept >= static_cast<std::uint64_t>(m_maxLines);
  }

  /// Reads one source file (plain, .gz or .zst); `name` is how reports refer to it.
  /// `jsonLines`: each line is a JSON record whose `textField` holds the text.
  void addFile(const fs::path& file, const std::string& name, bool jsonLines,
               const std::string& textField = {}) {
    if (full()) return;
    CorpusFileReader in(file, name);
    rejectBinary(in.head(kBinaryProbeBytes), name);
    ++m_build.stats.files;
    std::string line;
    while (!full() && in.nextLine(line)) {
      if (in.lineNumber() % kLinesPerProgressCheck == 0) report(m_filesDone + in.fileBytesRead());
      std::string_view view(line);
      if (in.lineNumber() == 1 && view.substr(0, 3) == "\xEF\xBB\xBF") view.remove_prefix(3);
      if (jsonLines) {
        addRecord(view, name, in.lineNumber(), textField);
      } else {
        addLine(view, name, in.lineNumber());
      }
    }
    m_filesDone += in.fileBytesRead();
    report(m_filesDone);
  }

  CorpusBuild finish(const fs::path& target) {
    m_out.close();
    if (!m_out) throw DataError(m_tmp.string(), "write failed (disk full?)");
    replaceFile(m_tmp, target);
    m_build.textPath = target;
    m_build.fingerprint = m_hash.value();
    return std::move(m_build);
  }

  const CorpusBuild& build() const { return m_build; }
  std::uint64_t invalidUtf8Lines() const { return m_invalidUtf8; }
  std::uint64_t controlLines() const { return m_control; }
  std::uint64_t badRecordLines() const { return m_badRecords; }

 private:
  static constexpr std::uint64_t kLinesPerProgressCheck = 4096;

  /// Tells the caller a few times a second how far reading is; throws Cancelled on a stop.
  void report(std::uint64_t done) {
    if (!m_progress) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - m_reportedAt < std::chrono::milliseconds(200)) return;
    m_reportedAt = now;
    if (!m_progress(std::min(done, m_totalBytes), m_totalBytes)) {
      throw Cancelled("data preparation (corpus)", "stopped on request");
    }
  }

  /// One text line (or one paragraph of a JSON record): checked, normalised, kept.
  void addLine(std::string_view view, const std::string& name, std::uint64_t lineNo) {
    if (!view.empty() && view.back() == '\r') view.remove_suffix(1);
    const std::string problem = corpusLineProblem(view);
    if (!problem.empty()) {
      skip(name, lineNo, problem);
      return;
    }
    const std::string kept = normaliseCorpusLine(view);
    if (kept.empty()) {
      ++m_build.stats.linesEmpty;
      return;
    }
    keep(kept);
  }

  /// One JSON line: a bad record is skipped like a bad text line (and under the same
  /// policy); a good one adds each paragraph of its text as a line, reported at this line.
  void addRecord(std::string_view view, const std::string& name, std::uint64_t lineNo,
                 const std::string& textField) {
    if (!view.empty() && view.back() == '\r') view.remove_suffix(1);
    if (view.find_first_not_of(" \t") == std::string_view::npos) {
      ++m_build.stats.linesEmpty;
      return;
    }
    // The raw line first: Latin-1 or control bytes get the text path's reasons (and
    // counts), not a JSON parser's message.
    std::string problem = corpusLineProblem(view);
    JsonLineText record;
    if (problem.empty()) {
      record = jsonLineText(view, textField);
      problem = std::move(record.problem);
    }
    if (!problem.empty()) {
      skip(name, lineNo, problem);
      return;
    }
    std::string_view text(record.text);
    while (!full()) {
      const std::size_t nl = text.find('\n');
      addLine(text.substr(0, nl), name, lineNo);
      if (nl == std::string_view::npos) break;
      text.remove_prefix(nl + 1);
    }
  }

  void rejectBinary(std::string_view head, const std::string& name) {
    const std::size_t nul = head.find('\0');
    if (nul == std::string_view::npos) return;
    // A compressed file without its extension is a common slip; say what it is.
    const Compression packed = compressionFromMagic(head);
    const std::string advice =
        packed != Compression::None
            ? std::string("it looks like ") + std::string(compressionName(packed)) +
                  " data: give it the extension " + (packed == Compression::Gzip ? ".gz" : ".zst")
            : std::string("remove it from corpus.paths or its folder, or convert it to UTF-8");
    throw DataError(name, "is a binary file, not UTF-8 text (NUL byte at offset " +
                              std::to_string(nul) +
                              "; UTF-16 text looks like this too): " + advice);
  }

  void skip(const std::string& name, std::uint64_t lineNo, const std::string& problem) {
    if (m_policy == InvalidLinePolicy::Reject) {
      throw DataError(name + ":" + std::to_string(lineNo),
                      problem +
                          " (corpus.invalid_utf8 = \"reject\" stops here; \"skip\" "
                          "reports such lines and leaves them out)");
    }
    if (problem.rfind("control", 0) == 0) {
      ++m_control;
    } else if (problem.rfind("invalid UTF-8", 0) == 0) {
      ++m_invalidUtf8;
    } else {
      ++m_badRecords;
    }
    ++m_build.stats.linesSkipped;
    if (m_build.issues.size() < kMaxReportedIssues) {
      m_build.issues.push_back(CorpusIssue{name, lineNo, problem});
    }
  }

  void keep(const std::string& kept) {
    m_out.write(kept.data(), static_cast<std::streamsize>(kept.size()));
    m_out.put('\n');
    m_hash.update(kept);
    m_hash.update("\n");
    auto& s = m_build.stats;
    ++s.linesKept;
    s.bytes += kept.size() + 1;
    s.words += 1 + static_cast<std::uint64_t>(std::count(kept.begin(), kept.end(), ' '));
  }

  fs::path m_tmp;
  std::ofstream m_out;
  InvalidLinePolicy m_policy;
  std::int64_t m_maxLines;
  CorpusProgress m_progress;
  std::uint64_t m_totalBytes = 0;
  std::uint64_t m_filesDone = 0;  ///< bytes of the files read completely
  std::chrono::steady_clock::time_point m_reportedAt{};
  CorpusBuild m_build;
  Fnv1a64 m_hash;
  std::uint64_t m_invalidUtf8 = 0;
  std::uint64_t m_control = 0;
  std::uint64_t m_badRecords = 0;  ///< JSON lines without usable text
};

/// Why a corpus without a single kept line is refused: all lines rejected (with counts and
/// the first), or none there at all. `where` names the source.
DataError emptyCorpusError(const CorpusWriter& writer, const std::string& where) {
  const CorpusBuild& b = writer.build();
  if (b.stats.linesSkipped == 0) {
    return DataError(where, "the corpus is empty: " + std::to_string(b.stats.files) +
                                " file(s) hold no non-blank lines");
  }
  const CorpusIssue& first = b.issues.front();
  const std::string records =
      writer.badRecordLines() == 0
          ? std::string()
          : ", " + std::to_string(writer.badRecordLines()) + " JSON lines without usable text";
  return DataError(where, "the corpus has no valid lines: all " +
                              std::to_string(b.stats.linesSkipped) +
                              " non-blank lines were rejected (" +
                              std::to_string(writer.invalidUtf8Lines()) + " invalid UTF-8, " +
                              std::to_string(writer.controlLines()) + " with control characters" +
                              records + "); first: " + first.where() + ": " + first.reason);
}

}  // namespace

std::string corpusLineProblem(std::string_view line) {
  for (std::size_t i = 0; i < line.size(); ++i) {
    const auto c = static_cast<unsigned char>(line[i]);
    if (c < 0x20 && c != '\t') {
      return "control character " + hexByte(c) + " at byte " + std::to_string(i + 1) +
             " (binary data, not text)";
    }
  }
  const std::size_t bad = firstInvalidUtf8Offset(line);
  if (bad != std::string_view::npos) {
    return "invalid UTF-8 at byte " + std::to_string(bad + 1) + " (" +
           hexByte(static_cast<unsigned char>(line[bad])) +
           "; Latin-1 text? convert it with iconv -f latin1 -t utf-8)";
  }
  return {};
}

std::string normaliseCorpusLine(std::string_view line) {
  std::string out;
  out.reserve(line.size());
  bool pendingSpace = false;
  for (const char ch : line) {
    if (ch == ' ' || ch == '\t') {
      pendingSpace = !out.empty();
      continue;
    }
    if (pendingSpace) out.push_back(' ');
    pendingSpace = false;
    out.push_back(ch);
  }
  return out;
}

std::vector<fs::path> listCorpusFiles(const CorpusConfig& config) {
  if (config.paths.empty()) {
    throw ConfigError("corpus.paths",
                      "is empty: list the text files or folders for corpus.source = \"text\"");
  }
  std::vector<fs::path> files;
  for (const std::string& given : config.paths) {
    const fs::path p(given);
    std::error_code ec;
    const auto status = fs::status(p, ec);
    if (ec || !fs::exists(status)) {
      throw DataError(given, "corpus path does not exist");
    }
    if (fs::is_regular_file(status)) {
      files.push_back(p);
      continue;
    }
    if (!fs::is_directory(status)) {
      throw DataError(given, "corpus path is neither a regular file nor a folder");
    }
    std::vector<fs::path> inside;
    for (fs::recursive_directory_iterator
             it(p, fs::directory_options::follow_directory_symlink, ec),
         end;
         !ec && it != end; it.increment(ec)) {
      std::error_code fileEc;
      if (it->is_regular_file(fileEc)) inside.push_back(it->path());
    }
    if (ec) throw DataError(given, "cannot list the folder: " + ec.message());
    if (inside.empty()) throw DataError(given, "folder contains no regular files");
    // Directory order is whatever the file system gives; sorting makes the corpus (and so
    // its fingerprint, tokenizer and batches) the same on every machine.
    std::sort(inside.begin(), inside.end());
    files.insert(files.end(), inside.begin(), inside.end());
  }
  return files;
}

CorpusBuild buildCorpus(const CorpusConfig& config, const fs::path& folder,
                        const CorpusProgress& progress) {
  const InvalidLinePolicy policy = config.invalidUtf8;
  if (config.maxLines < 0) {
    throw ConfigError("corpus.max_lines",
                      "must be 0 (all) or positive, got " + std::to_string(config.maxLines));
  }
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) throw DataError(folder.string(), "cannot create the folder: " + ec.message());

  const fs::path target = folder / "corpus.txt";
  std::string where;
  CorpusWriter writer(temporaryPathFor(target), policy, config.maxLines, progress);
  try {
    switch (config.source) {
      case CorpusSource::Wordnet: {
        where = config.wordnetDir;
        // WordNet's glosses are extracted (and converted from Latin-1) first, then pass the
        // same checks and normalisation as any text source.
        const fs::path raw = folder / "wordnet_glosses.txt";
        writeWordNetGlosses(config.wordnetDir, raw);
        const auto size = fs::file_size(raw, ec);
        writer.expectBytes(ec ? 0 : size);
        writer.addFile(raw, raw.string(), /*jsonLines=*/false);
        fs::remove(raw, ec);
        break;
      }
      case CorpusSource::Text: {
        const auto files = listCorpusFiles(config);
        where = config.paths.size() == 1 ? config.paths.front() : std::string("corpus.paths");
        std::uint64_t total = 0;
        for (const fs::path& f : files) {
          const auto size = fs::file_size(f, ec);
          if (!ec) total += size;  // unreadable files fail with their own message below
        }
        writer.expectBytes(total);
        for (const fs::path& f : files) {
          writer.addFile(f, f.string(), readsAsJsonLines(config.format, f), config.textField);
        }
        break;
      }
    }
  } catch (...) {
    fs::remove(temporaryPathFor(target), ec);
    throw;
  }

  if (writer.build().stats.linesKept == 0) {
    fs::remove(temporaryPathFor(target), ec);
    throw emptyCorpusError(writer, where);
  }
  try {
    return writer.finish(target);
  } catch (...) {
    fs::remove(temporaryPathFor(target), ec);
    throw;
  }
}

}  // namespace attnlab::core
