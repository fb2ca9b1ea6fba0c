#pragma once

#include "core/config/run_config.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace attnlab::core {

/// A line that was left out of the corpus (invalid UTF-8, control characters, or a JSON line
/// without usable text).
struct CorpusIssue {
  std::string file;        ///< the source file as given / found in a folder
  std::uint64_t line = 0;  ///< 1-based line number in that file
  std::string reason;      ///< e.g. "invalid UTF-8 at byte 3"
  /// "file:line", the form DataError::where() uses.
  std::string where() const { return file + ":" + std::to_string(line); }
};

struct CorpusStats {
  std::uint64_t files = 0;         ///< source files read
  std::uint64_t linesKept = 0;     ///< lines written to the corpus
  std::uint64_t linesSkipped = 0;  ///< lines left out as invalid (see CorpusBuild::issues)
  std::uint64_t linesEmpty = 0;    ///< blank lines dropped (not an error)
  std::uint64_t words = 0;         ///< whitespace-separated words in the kept lines
  std::uint64_t bytes = 0;         ///< bytes of the corpus file (kept lines + newlines)
};

/// The normalised corpus written by buildCorpus.
struct CorpusBuild {
  std::filesystem::path textPath;  ///< <folder>/corpus.txt, one line per sentence/document
  CorpusStats stats;
  std::uint64_t fingerprint = 0;    ///< FNV-1a 64 of corpus.txt's bytes
  std::vector<CorpusIssue> issues;  ///< the first kMaxReportedIssues skipped lines
};

/// How many skipped lines are reported individually; stats.linesSkipped counts them all.
inline constexpr std::size_t kMaxReportedIssues = 20;
/// A file whose first this-many bytes hold a NUL is binary (git's and grep's heuristic).
inline constexpr std::size_t kBinaryProbeBytes = 8192;

/// The files a "text" source reads, in order: each listed file, and every regular file
/// under each listed folder (recursively, sorted by path). Throws DataError naming a
/// missing path or a folder without files; ConfigError when corpus.paths is empty.
std::vector<std::filesystem::path> listCorpusFiles(const CorpusConfig& config);

/// Why `line` cannot go into the corpus (a C0 control character other than tab, or
/// ill-formed UTF-8), or an empty string when it can.
std::string corpusLineProblem(std::string_view line);

/// Normalises one accepted line: tabs become spaces, runs of spaces collapse to one,
/// leading/trailing spaces go. The result may be empty (the line is then dropped).
std::string normaliseCorpusLine(std::string_view line);

/// Builds <folder>/corpus.txt from `config` (source "wordnet" or "text"), replacing it
/// atomically, and returns its statistics and fingerprint.
///
/// A "text" source reads each file as plain text or JSON lines (corpus.format; "auto" goes by
/// the name, see readsAsJsonLines), decompressing .gz and .zst files as it streams them
/// (CorpusFileReader). A JSON line's corpus.text_field is split at '\n' into paragraphs,
/// each handled like a text line and reported at the JSON line's number; a JSON line that is
/// not an object with that string field is a bad line, like one of invalid UTF-8.
///
/// Each line has a trailing CR (CRLF files) and a leading UTF-8 BOM removed, is checked
/// (corpusLineProblem) and normalised (normaliseCorpusLine); blank lines are dropped and
/// corpus.max_lines caps the kept lines. A bad line is reported in `issues` and skipped
/// under corpus.invalid_utf8 = "skip"; under "reject" it throws DataError("file:line", ...).
/// Throws DataError naming the path for: a missing path, a folder with no files, a binary
/// file (a NUL byte in its first kBinaryProbeBytes of decoded text, e.g. an image or UTF-16
/// text), a .gz/.zst file without its magic bytes or with corrupt or truncated data, an empty
/// corpus, and a corpus in which every line was rejected (with counts and the first one).
/// On every error the previous corpus.txt stays as it was and no temporary is left.
/// Throws ConfigError for an unknown corpus.source or corpus.invalid_utf8.
/// `progress` (optional) hears (bytes of the source files read, their size on disk) a few
/// times a second; false stops the build with attnlab::Cancelled, leaving no corpus.txt
/// behind but the previous one.
using CorpusProgress = std::function<bool(std::uint64_t done, std::uint64_t total)>;
CorpusBuild buildCorpus(const CorpusConfig& config, const std::filesystem::path& folder,
                        const CorpusProgress& progress = {});

}  // namespace attnlab::core
