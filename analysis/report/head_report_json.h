#pragma once

// analysis.json's "head_analysis" object (analyze --heads): head importance, single-head ablation
// and pruning curves (head_report.h). Absent when the heads were not analysed.

#include "analysis/runs/head_report.h"

#include <nlohmann/json.hpp>

namespace attnlab::analysis {

nlohmann::json headReportJson(const HeadReport& report);

}  // namespace attnlab::analysis
