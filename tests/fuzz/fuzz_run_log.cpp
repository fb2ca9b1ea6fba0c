// HDF5 files opened as run logs (run.h5): RunLogReader, as the desktop app, `analyze` and
// `export` open them, with every accessor the app's live views call. Documented error:
// RunLogError (where() = the file and object). Rows must come back whole: a scalar's columns
// of one length, a series' values exactly rows x inner shape.

#include "core/errors/error.h"
#include "core/runlog/run_log_reader.h"
#include "tests/fuzz/fuzz_support.h"

#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace {

using namespace attnlab;

void readEverything(const core::RunLogReader& r) {
  (void)r.runName();
  (void)r.attnlabVersion();
  (void)r.createdUtc();
  (void)r.configToml();
  (void)r.configJson();
  (void)r.tokenizerPieces();
  (void)r.probeTokens();
  for (const auto& name : r.scalarNames()) {
    const core::ScalarSeries s = r.scalar(name);
    if (s.values.size() != s.steps.size() || s.wallTimes.size() != s.steps.size()) {
      fuzz::reportFinding("scalar '" + name + "': columns of different lengths");
    }
    if (r.scalarRows(name) < s.steps.size()) {
      fuzz::reportFinding("scalar '" + name + "': more rows read than it has");
    }
    if (!s.steps.empty()) (void)r.scalar(name, s.steps.size() - 1);
  }
  for (const auto& name : r.seriesNames()) {
    const std::uint64_t rows = r.seriesRows(name);
    const core::TensorSeries t = r.series(name, 0, 4);
    std::uint64_t inner = 1;
    for (const auto d : t.innerShape) {
      if (d < 0) fuzz::reportFinding("series '" + name + "': negative dimension");
      inner *= static_cast<std::uint64_t>(d);
    }
    if (t.wallTimes.size() != t.steps.size() || t.values.size() != t.steps.size() * inner) {
      fuzz::reportFinding("series '" + name + "': values do not fill rows x inner shape");
    }
    if (t.steps.size() > rows || t.steps.size() > 4) {
      fuzz::reportFinding("series '" + name + "': more rows read than asked or present");
    }
    (void)r.seriesSteps(name);
    if (rows > 0) (void)r.series(name, rows - 1, 1);
  }
  (void)r.checkpoints();
  (void)r.events();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = fuzz::writeScratchFile("run.h5", data, size);
  try {
    core::RunLogReader reader(path.string());
    readEverything(reader);
    reader.refresh();
    readEverything(reader);
  } catch (const RunLogError& e) {
    fuzz::checkClearError(e);
  } catch (const std::exception& e) {
    fuzz::reportUndocumented(e);
  }
  // HDF5 keeps freed blocks on its own free lists; a damaged file can make it allocate
  // hundreds of MB at a time, and without this the process would keep it all and end at the
  // memory limit some inputs later, blamed on an innocent one.
  H5garbage_collect();
  return 0;
}
