#include "app/gui/panels/health/health_data.h"

#include "core/config/config_loader.h"

#include <QRegularExpression>

#include <algorithm>
#include <cmath>
#include <limits>

namespace attnlab::app {

namespace {

constexpr const char* kPrefix = "health/";

/// One series of the history to fill: its name under health/, its inner shape, its rows.
struct Target {
  QString name;
  std::vector<std::int64_t> shape;
  std::vector<std::vector<float>>* rows;
};

std::vector<Target> targetsOf(core::HealthHistory& h) {
  const std::int64_t L = h.layers, H = h.heads, C = h.classes;
  std::vector<Target> t = {{"class_mass", {L, H, C}, &h.classMass},
                           {"sink_rate", {C}, &h.sinkRate},
                           {"sink_rate_by_layer", {L, C}, &h.sinkRateByLayer},
                           {"massive_value", {L, 3}, &h.massiveValue},
                           {"massive_token", {L, 3}, &h.massiveToken},
                           {"massive_dimension", {L, 3}, &h.massiveDimension},
                           {"median_abs", {L}, &h.medianAbs},
                           {"massive_ratio", {L}, &h.massiveRatio},
                           {"rank_residual", {L}, &h.rankResidual},
                           {"mean_cosine", {L}, &h.meanCosine}};
  for (auto& s : h.perHead) t.push_back({QString::fromStdString(s.name), {L, H}, &s.rows});
  return t;
}

QString shapeText(const std::vector<std::int64_t>& shape) {
  QStringList parts;
  for (auto d : shape) parts << QString::number(d);
  return QStringLiteral("[%1]").arg(parts.join(QStringLiteral(", ")));
}

/// The rows a session series holds completely.
std::size_t completeRows(const LayerSeries& s) {
  const std::int64_t width = s.rowSize();
  if (width <= 0) return 0;
  return std::min(s.steps.size(), s.values.size() / static_cast<std::size_t>(width));
}

/// Sizes an empty history from the session's health/entropy_mean ([L, H]).
bool startHistory(const LayerSeries& probe, core::HealthHistory& h, QString* error) {
  if (probe.innerShape.size() != 2) {
    if (error) *error = QStringLiteral("health/entropy_mean is not [layers, heads] per step");
    return false;
  }
  h = {};
  h.layers = probe.innerShape[0];
  h.heads = probe.innerShape[1];
  h.classes = static_cast<std::int64_t>(core::healthClassNames().size());
  for (const auto& name : core::healthHeadSeriesNames()) h.perHead.push_back({name, {}});
  return true;
}

double valueOf(const core::HealthHistory& h, HealthQuantity q, int sinkClass, int row, int l,
               int head) {
  const auto r = static_cast<std::size_t>(row);
  if (q == HealthQuantity::SinkMass) {
    const auto i = static_cast<std::size_t>((l * h.heads + head) * h.classes + sinkClass);
    return r < h.classMass.size() && i < h.classMass[r].size() ? h.classMass[r][i] : std::nan("");
  }
  const core::HeadSeries* s = h.head(healthQuantityInfo(q).series.toStdString());
  const auto i = static_cast<std::size_t>(l * h.heads + head);
  if (s == nullptr || r >= s->rows.size() || i >= s->rows[r].size()) return std::nan("");
  return s->rows[r][i];
}

}  // namespace

const QVector<HealthQuantityInfo>& healthQuantities() {
  using Q = HealthQuantity;
  static const QVector<HealthQuantityInfo> list = {
      {Q::SinkMass, "sink mass on a token class", "sink mass", "fraction of attention",
       "class_mass", true,
       "Mean attention mass the keys of one token class receive, averaged over real queries "
       "(attention sinks: Xiao et al. 2023, Gu et al. 2025)"},
      {Q::TopKeyMass, "top key mass", "top key mass", "fraction of attention", "top_key_mass", true,
       "Mean over the probe sequences of the largest mass one key receives"},
      {Q::EntropyMean, "entropy mean", "mean entropy", "nats", "entropy_mean", false,
       "Mean entropy of the attention rows over real queries"},
      {Q::EntropyMin, "entropy min", "minimum entropy", "nats", "entropy_min", false,
       "Smallest attention-row entropy (entropy collapse: Zhai et al. 2023)"},
      {Q::CollapsedShare, "collapsed share", "collapsed rows", "fraction of rows",
       "collapsed_share", true, "Share of attention rows under log.health_collapse_nats"},
      {Q::LogitMax, "S_max (logit max)", "S_max", "logit", "logit_max", false,
       "Largest pre-softmax logit over real query-key pairs (Dehghani et al. 2023)"},
      {Q::SpectralNorm, "spectral norm", "spectral norm of W_Q W_K^T / sqrt(d)", "",
       "spectral_norm", false, "sigma(W_Q,h W_K,h^T) / sqrt(d), by power iteration"},
      {Q::RotarySpectralNorm, "spectral norm, largest over offsets (RoPE)",
       "largest spectral norm over offsets", "", "spectral_norm_rotary", false,
       "Under rotary positions: the largest sigma(W_Q,h^T R(r) W_K,h) / sqrt(d) over the "
       "offsets r the layer's queries reach (a report of Measure health on a rotary model)"},
  };
  return list;
}

bool historyHas(const core::HealthHistory& history, HealthQuantity quantity) {
  return quantity == HealthQuantity::SinkMass
             ? !history.classMass.empty()
             : history.head(healthQuantityInfo(quantity).series.toStdString()) != nullptr;
}

const HealthQuantityInfo& healthQuantityInfo(HealthQuantity quantity) {
  for (const auto& info : healthQuantities())
    if (info.quantity == quantity) return info;
  return healthQuantities().front();
}

QString healthValueLabel(HealthQuantity quantity, int sinkClass) {
  const HealthQuantityInfo& info = healthQuantityInfo(quantity);
  QString name = info.axisName;
  const auto& classes = core::healthClassNames();
  if (quantity == HealthQuantity::SinkMass && sinkClass >= 0 &&
      sinkClass < static_cast<int>(classes.size()))
    name += QStringLiteral(" on %1").arg(QString::fromStdString(classes[sinkClass]));
  return info.unit.isEmpty() ? name : QStringLiteral("%1 (%2)").arg(name, info.unit);
}

bool sessionHasHealth(const std::map<QString, LayerSeries>& series) {
  return series.count(QStringLiteral("health/entropy_mean")) > 0;
}

int appendHealthRows(const std::map<QString, LayerSeries>& series, core::HealthHistory& h,
                     QString* error) {
  const auto probe = series.find(QStringLiteral("health/entropy_mean"));
  if (probe == series.end()) return 0;
  if (h.perHead.empty() && !startHistory(probe->second, h, error)) return -1;
  std::size_t common = std::numeric_limits<std::size_t>::max();
  std::vector<Target> targets = targetsOf(h);
  for (const Target& t : targets) {
    const auto it = series.find(kPrefix + t.name);
    if (it == series.end()) return 0;  // its first rows have not arrived yet
    if (it->second.innerShape != t.shape) {
      if (error)
        *error = QStringLiteral("health/%1 has shape %2 per step where %3 was expected")
                     .arg(t.name, shapeText(it->second.innerShape), shapeText(t.shape));
      return -1;
    }
    common = std::min(common, completeRows(it->second));
  }
  const std::size_t have = h.steps.size();
  if (common <= have) return 0;
  for (const Target& t : targets) {
    const LayerSeries& s = series.at(kPrefix + t.name);
    const auto width = static_cast<std::size_t>(s.rowSize());
    for (std::size_t r = have; r < common; ++r)
      t.rows->emplace_back(s.values.begin() + r * width, s.values.begin() + (r + 1) * width);
  }
  const LayerSeries& steps = probe->second;
  for (std::size_t r = have; r < common; ++r)
    h.steps.push_back(static_cast<std::int64_t>(steps.steps[r]));
  return static_cast<int>(common - have);
}

widgets::Matrix headValuesAt(const core::HealthHistory& h, HealthQuantity q, int sinkClass,
                             int row) {
  const int L = static_cast<int>(h.layers), H = static_cast<int>(h.heads);
  if (row < 0 || row >= static_cast<int>(h.steps.size()) || L <= 0 || H <= 0) return {};
  widgets::Matrix m(L, H);
  for (int l = 0; l < L; ++l)
    for (int head = 0; head < H; ++head)
      m.at(l, head) = static_cast<float>(valueOf(h, q, sinkClass, row, l, head));
  return m;
}

std::vector<double> headTrend(const core::HealthHistory& h, HealthQuantity q, int sinkClass,
                              int layer, int head) {
  std::vector<double> out(h.steps.size());
  for (std::size_t r = 0; r < out.size(); ++r)
    out[r] = valueOf(h, q, sinkClass, static_cast<int>(r), layer, head);
  return out;
}

std::pair<double, double> healthValueRange(const core::HealthHistory& h, HealthQuantity q,
                                           int sinkClass) {
  if (healthQuantityInfo(q).fraction) return {0.0, 1.0};
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (int r = 0; r < static_cast<int>(h.steps.size()); ++r)
    for (int l = 0; l < h.layers; ++l)
      for (int head = 0; head < h.heads; ++head) {
        const double v = valueOf(h, q, sinkClass, r, l, head);
        if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
      }
  if (!std::isfinite(lo)) return {0.0, 1.0};
  return {lo, hi};
}

std::vector<double> healthSteps(const core::HealthHistory& h) {
  return {h.steps.begin(), h.steps.end()};
}

std::vector<double> layerTrend(const std::vector<std::vector<float>>& rows, int layer) {
  std::vector<double> out;
  out.reserve(rows.size());
  for (const auto& row : rows)
    out.push_back(layer >= 0 && layer < static_cast<int>(row.size()) ? row[layer] : std::nan(""));
  return out;
}

QString whyNoHealth(const QString& configToml, bool live) {
  bool healthOff = false;
  try {
    healthOff = !core::parseRunConfig(configToml.toStdString(), "run.h5").log.health;
  } catch (const std::exception&) {
    // A configuration this version cannot read: look for the key itself.
    healthOff = configToml.contains(QRegularExpression(QStringLiteral("^\\s*health\\s*=\\s*false"),
                                                       QRegularExpression::MultilineOption));
  }
  if (healthOff)
    return QStringLiteral(
        "This run has no attention-health series: it was trained with log.health = false. "
        "Runs trained with log.health = true (the default) log them under health/ in run.h5.");
  if (live)
    return QStringLiteral(
        "No attention-health series yet: the first row is logged at step 0, then every "
        "log.health_every steps (0 = every train.log_every).");
  return QStringLiteral(
      "This run has no attention-health series: its log was written before AttnLab logged "
      "them (health/ in run.h5). Runs trained now log them by default (log.health).");
}

}  // namespace attnlab::app
